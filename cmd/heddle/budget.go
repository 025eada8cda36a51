package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/explore"
)

// totalBudget spreads -budget-total over the packages of a heddle test
// command, in proportion to their tests: a package gets what is left of
// the total times its share of the tests left (its own counted by its
// test binary, the others' estimated from their _test.go files), and its
// test binary spreads that over its tests as they run (explore.Config's
// PackageTime), so that time a test did not use goes to the next ones.
type totalBudget struct {
	total     time.Duration
	start     time.Time
	match     *explore.NameMatcher // -run and -skip
	run, skip string
	est       []int // estimated tests of each package
}

func newTotalBudget(f *testFlags, pkgs []*build.Package) *totalBudget {
	if f.total <= 0 {
		return nil
	}
	b := &totalBudget{total: f.total, start: time.Now(), run: f.run, skip: f.skip}
	b.match, _ = explore.NewNameMatcher(f.run, f.skip) // checked by parseExploreFlags
	for _, p := range pkgs {
		n := 0
		if p.HasTests {
			n = b.countTests(p.Dir)
		}
		b.est = append(b.est, n)
	}
	return b
}

// testFunc matches the declaration of a test function.
var testFunc = regexp.MustCompile(`^func (Test[^a-z(\[]?\w*)\(`)

// countTests estimates the tests of the package in dir that -run selects,
// from its _test.go files (build constraints are ignored).
func (b *totalBudget) countTests(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	n := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := testFunc.FindStringSubmatch(sc.Text()); m != nil && m[1] != "TestMain" && b.match.Selects(m[1]) {
				n++
			}
		}
		f.Close()
	}
	return n
}

// share returns the time budget of package i, whose test binary is bin
// (run in dir), and its number of tests; 0, 0 without -budget-total.
func (b *totalBudget) share(i int, bin, dir string) (time.Duration, int) {
	if b == nil {
		return 0, 0
	}
	n := b.listTests(bin, dir)
	if n < 0 {
		n = b.est[i]
	}
	b.est[i] = n
	left := 0
	for _, m := range b.est[i:] {
		left += m
	}
	if n == 0 || left == 0 {
		return 0, 0
	}
	rest := b.total - time.Since(b.start)
	return max(rest*time.Duration(n)/time.Duration(left), 0) + 1, n
}

// listTests counts the tests of a test binary that -run and -skip select
// (-1 when it cannot).
func (b *totalBudget) listTests(bin, dir string) int {
	names, err := listSelected(bin, dir, b.run, b.skip)
	if err != nil {
		return -1
	}
	n := 0
	for _, l := range names {
		if strings.HasPrefix(l, "Test") {
			n++
		}
	}
	return n
}
