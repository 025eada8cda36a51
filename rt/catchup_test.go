package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A loop that catches up with the clock, moving its target on by a step
// at each read (gocron's `for next.Before(s.now()) { next = j.next(next)
// }`), ends as natively, however far behind it starts: reads of the clock
// in a row move it more than a plain read does (busy-waiting), but never
// more than engine.MaxReadStep, so it cannot outrun a step longer than
// that. With reads moving the clock by up to a second, the loops below
// never ended (gocron's TestScheduler_Update held heddle for go test's ten
// minutes).
func TestClockCatchUpLoopEnds(t *testing.T) {
	for _, c := range []struct {
		behind, step time.Duration
	}{
		{2 * time.Hour, 500 * time.Millisecond},
		{time.Minute, 2 * time.Millisecond},
	} {
		const guard = 10_000_000 // iterations: far more than either loop needs
		n := 0
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{StepLimit: 1000}, s, func() {
			next := rt.Now().Add(-c.behind)
			for next.Before(rt.Now()) && n < guard {
				next = next.Add(c.step)
				n++
			}
		})
		if res.Bug != nil || res.Internal != "" {
			t.Fatalf("behind %v, step %v: %v %s", c.behind, c.step, res.Bug, res.Internal)
		}
		// Each read moves the clock by at most MaxReadStep, so the loop
		// gains at least step-MaxReadStep on it per iteration.
		if max := int(c.behind/(c.step-engine.MaxReadStep)) + 1; n > max {
			t.Errorf("behind %v, step %v: %d iterations, want at most %d (the clock outran the loop)", c.behind, c.step, n, max)
		}
	}
}
