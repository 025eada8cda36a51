package strategy_test

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// twoLoops(n): the main goroutine and another each store n times into one
// variable: runs of about 2n scheduling points, a small copy of the
// shape of GoKer's Grpc3017 (a loop of 10,000 iterations, 30,000 points).
func twoLoops(n int) func(*outcome) {
	return func(o *outcome) {
		var x int32
		rt.Go(func() {
			for i := 0; i < n; i++ {
				atomic.StoreInt32(rt.AtomicW(&x), 1)
			}
		})
		for i := 0; i < n; i++ {
			atomic.StoreInt32(rt.AtomicW(&x), 2)
		}
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x)))
	}
}

var boundCfg = engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 50000}

// TestBoundedEstimateCountsRuns: the estimate of the runs of a unit of a
// pass of idb and ipb counts the schedules within the pass's bound. On
// twoLoops(40), after the first run of pass 1, the rest's estimate is
// the runs the rest makes (the product of the numbers of choices on a
// path of 80 points was the cap, 2^40); after the first run of pass 2
// within half of them (the branches below a delay interleave longer than
// the path). A fragment of a chain of nodes with a choice of cost 0 and
// one of cost 1 (pass 1 of idb on a run of 30,000 points) holds one run
// per node and one.
func TestBoundedEstimateCountsRuns(t *testing.T) {
	prog := twoLoops(40)
	body := func() { prog(&outcome{}) }
	for _, name := range []string{"idb", "ipb"} {
		for pass := 1; pass <= 2; pass++ {
			u := strategy.Unit{Strategy: name, Pass: pass, Frag: &strategy.Fragment{}}
			s, err := strategy.NewForUnit(strategy.Options{MaxBound: pass}, u)
			if err != nil {
				t.Fatal(err)
			}
			s.Begin(1)
			s.End(engine.Run(boundCfg, s, body))
			rest := s.(strategy.UnitState).Rest()
			if rest == nil {
				t.Fatalf("%s pass %d: one run", name, pass)
			}
			est := strategy.Estimate(*rest)
			runs := 0
			for run := 2; s.Begin(run); run++ {
				s.End(engine.Run(boundCfg, s, body))
				runs++
				if runs > 100000 {
					t.Fatalf("%s pass %d: more than %d runs", name, pass, runs)
				}
			}
			t.Logf("%s pass %d: the rest after the first run: %d runs, estimated %d", name, pass, runs, est)
			if pass == 1 && est != runs || est < runs/2 || est > runs {
				t.Errorf("%s pass %d: the rest after the first run made %d runs, estimated %d", name, pass, runs, est)
			}
		}
	}
	const depth = 30000
	f := &strategy.Fragment{Nodes: make([]strategy.FragNode, depth)}
	for k := range f.Nodes {
		f.Nodes[k] = strategy.FragNode{Order: []int{0, 1}, Costs: []int{0, 1}, N: 2}
	}
	if got := strategy.Estimate(strategy.Unit{Strategy: "idb", Pass: 1, Frag: f}); got != depth+1 {
		t.Errorf("a chain of %d nodes, pass 1: estimated %d runs, want %d", depth, got, depth+1)
	}
}

// boundedSplit explores prog with strategy name (ipb or idb) up to bound
// maxBound, split across workers workers through CoordinateWork with a
// budget of runs (0: none), each unit restored from its JSON and explored
// for at most slice runs at a time (fewer when asked to yield): the
// schedules of its runs (how many times each was run), the units and the
// runs made.
func boundedSplit(t *testing.T, name string, maxBound, workers, slice, budget int, prog func(*outcome)) (scheds map[string]int, units, runs int) {
	t.Helper()
	scheds = map[string]int{}
	var mu sync.Mutex // one engine run at a time
	body := func() { prog(&outcome{}) }
	root := strategy.RootUnit(name, 0)
	strategy.CoordinateWork(root, workers, budget, func(w strategy.Work) strategy.Outcome {
		mu.Lock()
		defer mu.Unlock()
		units++
		b, err := json.Marshal(w.Unit)
		if err != nil {
			t.Fatal(err)
		}
		var v strategy.Unit
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		s, err := strategy.NewForUnit(strategy.Options{MaxBound: maxBound}, v)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for run := 1; run <= slice && (w.Runs == 0 || run <= w.Runs); run++ {
			if closed(w.Kill) {
				return strategy.Outcome{}
			}
			if run > 1 && closed(w.Yield) {
				break
			}
			if !s.Begin(run) {
				break
			}
			r := engine.Run(boundCfg, s, body)
			s.End(r)
			scheds[schedule(r)]++
			n++
		}
		runs += n
		us := s.(strategy.UnitState)
		return strategy.Outcome{Rest: us.Rest(), Spawned: us.Spawned(), Runs: n}
	})
	return scheds, units, runs
}

