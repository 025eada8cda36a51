package strategy_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// stopRace is GoKer's Grpc3017 in small: a loop arms an AfterFunc and
// stops it; if the timer fired first, the callback returns holding the
// mutex, and the loop's next Lock blocks forever. The bug needs the
// timer to fire before a Stop that the default schedule runs first.
func stopRace(n int) func() {
	return func() {
		var mu sync.Mutex
		abort := false
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			for i := 0; i < n; i++ {
				rt.MutexLock(&mu)
				tm := rt.AfterFunc(time.Nanosecond, func() {
					rt.MutexLock(&mu)
					if abort {
						return // the missing Unlock
					}
					rt.MutexUnlock(&mu)
				})
				rt.MutexUnlock(&mu)
				rt.MutexLock(&mu)
				if !rt.TimerStop(tm) {
					abort = true
				}
				rt.MutexUnlock(&mu)
			}
			rt.Close(done)
		})
		rt.Recv(done)
	}
}

// TestDPORFiresStoppedTimers: the firing of a timer that a Stop disabled
// races with the Stop, also in a run longer than the steps DPOR analyzes
// (the firing is not in the trace, and the run goes on past the analyzed
// steps).
func TestDPORFiresStoppedTimers(t *testing.T) {
	for _, c := range []struct {
		name     string
		n, steps int
	}{{"short", 3, 0}, {"cut", 50, 100}} {
		for _, optimal := range []bool{false, true} {
			d := strategy.NewSourceDPOR()
			if optimal {
				d = strategy.NewOptimalDPOR()
			}
			d.MaxSteps = c.steps
			found := false
			for run := 1; !found && d.Begin(run); run++ {
				if run > 100 {
					t.Fatalf("%s: no bug within 100 runs", c.name)
				}
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 100000}, d, stopRace(c.n))
				d.End(r)
				found = r.Bug != nil
			}
			if !found {
				t.Errorf("%s, optimal %v: DPOR ended after %s without the bug (a timer fired before Stop)", c.name, optimal, d.Stats())
			}
		}
	}
}
