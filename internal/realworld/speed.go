package realworld

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"heddle.dev/internal/event"
)

// SpeedConfig is one measurement of heddle's cost per run against a
// native run, test by test (cmd/realworld -speed).
type SpeedConfig struct {
	Heddle string // the heddle binary measured
	Work   string // where modules are copied
	Budget string // heddle test's -budget, per test
	// NativeTime is how long each test runs natively: it runs
	// -test.count N times in one process, N chosen so that the N runs
	// take about NativeTime.
	NativeTime time.Duration
	// Timeout bounds each command (a native test, heddle on a package).
	Timeout time.Duration
	Log     io.Writer
}

// SpeedRow is one test: its native cost per run and heddle's.
type SpeedRow struct {
	Module, Package, Test string
	NativeRuns            int     // runs in the timed native process
	Native                float64 // seconds per native run
	NativeErr             string  // the native runs failed (their time is still shown)
	HeddleRuns            int     // runs heddle made (its summary)
	Heddle                float64 // seconds per heddle run: the summary's elapsed over its runs
	HeddleErr             string  // no summary for the test
}

// Ratio is heddle's cost per run over native's, or 0 when either is
// missing.
func (r *SpeedRow) Ratio() float64 {
	if r.Native <= 0 || r.Heddle <= 0 {
		return 0
	}
	return r.Heddle / r.Native
}

// allKinds are the kinds of bug that -speed disables: a test that reports
// a bug stops exploring at it and spends its time building the report,
// which says nothing about the cost of a run. With every kind disabled,
// every test runs its whole budget.
const allKinds = "deadlock,leak,panic,fail,misuse,steplimit,nondeterminism,blocked,race,timing"

// Speed measures every test of module m: natively (its package's test
// binary built by go test -c, one process per test running it
// -test.count N times, less the time the binary takes to start) and under
// heddle (heddle test -json on the package right after, every bug kind
// disabled so that each test runs its whole budget; the summary's elapsed
// over its runs). Both are measured in the same invocation, package by
// package, so that they see the same machine.
func Speed(ctx context.Context, cfg SpeedConfig, m Module) ([]*SpeedRow, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	dir, err := Fetch(ctx, cfg.Work, m)
	if err != nil {
		return nil, err
	}
	c := command(ctx, cfg.Timeout, MaxRSS, dir, "go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}", "./...")
	if c.exit != 0 {
		return nil, fmt.Errorf("go list in %s: exit %d: %s", m.Path, c.exit, tailLines(string(c.stderr), 5))
	}
	var rows []*SpeedRow
	for _, line := range strings.Split(strings.TrimSpace(string(c.stdout)), "\n") {
		pkg, pdir, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
		pr, err := speedPackage(ctx, cfg, m, dir, pkg, pdir)
		if err != nil {
			fmt.Fprintf(cfg.Log, "realworld: %s: %v\n", pkg, err)
		}
		rows = append(rows, pr...)
	}
	return rows, nil
}

