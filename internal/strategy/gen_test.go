package strategy_test

import (
	"flag"
	"fmt"
	"go/format"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
)

// The generated corpus of the differential test: small straight-line
// programs (no loops, so each terminates or blocks under every schedule),
// written as real Go source so that every operation has its own call site,
// as in a user's program. corpus_gen_test.go is the output of genCorpus;
// go test -run TestGeneratedCorpusUpToDate -update rewrites it.

var update = flag.Bool("update", false, "rewrite corpus_gen_test.go")

const (
	genCount = 400 // generated programs, seeds genFirst to genFirst+genCount-1
	genFirst = 1   // first seed
)

// genSkip are the seeds left out of the corpus, with the reason.
var genSkip = map[int64]string{
	74:  "exhaustive DFS takes 46,200 runs (limit 20,000)",
	125: "exhaustive DFS takes 109,564 runs",
	262: "exhaustive DFS takes over 20,000 runs",
	290: "exhaustive DFS takes over 20,000 runs",
	393: "exhaustive DFS takes over 20,000 runs",
}

// genExtra are seeds past genFirst+genCount that a sweep of more seeds
// found a DPOR strategy wrong on, with what it found (docs/strategies.md,
// Tests).
var genExtra = map[int64]string{
	2233: "odpor missed 2 of 397 HB classes: a rendezvous reversed to an earlier point, where it had not run, had an unknown announcement and was put after a sibling it commutes with in the wakeup tree",
	3573: "odpor missed 1 of 10 HB classes: a select's receive from a buffered channel filled by a step of the reversed sequence was reversed as the other case, ready where the race's first step ran",
	805:  "with arrival steps, odpor missed 7 of 15 HB classes: a wakeup leaf standing for a select's arrival (inserted as the completion) covered the reversal of two arrivals on one channel",
	839:  "with arrival steps, odpor missed 3 of 8 HB classes (as 805)",
	1273: "with arrival steps, odpor missed 3 of 8 HB classes (as 805)",
}

