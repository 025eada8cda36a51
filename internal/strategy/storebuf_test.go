package strategy_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// tsoProgram is a litmus test as heddle test -racy rewrites it: plain
// assignments captured into store buffers (rt.RacySet), reads marked
// (rt.RacyRead), all of group "m". Each goroutine of gs runs with the
// program's variables; out formats the outcome of a run.
type tsoProgram struct {
	name string
	gs   []func(v *tsoVars)
	out  func(v *tsoVars) string
	want []string // the outcomes x86-TSO allows
}

type tsoVars struct {
	x, y, r1, r2 int
	mu           sync.Mutex
}

func (p tsoProgram) body(seen map[string]bool) func() {
	return func() {
		v := &tsoVars{r1: -1, r2: -1}
		var wg sync.WaitGroup
		for _, g := range p.gs {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				g(v)
			})
		}
		rt.WaitGroupWait(&wg)
		rt.RacyRead("m")
		seen[p.out(v)] = true
	}
}

func load(p *int) int {
	rt.RacyRead("m")
	return *p
}

func store(p *int, v int) { rt.RacySet(p, v, "m") }

var tsoPrograms = []tsoProgram{
	{
		// Store buffering: both reads 0 by a store buffer.
		name: "SB",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.x, 1); store(&v.r1, load(&v.y)) },
			func(v *tsoVars) { store(&v.y, 1); store(&v.r2, load(&v.x)) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.r2) },
		want: []string{"0 0", "0 1", "1 0", "1 1"},
	},
	{
		// The same with a fence (a mutex) between the write and the read:
		// sequentially consistent.
		name: "SB+fence",
		gs: []func(v *tsoVars){
			func(v *tsoVars) {
				store(&v.x, 1)
				rt.MutexLock(&v.mu)
				rt.MutexUnlock(&v.mu)
				store(&v.r1, load(&v.y))
			},
			func(v *tsoVars) {
				store(&v.y, 1)
				rt.MutexLock(&v.mu)
				rt.MutexUnlock(&v.mu)
				store(&v.r2, load(&v.x))
			},
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.r2) },
		want: []string{"0 1", "1 0", "1 1"},
	},
	{
		// Message passing: stores commit in order, loads run in order.
		name: "MP",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.x, 1); store(&v.y, 1) },
			func(v *tsoVars) { store(&v.r1, load(&v.y)); store(&v.r2, load(&v.x)) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.r2) },
		want: []string{"0 0", "0 1", "1 1"},
	},
	{
		// Load buffering: no store passes an earlier load.
		name: "LB",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.r1, load(&v.x)); store(&v.y, 1) },
			func(v *tsoVars) { store(&v.r2, load(&v.y)); store(&v.x, 1) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.r2) },
		want: []string{"0 0", "0 1", "1 0"},
	},
	{
		// Store forwarding: a goroutine reads its own buffered store.
		name: "forward",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.x, 1); store(&v.r1, load(&v.x)) },
			func(v *tsoVars) { store(&v.x, 2) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.x) },
		want: []string{"1 1", "1 2", "2 2"},
	},
	{
		// 2+2W: each goroutine's stores commit in order, so the two
		// second stores cannot both lose.
		name: "2+2W",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.x, 1); store(&v.y, 2) },
			func(v *tsoVars) { store(&v.y, 1); store(&v.x, 2) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.x, v.y) },
		want: []string{"1 2", "2 1", "2 2"},
	},
	{
		// A write the rewriter did not capture (v.x = 5, no point), after
		// a buffered store of the same variable: the goroutine reads it,
		// and it is what memory ends with (it takes the buffered store's
		// place: a reader cannot see the 1 in between, which TSO would
		// also allow).
		name: "uncaptured",
		gs: []func(v *tsoVars){
			func(v *tsoVars) { store(&v.x, 1); v.x = 5; store(&v.r1, load(&v.x)) },
			func(v *tsoVars) { store(&v.r2, load(&v.x)) },
		},
		out:  func(v *tsoVars) string { return fmt.Sprint(v.r1, v.r2, v.x) },
		want: []string{"5 0 5", "5 5 5"},
	},
	{
		// More stores than a buffer holds (engine.MaxBuffered): the
		// ninth waits for the buffer to drain; a reader sees any prefix.
		name: "bound",
		gs: []func(v *tsoVars){
			func(v *tsoVars) {
				for i := 1; i <= engine.MaxBuffered+2; i++ {
					store(&v.x, i)
				}
			},
			func(v *tsoVars) { store(&v.r1, load(&v.x)) },
		},
		out: func(v *tsoVars) string { return fmt.Sprint(v.r1, v.x) },
		want: func() []string {
			var w []string
			for i := 0; i <= engine.MaxBuffered+2; i++ {
				w = append(w, fmt.Sprint(i, engine.MaxBuffered+2))
			}
			return w
		}(),
	},
}

func sortedKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// TestStoreBufferOutcomes: with store buffers, every exhaustive strategy
// reaches exactly the outcomes x86-TSO allows for each litmus test: the
// reorderings a store buffer makes (SB's both 0), and none it cannot
// (MP's flag without data, LB's both 1, 2+2W's both first). The DPORs
// reach what DFS reaches, with no wakeup sequence they could not follow.
func TestStoreBufferOutcomes(t *testing.T) {
	for _, p := range tsoPrograms {
		t.Run(p.name, func(t *testing.T) {
			want := map[string]bool{}
			for _, o := range p.want {
				want[o] = true
			}
			for _, s := range []struct {
				name string
				s    engine.Strategy
			}{{"sdpor", strategy.NewSourceDPOR()}, {"odpor", strategy.NewOptimalDPOR()}} {
				seen := map[string]bool{}
				res, _ := runAll(t, s.s, 200000, p.body(seen))
				for _, r := range res {
					if r.Bug != nil || r.Internal != "" || r.Truncated {
						t.Fatalf("%s: run ended with %v %q (truncated %v)", s.name, r.Bug, r.Internal, r.Truncated)
					}
				}
				if sortedKeys(seen) != sortedKeys(want) {
					t.Errorf("%s reaches {%s}, want {%s} (%d runs)", s.name, sortedKeys(seen), sortedKeys(want), len(res))
				}
				if d, ok := s.s.(*strategy.DPOR); ok {
					if d.Proven() == "" {
						t.Errorf("%s: no proof: %s", s.name, d.Stats())
					}
					if d.Optimal && d.WakeupMisses != 0 {
						t.Errorf("%s: %d wakeup misses: %s", s.name, d.WakeupMisses, d.Stats())
					}
				}
				t.Logf("%s: %d runs", s.name, len(res))
			}
		})
	}
}

// storeProgram runs one goroutine per entry of ops, each a sequence of
// racy accesses of group "m": "s" stores into the store buffer, "r"
// reads.
func storeProgram(ops ...string) func() {
	return func() {
		var x int
		var wg sync.WaitGroup
		for _, op := range ops {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for i, c := range op {
					if c == 's' {
						rt.RacySet(&x, i, "m")
					} else {
						rt.RacyRead("m")
					}
				}
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// TestStoreBufferDependence: optimal DPOR explores one run per class of
// the dependence of stores, commits and fences (DFS counts the classes),
// with no run blocked by its sleep set.
func TestStoreBufferDependence(t *testing.T) {
	for _, ops := range [][]string{
		{"s", "r"},
		{"s", "s"},
		{"sr", "sr"},
		{"ss", "r"},
		{"ssr", "s"},
	} {
		want := classes(t, storeProgram(ops...), false)
		o := strategy.NewOptimalDPOR()
		runAll(t, o, 100000, storeProgram(ops...))
		if o.Complete != len(want) || o.Blocked != 0 || o.WakeupMisses != 0 {
			t.Errorf("%v: optimal DPOR %s, want %d complete runs", ops, o.Stats(), len(want))
		}
	}
}

// TestStoreBufferEveryStrategy: every strategy runs the store-buffering
// litmus test with store buffers to the end of its budget or its
// exploration, with no internal error, reaching only outcomes x86-TSO
// allows; the exhaustive ones prove it.
func TestStoreBufferEveryStrategy(t *testing.T) {
	p := tsoPrograms[0] // SB
	allowed := map[string]bool{}
	for _, o := range p.want {
		allowed[o] = true
	}
	for _, name := range strategy.Names() {
		if name == "replay" {
			continue // follows a schedule
		}
		s, err := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		body := p.body(seen)
		runs := 0
		for run := 1; run <= 300 && s.Begin(run); run++ {
			r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
			s.End(r)
			runs++
			if r.Internal != "" || r.Bug != nil {
				t.Fatalf("%s, run %d: %v %s", name, run, r.Bug, r.Internal)
			}
		}
		for o := range seen {
			if !allowed[o] {
				t.Errorf("%s reaches %q, which x86-TSO forbids", name, o)
			}
		}
		t.Logf("%s: %d runs, outcomes {%s}", name, runs, sortedKeys(seen))
	}
}
