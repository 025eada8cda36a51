package rt_test

import (
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// spinHandoff: two goroutines hand a turn back and forth handoffs times by
// spinning on an atomic.
func spinHandoff(handoffs int) {
	var turn atomic.Int32
	done := rt.MakeChan[chan bool](0)
	rt.Go(func() {
		for i := 0; i < handoffs; i++ {
			for rt.AtomicR(&turn).Load() != 1 {
			}
			rt.AtomicW(&turn).Store(0)
		}
		rt.Send(done, true)
	})
	for i := 0; i < handoffs; i++ {
		for rt.AtomicR(&turn).Load() != 0 {
		}
		rt.AtomicW(&turn).Store(1)
	}
	rt.Recv(done)
}

// Spinning must cost a few steps per handoff, whatever the strategy: a
// strategy that prefers the spinner (PCT's priorities, DFS's first choice)
// used to let it spin until the fair scheduler took over, half a million
// steps per run.
func TestSpinHandoffSteps(t *testing.T) {
	const handoffs = 20
	for _, name := range []string{"random", "pct", "pos", "portfolio", "dfs"} {
		s, err := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		worst, total, runs := 0, 0, 0
		for run := 1; run <= 20 && s.Begin(run); run++ {
			res := engine.Run(engine.Config{}, s, func() { spinHandoff(handoffs) })
			s.End(res)
			if res.Bug != nil {
				t.Fatalf("%s run %d: %s: %s", name, run, res.Bug.Kind, res.Bug.Message)
			}
			worst = max(worst, res.Steps)
			total += res.Steps
			runs++
		}
		t.Logf("%s: %d runs, mean %d steps, worst %d, for %d handoffs", name, runs, total/runs, worst, 2*handoffs)
		if worst > 10*2*handoffs {
			t.Errorf("%s: a run took %d steps for %d handoffs, want at most 10 a handoff", name, worst, 2*handoffs)
		}
	}
}

// Go chooses uniformly among a select's ready cases: a thousand selects
// over two channels that are always ready take each of them, whatever
// the strategy. Exhaustive strategies first take the first ready case,
// and PCT or POS may take it every time; no report may need that.
func TestSelectTakesEveryReadyCase(t *testing.T) {
	for _, name := range []string{"random", "pct", "pos", "dfs"} {
		s, err := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		for run := 1; run <= 5 && s.Begin(run); run++ {
			var na, nb int
			res := engine.Run(engine.Config{}, s, func() {
				a, b := rt.MakeChan[chan int](1), rt.MakeChan[chan int](1)
				rt.Close(a)
				rt.Close(b)
				for i := 0; i < 1000; i++ {
					switch rt.Select(false, rt.RecvCase(a), rt.RecvCase(b)) {
					case 0:
						na++
					case 1:
						nb++
					}
				}
			})
			s.End(res)
			if res.Bug != nil {
				t.Fatalf("%s run %d: %s: %s", name, run, res.Bug.Kind, res.Bug.Message)
			}
			if na == 0 || nb == 0 {
				t.Fatalf("%s run %d: %d selects took a, %d took b", name, run, na, nb)
			}
		}
	}
}
