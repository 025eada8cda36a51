package rt_test

import (
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// A run past its deadline is ended within a few dozen steps, not a few
// thousand: a step of a run with a thousand goroutines can take a
// millisecond on a loaded machine, and ants' TestAntsPoolWaitToGetWorker
// took 4.5s of a 1s budget when the clock was read every 4096 steps.
func TestDeadlineEndsRunWithinFewSteps(t *testing.T) {
	res := engine.Run(engine.Config{Deadline: time.Now().Add(-time.Second)}, first{}, func() {
		for i := 0; i < 10000; i++ {
			rt.Gosched()
		}
	})
	if !res.OverTime {
		t.Fatalf("OverTime %v, bug %v: want the run ended at its deadline", res.OverTime, res.Bug)
	}
	if res.Steps > 100 {
		t.Fatalf("the run was ended after %d steps, past its deadline from the start", res.Steps)
	}
}

// A run past its deadline is finished, fairly, within its grace, rather
// than ended in the middle: a package variable the test sets and resets
// (ants' stopLongRunningFunc) is reset, as by every whole run, for the
// tests that come after it. Past the grace too, it is ended.
func TestDeadlineGraceFinishesTheRun(t *testing.T) {
	var flag int32
	body := func() {
		atomic.StoreInt32(rt.AtomicW(&flag), 1)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			for i := 0; i < 1000; i++ {
				rt.Gosched()
			}
			rt.Close(done)
		})
		for i := 0; i < 1000; i++ {
			rt.Gosched()
		}
		rt.Recv(done)
		atomic.StoreInt32(rt.AtomicW(&flag), 0)
	}
	res := engine.Run(engine.Config{Deadline: time.Now().Add(-time.Second), Grace: time.Hour}, first{}, body)
	if !res.OverTime || atomic.LoadInt32(&flag) != 0 {
		t.Fatalf("OverTime %v, flag %d: want the run past its deadline finished, the flag reset", res.OverTime, atomic.LoadInt32(&flag))
	}
	res = engine.Run(engine.Config{Deadline: time.Now().Add(-time.Second)}, first{}, body)
	if !res.OverTime || res.Steps > 100 {
		t.Fatalf("OverTime %v after %d steps: want the run ended at its deadline, with no grace", res.OverTime, res.Steps)
	}
}
