package strategy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// splitCount is a split exploration counted: its runs, the complete runs
// whose class a run before had (explored twice: by two units, or twice in
// one), the sleep-set blocked runs, and the units.
type splitCount struct {
	runs, classes, twice, blocked int
	units, maxUnitRuns            int
	st                            strategy.CoordStats
	states                        map[string]bool
}

// countSplit explores prog's root unit for strategy name (sdpor, odpor) on
// workers workers through strategy.Coordinate, units of at most slice runs
// (as parallelRun: one engine run at a time, each unit restored from its
// JSON), and counts the duplicated work.
func countSplit(t testing.TB, name string, workers, slice int, prog func()) splitCount {
	t.Helper()
	var mu sync.Mutex
	c := splitCount{states: map[string]bool{}}
	finished, st := strategy.Coordinate(strategy.RootUnit(name, 0), workers, func(u strategy.Unit, yield <-chan struct{}) strategy.Outcome {
		mu.Lock()
		defer mu.Unlock()
		c.units++
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var v strategy.Unit
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		s, err := strategy.NewForUnit(strategy.Options{}, v)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := s.(*strategy.DPOR)
		cc := strategy.NewClassCounter(s)
		n := 0
		for run := 1; run <= slice; run++ {
			if run > 1 && closed(yield) {
				break
			}
			if !cc.Begin(run) {
				break
			}
			blocked := 0
			if d != nil {
				blocked = d.Blocked
			}
			cc.End(engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, cc, prog))
			c.runs++
			n++
			if d != nil && d.Blocked > blocked {
				c.blocked++
				continue
			}
			if c.states[cc.Last] {
				c.twice++
			}
			c.states[cc.Last] = true
		}
		if n > c.maxUnitRuns {
			c.maxUnitRuns = n
		}
		us := s.(strategy.UnitState)
		return strategy.Outcome{Rest: us.Rest(), Spawned: us.Spawned()}
	})
	if !finished {
		t.Errorf("%s on %d workers: not every unit finished", name, workers)
	}
	c.classes, c.st = len(c.states), st
	return c
}

// sequentialClasses explores prog with s and returns its complete runs'
// classes and its runs.
func sequentialClasses(s engine.Strategy, prog func()) (map[string]bool, int) {
	cc := strategy.NewClassCounter(s)
	classes := map[string]bool{}
	runs := 0
	for run := 1; cc.Begin(run); run++ {
		cc.End(engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, cc, prog))
		classes[cc.Last] = true
		runs++
	}
	return classes, runs
}

// TestSplitDuplicationFamilies: source and optimal DPOR split across
// workers explore every class of the sequential exploration of the DPOR
// families (no class lost), and it logs the work duplicated: runs beyond
// the sequential exploration's, complete runs whose class another run
// had, sleep-set blocked runs, units. With HEDDLE_SPLITDUP=1, larger
// members and 2, 8, 32 and 128 workers (docs/benchmarks.md, "Parallel
// DPOR: duplicated work on the families"); else a small one.
func TestSplitDuplicationFamilies(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0 // a yield as soon as a worker is idle
	type fam struct {
		name string
		prog func()
	}
	fams := []fam{{"readers-4", readers(4)}, {"lastzero-4", lastzero(4)}}
	workers := []int{2, 8}
	slice := 8
	if os.Getenv("HEDDLE_SPLITDUP") != "" {
		fams = []fam{{"readers-8", readers(8)}, {"lastzero-7", lastzero(7)}, {"indexer-12", indexer(12)}}
		workers = []int{2, 8, 32, 128}
		slice = 16
	}
	for _, f := range fams {
		for _, name := range []string{"sdpor", "odpor"} {
			var seq *strategy.DPOR
			if name == "sdpor" {
				seq = strategy.NewSourceDPOR()
			} else {
				seq = strategy.NewOptimalDPOR()
			}
			want, seqRuns := sequentialClasses(seq, f.prog)
			for _, w := range workers {
				c := countSplit(t, name, w, slice, f.prog)
				lost := 0
				for k := range want {
					if !c.states[k] {
						lost++
					}
				}
				if lost > 0 || c.classes != len(want) {
					t.Errorf("%s %s on %d workers: %d classes, sequential %d, %d of them lost", f.name, name, w, c.classes, len(want), lost)
				}
				t.Logf("%s %s workers %d: runs %d (sequential %d, +%d), classes %d, explored twice %d, sleep-set blocked %d, units %d (at most %d runs), %v",
					f.name, name, w, c.runs, seqRuns, c.runs-seqRuns, c.classes, c.twice, c.blocked, c.units, c.maxUnitRuns, fmt.Sprint(c.st))
			}
		}
	}
}
