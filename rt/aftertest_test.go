package rt_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// lostSignals is GoKer's Kubernetes58107 in small: the test returns at
// once, a goroutine then sends n signals that move no clock, and a worker
// that waits only after the last of them leaks. The non-preemptive
// schedule (the first one IDB tries) lets the signaller finish first.
func lostSignals(n int) func() {
	return func() {
		c := sync.NewCond(&sync.Mutex{})
		rt.Go(func() {
			rt.Go(func() {
				rt.LockerLock(c.L)
				rt.CondWait(c)
				rt.LockerUnlock(c.L)
			})
			for i := 0; i < n; i++ {
				rt.CondSignal(c)
			}
		})
	}
}

// TestLongWorkAfterTheTest: goroutines left by the test run on, as long
// as they do not move the clock, so a leak that forms 50,000 steps after
// the test returned is found (with a fixed 10,000-step window it was not).
func TestLongWorkAfterTheTest(t *testing.T) {
	s := strategy.NewIDB(0)
	s.Begin(1)
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, lostSignals(50000))
	s.End(res)
	if res.Bug == nil || res.Bug.Kind != engine.KindLeak {
		t.Fatalf("got %v after %d steps, want the waiter's leak", res.Bug, res.Steps)
	}
	if res.Steps < 50000 {
		t.Errorf("the leak was reported after %d steps, before the signals ended", res.Steps)
	}
}

// TestPollerAfterTheTestIsCutShort: a goroutine left polling forever moves
// the clock at every poll, so the run ends a few thousand steps after the
// test returned, far below the step bound, and reports the goroutine that
// stayed blocked beside it.
func TestPollerAfterTheTestIsCutShort(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, func() {
		stop := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			for {
				if rt.Select(true, rt.RecvCase(stop)) == 0 {
					return
				}
				rt.Gosched()
			}
		})
		rt.Go(func() { rt.Send(rt.MakeChan[chan int](0), 1) })
	})
	s.End(res)
	if res.Bug == nil || res.Bug.Kind != engine.KindLeak || len(res.Bug.Blocked) != 1 || res.Bug.Blocked[0].ID != "g0.2" {
		t.Fatalf("got %v, want a leak of g0.2", res.Bug)
	}
	if !res.Truncated {
		t.Errorf("the run was not marked cut short")
	}
	// 5 ms of polls at 1 µs each, twice that for the fair phase and some
	// slack: far below the default bound of 1,000,000.
	if res.Steps > 40000 {
		t.Errorf("the run took %d steps after a poller was left behind", res.Steps)
	}
}
