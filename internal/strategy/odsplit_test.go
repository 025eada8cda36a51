package strategy_test

import (
	"fmt"
	"testing"
	"time"

	"heddle.dev/internal/strategy"
)

// TestODSplitDefersLateSequences (issue 12): a late sequence of a split
// optimal DPOR that ends below the node of a unit being explored waits
// until that unit, asked for its rest at once, has handed it back, and
// then goes into the wakeup tree of the unit of that rest it ends in, as
// the sequential insert puts it into a wakeup tree not explored yet.
// Before, it became a unit of its own that slept nothing the running
// unit explored: on readers(8), units of 3 and 8 runs on 2 and 3 workers
// made 275 to 439 runs for the sequential 256 (readers(15) with heddle
// -parallel 2: 49,692 for 32,768); now 256 to 262.
func TestODSplitDefersLateSequences(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0
	for _, n := range []int{8} {
		prog := readersLogged(n)
		want := exploreUpTo(strategy.NewOptimalDPOR(), 10000, prog)
		for _, w := range []int{2, 3} {
			for _, slice := range []int{3, 8} {
				got, finished, _, _ := parallelRun(t, strategy.RootUnit("odpor", 0), w, slice, prog)
				if !finished {
					t.Errorf("readers(%d), %d workers: not finished", n, w)
				}
				k := fmt.Sprintf("odpor on %d workers, slices of %d runs", w, slice)
				sameSet(t, fmt.Sprintf("readers(%d)", n), "terminal states", k, want.states, got.states)
				t.Logf("readers(%d), %s: %d runs, sequential %d", n, k, got.runs, want.runs)
				if got.runs > want.runs+want.runs/16 {
					t.Errorf("readers(%d), %s: %d runs, sequential %d", n, k, got.runs, want.runs)
				}
			}
		}
	}
}
