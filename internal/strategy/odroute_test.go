package strategy_test

import (
	"fmt"
	"runtime"
	"testing"

	"heddle.dev/internal/strategy"
)

// odRouteCost has a coordinator route n late sequences of a unit whose
// path is depth levels deep, each covered by T at the reporter's
// deepest node (a sibling unit's leaf there), and returns the bytes
// Accept allocated and the sequences it counted covered.
func odRouteCost(t *testing.T, depth, n int) (alloc uint64, covered int) {
	t.Helper()
	step := func(s string) strategy.ODEvent { return strategy.ODEvent{T: s} }
	path := make([]strategy.ODLevel, depth)
	for i := range path {
		path[i] = strategy.ODLevel{Take: step(fmt.Sprintf("p%d", i))}
	}
	j := depth - 1
	od := strategy.NewODCoord()
	// A sibling at level j: T's node there gets the leaf y.
	sib := append(append([]strategy.ODLevel(nil), path[:j]...), strategy.ODLevel{Take: step("y")})
	od.Accept(strategy.Unit{Strategy: "odpor", OD: &strategy.ODFrag{Path: sib}})
	f := &strategy.ODFrag{Path: path}
	for i := 0; i < n; i++ {
		f.Late = append(f.Late, strategy.ODLate{Level: j, Seq: []strategy.ODEvent{step("y")}})
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	units, late, covered := od.Accept(strategy.Unit{Strategy: "odpor", OD: f})
	runtime.ReadMemStats(&m1)
	if len(units) != 0 || late != n {
		t.Fatalf("depth %d: %d units, %d late sequences, want 0 and %d", depth, len(units), late, n)
	}
	return m1.TotalAlloc - m0.TotalAlloc, covered
}

// TestODRouteCoveredCheap (issue 12): a late sequence that T covers near
// the reporter's node costs the coordinator what its way through T
// costs, not a copy of the reporter's path. On GoKer's Grpc3017 a unit
// 30,000 levels deep reports 10,000 late sequences, nearly all covered;
// routing each copied the path's levels and T nodes and looked every
// node up among the units' nodes: 20-30 s of the coordinator's time per
// report while the workers waited, so that two workers took up to six
// times one worker's time to the bug.
func TestODRouteCoveredCheap(t *testing.T) {
	const depth = 5000
	few, many := 10, 410
	a0, c0 := odRouteCost(t, depth, few)
	a1, c1 := odRouteCost(t, depth, many)
	if c0 != few || c1 != many {
		t.Fatalf("covered %d of %d and %d of %d: every sequence is covered by the leaf", c0, few, c1, many)
	}
	per := (int64(a1) - int64(a0)) / int64(many-few)
	t.Logf("depth %d: %d bytes for %d late sequences, %d for %d: %d bytes per sequence", depth, a0, few, a1, many, per)
	// A copy of the path is about 100 bytes per level.
	if per > depth {
		t.Errorf("routing a covered late sequence allocates %d bytes at depth %d: it copies the reporter's path", per, depth)
	}
}