func speedPackage(ctx context.Context, cfg SpeedConfig, m Module, dir, pkg, pdir string) ([]*SpeedRow, error) {
	bin := filepath.Join(cfg.Work, "native-"+strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".test")
	if c := command(ctx, cfg.Timeout, MaxRSS, dir, "go", "test", "-c", "-o", bin, pkg); c.exit != 0 {
		return nil, fmt.Errorf("go test -c: exit %d: %s", c.exit, tailLines(string(c.stdout)+string(c.stderr), 5))
	}
	c := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.list", ".")
	var tests []string
	for _, l := range strings.Split(string(c.stdout), "\n") {
		if strings.HasPrefix(l, "Test") {
			tests = append(tests, strings.TrimSpace(l))
		}
	}
	if len(tests) == 0 {
		return nil, nil
	}
	// The binary's own start (runtime, init, flag parsing): subtracted
	// from every timed process.
	start := math.Inf(1)
	for range 3 {
		start = math.Min(start, command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", "^$").wall)
	}
	byTest := map[string]*SpeedRow{}
	var rows []*SpeedRow
	for _, t := range tests {
		r := &SpeedRow{Module: m.Path, Package: pkg, Test: t}
		rows = append(rows, r)
		byTest[t] = r
		run := "^" + t + "$"
		one := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", run, "-test.count", "1")
		per := math.Max(one.wall-start, 1e-6)
		r.NativeRuns, r.Native = 1, per
		if one.exit != 0 {
			r.NativeErr = nativeErr(one)
		}
		n := int(math.Min(cfg.NativeTime.Seconds()/per, 100000))
		if n <= 1 || one.exit != 0 {
			continue
		}
		// The fastest of three: on a shared machine, the others' load only
		// ever slows a process down.
		r.NativeRuns, r.Native = n, math.Inf(1)
		for range 3 {
			cn := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", run, "-test.count", fmt.Sprint(n))
			if per := math.Max(cn.wall-start, 1e-6) / float64(n); per < r.Native {
				r.Native = per
			}
			if cn.exit != 0 {
				r.NativeErr = nativeErr(cn)
				break
			}
		}
	}
	rel, err := filepath.Rel(dir, pdir)
	if err != nil {
		return rows, err
	}
	h := command(ctx, cfg.Timeout, MaxRSS, dir, cfg.Heddle, "test", "-json", "-budget", cfg.Budget, "-disable", allKinds, "-o", filepath.Join(cfg.Work, "schedules"), "./"+filepath.ToSlash(rel))
	sc := bufio.NewScanner(bytes.NewReader(h.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action != event.Summary {
			continue
		}
		if r := byTest[e.Test]; r != nil && e.Runs > 0 {
			r.HeddleRuns, r.Heddle = e.Runs, e.Elapsed/float64(e.Runs)
		}
	}
	for _, r := range rows {
		if r.HeddleRuns == 0 {
			r.HeddleErr = fmt.Sprintf("no summary (heddle test exit %d%s)", h.exit, errSuffix(tailLines(string(h.stderr), 2)))
		}
	}
	fmt.Fprintf(cfg.Log, "realworld: %s: %d tests measured\n", pkg, len(rows))
	return rows, nil
}

func nativeErr(c result) string {
	switch {
	case c.timedOut:
		return "timed out"
	case c.killed != "":
		return c.killed
	}
	return fmt.Sprintf("exit %d", c.exit)
}

// SpeedMarkdown renders the rows as docs/results/speed.md: the tests whose
// native run takes at least min, by decreasing ratio.
func SpeedMarkdown(rows []*SpeedRow, min time.Duration, command, machine, commit string, wall time.Duration, cfg SpeedConfig) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var slow []*SpeedRow
	fast := 0
	for _, r := range rows {
		if r.Native >= min.Seconds() {
			slow = append(slow, r)
		} else {
			fast++
		}
	}
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].Ratio() > slow[j].Ratio() })
	p("# heddle's cost per run on real tests\n\n")
	p("Generated by `%s` with %s, on %s, in %s.\n\n", command, commit, machine, wall.Round(time.Second))
	p("For every test of the modules measured, package by package: the native test binary (`go test -c`) runs the test `-test.count N` times in one process, N chosen so that the runs take about %v, three times, and the fastest counts, less the binary's start (`-test.run '^$'`, fastest of three); then `heddle test -json -budget %s -disable <every kind> ./pkg` explores the package's tests (every bug kind disabled, so that every test runs its whole budget), and heddle's cost per run is the test's summary `Elapsed` over its `Runs` (it includes the determinism check's recorded replay and everything else the exploration does). Both are measured in the same invocation, one right after the other, on a shared machine: ratios move by tens of percent from one invocation to the next.\n\n", cfg.NativeTime, cfg.Budget)
	over := 0
	for _, r := range slow {
		if r.Ratio() > 5 {
			over++
		}
	}
	p("%d tests whose native run takes at least %v (%d faster tests left out); %d of them cost heddle more than 5× native per run.\n\n", len(slow), min, fast, over)
	p("| module | package | test | native per run | native runs | heddle per run | heddle runs | heddle/native |\n")
	p("|---|---|---|---|---|---|---|---|\n")
	for _, r := range slow {
		sub := strings.TrimPrefix(strings.TrimPrefix(r.Package, r.Module), "/")
		if sub == "" {
			sub = "."
		}
		nat := dur(r.Native)
		if r.NativeErr != "" {
			nat += " (" + cell(r.NativeErr) + ")"
		}
		hed, ratio := dur(r.Heddle), fmt.Sprintf("%.1f×", r.Ratio())
		if r.HeddleErr != "" {
			hed, ratio = cell(r.HeddleErr), ""
		}
		p("| %s | %s | %s | %s | %d | %s | %d | %s |\n", r.Module, sub, r.Test, nat, r.NativeRuns, hed, r.HeddleRuns, ratio)
	}
	return b.String()
}

// dur formats seconds with three significant digits.
func dur(s float64) string {
	d := time.Duration(s * 1e9)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3gs", s)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3gms", s*1e3)
	}
	return fmt.Sprintf("%.3gµs", s*1e6)
}
