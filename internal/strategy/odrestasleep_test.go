package strategy_test

import (
	"encoding/json"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestODRestDropsAsleepChild (issue 12): the rest of an optimal-DPOR
// unit hands out no wakeup child whose step runs asleep at its node,
// which the sequential exploration drops (backtrack, runsAsleep): on
// programs that sequential optimal DPOR explores with no sleep-set
// blocked run, the rest of the root unit after each of its runs, its
// units dispatched by the coordinator, makes a first run that is not
// blocked in every unit. Before, odRest handed such children out: on
// closeWakesSelectsNoTimer 58 of the 645 units of those rests made a
// blocked first run (closeWakesSelects, 2,892 runs, is too long for the
// quadratic number of runs here).
func TestODRestDropsAsleepChild(t *testing.T) {
	cfg := engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}
	for _, p := range []struct {
		name string
		prog func(*outcome)
	}{{"sendOrTimer", sendOrTimer}, {"closeWakesSelectsNoTimer", closeWakesSelectsNoTimer}} {
		body := func() { p.prog(&outcome{}) }
		seq := strategy.NewOptimalDPOR()
		runs := 0
		for run := 1; seq.Begin(run); run++ {
			seq.End(engine.Run(cfg, seq, body))
			runs++
		}
		if seq.Blocked > 0 {
			t.Fatalf("%s: the sequential exploration made %d blocked runs", p.name, seq.Blocked)
		}
		units, blocked := 0, 0
		for cut := 1; cut < runs; cut++ {
			s, err := strategy.NewForUnit(strategy.Options{}, strategy.RootUnit("odpor", 0))
			if err != nil {
				t.Fatal(err)
			}
			for run := 1; run <= cut && s.Begin(run); run++ {
				s.End(engine.Run(cfg, s, body))
			}
			b, err := json.Marshal(s.(strategy.UnitState).Spawned())
			if err != nil {
				t.Fatal(err)
			}
			var sp []strategy.Unit
			if err := json.Unmarshal(b, &sp); err != nil {
				t.Fatal(err)
			}
			od := strategy.NewODCoord()
			for _, x := range sp {
				us, _, _ := od.Accept(x)
				for _, u := range us {
					v, err := strategy.NewForUnit(strategy.Options{}, od.Dispatch(u))
					if err != nil {
						t.Fatal(err)
					}
					d := v.(*strategy.DPOR)
					if !d.Begin(1) {
						continue
					}
					d.End(engine.Run(cfg, d, body))
					units++
					if d.Blocked > 0 {
						blocked++
						t.Errorf("%s: the rest after run %d: a unit's first run is sleep-set blocked", p.name, cut)
					}
				}
			}
		}
		t.Logf("%s: %d runs; %d units of the rests after each run, %d with a blocked first run", p.name, runs, units, blocked)
	}
}