// genSeeds are the seeds of the generated corpus, in order.
func genSeeds() []int64 {
	var seeds []int64
	for s := int64(genFirst); s < genFirst+genCount; s++ {
		if _, skip := genSkip[s]; !skip {
			seeds = append(seeds, s)
		}
	}
	var extra []int64
	for s := range genExtra {
		extra = append(extra, s)
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return append(seeds, extra...)
}

type genGoroutine struct {
	lines []string
}

// genProgram writes the source of one program from seed: 2 or 3 goroutines
// and the test goroutine, each doing a few operations among atomic loads,
// stores and adds on 2 variables, critical sections on 1 or 2 mutexes,
// sends and receives on a buffered and an unbuffered channel (balanced
// most of the time), selects with or without default, and a WaitGroup the
// test goroutine may wait on.
func genProgram(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	nG := 2 + r.Intn(2)
	nM := 1 + r.Intn(2)
	useWG := r.Intn(2) == 0
	caps := []int{0, 1 + r.Intn(2)}
	budget := 5 + r.Intn(3) // visible operations in the goroutines
	if nG == 3 {
		budget--
	}
	gs := make([]genGoroutine, nG+1) // gs[0] is the test goroutine's tail
	val := int32(10)
	next := func() int32 { val++; return val }
	simple := func(g int) string {
		x := r.Intn(2)
		switch r.Intn(3) {
		case 0:
			return fmt.Sprintf("o.log(%d, atomic.LoadInt32(rt.AtomicR(&x%d)))", g, x)
		case 1:
			return fmt.Sprintf("atomic.StoreInt32(rt.AtomicW(&x%d), %d)", x, next())
		}
		return fmt.Sprintf("o.log(%d, atomic.AddInt32(rt.AtomicW(&x%d), %d))", g, x, 1+r.Intn(3))
	}
	// Channel operations are placed in pairs (a send and a receive in two
	// different goroutines) most of the time.
	sends := map[int]int{}
	recvs := map[int]int{}
	for budget > 0 {
		g := 1 + r.Intn(nG)
		if r.Intn(5) == 0 {
			g = 0
		}
		switch k := r.Intn(10); {
		case k < 4:
			gs[g].lines = append(gs[g].lines, simple(g))
			budget--
		case k < 6:
			m := r.Intn(nM)
			gs[g].lines = append(gs[g].lines, fmt.Sprintf("rt.MutexLock(&m%d)", m))
			for i := r.Intn(2); i >= 0; i-- {
				gs[g].lines = append(gs[g].lines, simple(g))
				budget--
			}
			if nM == 2 && r.Intn(4) == 0 {
				m2 := 1 - m
				gs[g].lines = append(gs[g].lines, fmt.Sprintf("rt.MutexLock(&m%d)", m2), simple(g), fmt.Sprintf("rt.MutexUnlock(&m%d)", m2))
				budget -= 3
			}
			gs[g].lines = append(gs[g].lines, fmt.Sprintf("rt.MutexUnlock(&m%d)", m))
			budget -= 2
		case k < 8:
			c := r.Intn(2)
			h := r.Intn(nG + 1)
			if h == g {
				h = (h + 1) % (nG + 1)
			}
			gs[g].lines = append(gs[g].lines, fmt.Sprintf("rt.Send(c%d, %d)", c, next()))
			sends[c]++
			if r.Intn(6) != 0 {
				gs[h].lines = append(gs[h].lines, fmt.Sprintf("o.log(%d, rt.Recv(c%d))", h, c))
				recvs[c]++
			}
			budget -= 2
		default:
			// A select: receive on one channel or send on the other.
			c := r.Intn(2)
			dflt := r.Intn(2) == 0
			gs[g].lines = append(gs[g].lines, fmt.Sprintf("{ r := rt.RecvCase(c%d); o.log(%d, 100+int32(rt.Select(%v, r, rt.SendCase(c%d, %d)))); o.log(%d, r.V) }", c, g, dflt, 1-c, next(), g))
			h := r.Intn(nG + 1)
			if h == g {
				h = (h + 1) % (nG + 1)
			}
			if r.Intn(2) == 0 {
				gs[h].lines = append(gs[h].lines, fmt.Sprintf("rt.Send(c%d, %d)", c, next()))
			} else {
				gs[h].lines = append(gs[h].lines, fmt.Sprintf("o.log(%d, rt.Recv(c%d))", h, 1-c))
			}
			budget -= 2
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "func gen%03d(o *outcome) {\n", seed)
	b.WriteString("\tvar x0, x1 int32\n\to.vars = []*int32{&x0, &x1}\n")
	for m := 0; m < nM; m++ {
		fmt.Fprintf(&b, "\tvar m%d sync.Mutex\n", m)
	}
	for c, n := range caps {
		fmt.Fprintf(&b, "\tc%d := rt.MakeChan[chan int32](%d)\n", c, n)
	}
	if useWG {
		fmt.Fprintf(&b, "\tvar wg sync.WaitGroup\n\trt.WaitGroupAdd(&wg, %d)\n", nG)
	}
	used := func(s string) bool {
		for _, g := range gs {
			for _, l := range g.lines {
				if strings.Contains(l, s) {
					return true
				}
			}
		}
		return false
	}
	for g := 1; g <= nG; g++ {
		b.WriteString("\trt.Go(func() {\n")
		for _, l := range gs[g].lines {
			b.WriteString("\t\t" + l + "\n")
		}
		if useWG {
			b.WriteString("\t\trt.WaitGroupDone(&wg)\n")
		}
		b.WriteString("\t})\n")
	}
	if useWG {
		b.WriteString("\trt.WaitGroupWait(&wg)\n")
	}
	for _, l := range gs[0].lines {
		b.WriteString("\t" + l + "\n")
	}
	for m := 0; m < nM; m++ {
		if !used(fmt.Sprintf("&m%d)", m)) {
			fmt.Fprintf(&b, "\t_ = &m%d\n", m)
		}
	}
	for c := range caps {
		if !used(fmt.Sprintf("c%d", c)) {
			fmt.Fprintf(&b, "\t_ = c%d\n", c)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

func genCorpus() string {
	var b strings.Builder
	b.WriteString("// Code generated by genCorpus in gen_test.go; DO NOT EDIT.\n\npackage strategy_test\n\nimport (\n\t\"sync\"\n\t\"sync/atomic\"\n\n\t\"heddle.dev/rt\"\n)\n\n")
	b.WriteString("var generated = []struct {\n\tname string\n\tbody func(*outcome)\n}{\n")
	for _, s := range genSeeds() {
		fmt.Fprintf(&b, "\t{\"gen%03d\", gen%03d},\n", s, s)
	}
	b.WriteString("}\n")
	for _, s := range genSeeds() {
		b.WriteString("\n" + genProgram(s))
	}
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return string(src)
}

func TestGeneratedCorpusUpToDate(t *testing.T) {
	want := genCorpus()
	if *update {
		if err := os.WriteFile("corpus_gen_test.go", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("corpus_gen_test.go")
	if err != nil || string(got) != want {
		t.Fatalf("corpus_gen_test.go is not the output of genCorpus: go test -run TestGeneratedCorpusUpToDate -update")
	}
}
