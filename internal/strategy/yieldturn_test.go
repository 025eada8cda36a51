package strategy_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// semaphoreSpin is x/sync's semaphore TestAllocCancelDoesntStarve in
// small: the test goroutine waits for another to block, in a loop that
// takes and releases a mutex (TryAcquire, Release: progress, each time)
// and calls Gosched. Natively the other goroutine runs at the Gosched;
// a strategy that keeps running the goroutine that yields (a
// non-preemptive round-robin that starts at the goroutine that ran last)
// runs the loop until the fair scheduler takes over, at half the step
// bound.
func semaphoreSpin() {
	var mu sync.Mutex
	waiters := 0
	blocked := make(chan struct{})
	rt.Go(func() {
		rt.MutexLock(&mu)
		waiters++
		rt.MutexUnlock(&mu)
		rt.Recv(blocked) // blocks: nobody sends
	})
	for {
		rt.MutexLock(&mu)
		w := waiters
		rt.MutexUnlock(&mu)
		if w > 0 {
			break
		}
		rt.Gosched()
	}
	rt.Close(blocked)
}

// TestYieldPassesTheTurn: under the exhaustive strategies, a Gosched lets
// the other goroutines go first for free (no preemption, no delay), as in
// delay bounding's deterministic scheduler, where a task that yields
// hands the turn to the next one. Before, the first run of IDB, IPB and
// DFS spun until the fair scheduler took over at half the step bound
// (x/sync's semaphore test: 500,028 steps a run of IDB, 186× native),
// and so did the first run of source and optimal DPOR (a conformance
// program whose loop counts a Cond's waiters under its mutex).
func TestYieldPassesTheTurn(t *testing.T) {
	for _, mk := range []func() engine.Strategy{
		func() engine.Strategy { return strategy.NewIDB(-1) },
		func() engine.Strategy { return strategy.NewIPB(-1) },
		func() engine.Strategy { return strategy.NewDFS(0) },
		func() engine.Strategy { return strategy.NewSourceDPOR() },
		func() engine.Strategy { return strategy.NewOptimalDPOR() },
	} {
		s := mk()
		// The first run: bound 0 for IDB and IPB, the round-robin
		// schedule for DFS.
		s.Begin(1)
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 20000, Trace: true}, s, semaphoreSpin) // DPOR reads the trace
		s.End(r)
		if r.Bug != nil {
			t.Errorf("%T: %v", s, r.Bug.Message)
		}
		if r.Steps > 100 || r.Truncated {
			t.Errorf("%T: the first run took %d steps (truncated %v): the goroutine that yields kept the turn", s, r.Steps, r.Truncated)
		}
	}
	// Every run of IDB ends well within the bound: each delay can only
	// skip the waiting goroutine once more.
	res, _ := runAll(t, strategy.NewIDB(2), 1000, semaphoreSpin)
	for i, r := range res {
		if r.Steps > 200 || r.Truncated {
			t.Errorf("IDB run %d: %d steps (truncated %v)", i+1, r.Steps, r.Truncated)
		}
	}
}

// BenchmarkYieldSpin is IDB's runs of semaphoreSpin, with a step bound of
// 100,000: steps/op is the length of a run (before the fix, every run
// went to the fair scheduler at half the bound).
func BenchmarkYieldSpin(b *testing.B) {
	s := strategy.NewIDB(-1)
	steps := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !s.Begin(i + 1) {
			s = strategy.NewIDB(-1)
			s.Begin(1)
		}
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 100000}, s, semaphoreSpin)
		s.End(r)
		steps += r.Steps
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}