// boundedSequential is the sequential exploration boundedSplit splits.
func boundedSequential(t *testing.T, name string, maxBound int, prog func(*outcome)) map[string]int {
	t.Helper()
	s, err := strategy.New(name, strategy.Options{MaxBound: maxBound})
	if err != nil {
		t.Fatal(err)
	}
	body := func() { prog(&outcome{}) }
	scheds := map[string]int{}
	for run := 1; s.Begin(run); run++ {
		r := engine.Run(boundCfg, s, body)
		s.End(r)
		scheds[schedule(r)]++
	}
	return scheds
}

// TestBoundedSplitEqualsSequential (issue 12): ipb and idb on twoLoops(n),
// whose runs are long and whose passes are combs (one choice costs
// nothing at each point), split across 2 and 3 workers, run exactly the
// schedules of the sequential exploration up to the bound, each as many
// times; the split by the bounded estimates gives units of many runs:
// before, the shallowest node's later choices went away (one run each
// in pass 1), and a unit was split into about as many units as runs.
func TestBoundedSplitEqualsSequential(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0
	for _, c := range []struct {
		n, bound int
	}{{30, 1}, {12, 2}} {
		prog := twoLoops(c.n)
		for _, name := range []string{"idb", "ipb"} {
			want := boundedSequential(t, name, c.bound, prog)
			seq := 0
			for _, k := range want {
				seq += k
			}
			for _, w := range []int{2, 3} {
				got, units, runs := boundedSplit(t, name, c.bound, w, 1<<30, 0, prog)
				t.Logf("twoLoops(%d), %s up to %d, %d workers: %d runs in %d units, sequential %d", c.n, name, c.bound, w, runs, units, seq)
				if runs != seq {
					t.Errorf("twoLoops(%d), %s up to %d, %d workers: %d runs, sequential %d", c.n, name, c.bound, w, runs, seq)
				}
				for s, k := range want {
					if got[s] != k {
						t.Errorf("twoLoops(%d), %s up to %d, %d workers: schedule %q run %d times, sequential %d", c.n, name, c.bound, w, s, got[s], k)
					}
				}
				for s, k := range got {
					if want[s] == 0 {
						t.Errorf("twoLoops(%d), %s up to %d, %d workers: schedule %q run %d times, not by the sequential exploration", c.n, name, c.bound, w, s, k)
					}
				}
			}
		}
	}
}

// TestBoundedSplitBudgetUnits (issue 12): idb on twoLoops(200) (pass 1:
// about 200 runs of 400 points) with a budget of 150 runs, split across 2
// workers as heddle test -parallel 2 does (an ordered split: the
// budget's first runs of the sequential order): the split runs exactly
// the sequential exploration's first 150 runs, in units of many runs.
// Before, the estimates of pass 1's units were the cap (2^40), every unit
// but the first was held as past the budget, the idle worker had the
// first one yield after each run, and its rest was split at its deepest
// node: a unit per run (GoKer's Grpc3017: 402 units of one run, each a
// worker process and a replay of a 30,000-node prefix, until the
// coordinator's memory bound).
func TestBoundedSplitBudgetUnits(t *testing.T) {
	defer func(y time.Duration, m int) { strategy.YieldAfter, strategy.ChunkMin = y, m }(strategy.YieldAfter, strategy.ChunkMin)
	strategy.YieldAfter, strategy.ChunkMin = 0, 20
	prog := twoLoops(200)
	const budget = 150
	s, err := strategy.New("idb", strategy.Options{MaxBound: 1})
	if err != nil {
		t.Fatal(err)
	}
	body := func() { prog(&outcome{}) }
	want := map[string]int{}
	for run := 1; run <= budget && s.Begin(run); run++ {
		r := engine.Run(boundCfg, s, body)
		s.End(r)
		want[schedule(r)]++
	}
	for _, w := range []int{2, 3} {
		got, units, runs := boundedSplit(t, "idb", 1, w, 1<<30, budget, prog)
		t.Logf("%d workers: %d runs made in %d units for a budget of %d", w, runs, units, budget)
		n := 0
		for s, k := range want {
			n += min(got[s], k)
			if got[s] < k {
				t.Errorf("%d workers: schedule %q run %d times, sequential %d", w, s, got[s], k)
			}
		}
		if runs > budget+budget/10 {
			t.Errorf("%d workers: %d runs made for a budget of %d", w, runs, budget)
		}
		if units > budget/10 {
			t.Errorf("%d workers: %d units for a budget of %d runs", w, units, budget)
		}
	}
}
