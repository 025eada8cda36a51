package strategy_test

import (
	"fmt"
	"testing"
	"time"

	"heddle.dev/internal/strategy"
)

// TestODSplitRunsCoverLate: optimal DPOR split across workers on the
// programs whose split explored classes twice (the select models and
// readers, docs/benchmarks.md "Optimal DPOR's classes explored twice"):
// every class of the sequential exploration, and classes explored twice
// at most maxTwice. A late sequence routed into the subtree of a unit
// that has finished became a new unit even when one of that unit's runs
// had the sequence as a prefix (up to equivalence): T knew the units'
// paths and starting wakeup trees, not their runs. The units now report
// their complete runs (ODFrag.Ran) and the coordinator drops a late
// sequence one covers. Before, with the same units (units of 1 run, a
// yield as soon as a worker is idle), selectSelfPair explored 220 of its
// 748 classes twice on 2 workers and closeWakesSelectsNoTimer 40 of 160.
func TestODSplitRunsCoverLate(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0
	for _, c := range []struct {
		name     string
		prog     func()
		maxTwice int
	}{
		{"readers-6", readers(6), 0},
		{"closeWakesSelectsNoTimer", func() { closeWakesSelectsNoTimer(&outcome{}) }, 4},
		{"selectSelfPair", func() { selectSelfPair(&outcome{}) }, 20},
	} {
		want, _ := sequentialClasses(strategy.NewOptimalDPOR(), c.prog)
		for _, w := range []int{2, 3, 8} {
			for _, slice := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/w%d/s%d", c.name, w, slice), func(t *testing.T) {
					got := countSplit(t, "odpor", w, slice, c.prog)
					lost := 0
					for k := range want {
						if !got.states[k] {
							lost++
						}
					}
					if lost > 0 || got.classes != len(want) {
						t.Errorf("%d classes, sequential %d, %d of them lost", got.classes, len(want), lost)
					}
					if got.twice > c.maxTwice {
						t.Errorf("%d classes explored twice, want at most %d (%d runs, %d units)", got.twice, c.maxTwice, got.runs, got.units)
					}
					t.Logf("runs %d, classes %d, twice %d, blocked %d, units %d, %v", got.runs, got.classes, got.twice, got.blocked, got.units, got.st)
				})
			}
		}
	}
}
