package strategy_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestPOSSimpleStepsSameSchedules runs every corpus program under POS
// with its shortcut for simple steps (a step looked at without building
// its event) and without it: each seed must take the same schedule, run
// after run.
func TestPOSSimpleStepsSameSchedules(t *testing.T) {
	defer strategy.SetPOSFast(strategy.SetPOSFast(true))
	progs := corpus()
	seeds, runs := int64(2), 4
	if testing.Short() {
		seeds, runs = 1, 2
	}
	steps := 0
	for _, p := range progs {
		body := func() { p.body(&outcome{}) }
		for seed := int64(1); seed <= seeds; seed++ {
			var got [2][]string
			for k, fast := range []bool{true, false} {
				strategy.SetPOSFast(fast)
				s := strategy.NewPOS(seed)
				for run := 1; run <= runs && s.Begin(run); run++ {
					r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
					s.End(r)
					got[k] = append(got[k], schedule(r))
					if fast {
						steps += r.Steps
					}
				}
			}
			for i := range got[0] {
				if i >= len(got[1]) || got[0][i] != got[1][i] {
					t.Fatalf("%s seed %d run %d: with the shortcut\n%s\nwithout\n%s", p.name, seed, i+1, got[0][i], got[1][min(i, len(got[1])-1)])
				}
			}
		}
	}
	t.Logf("%d programs, %d steps compared", len(progs), steps)
}
