package rt_test

import (
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
