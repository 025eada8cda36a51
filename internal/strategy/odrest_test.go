package strategy_test

import (
	"encoding/json"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// writers(n): n goroutines each write x once. Optimal DPOR's first run
// has n+ steps, and a race of each write with the next one puts a wakeup
// child at the node of each: the rest of a unit after that run has a
// pending child at nearly every level of a deep stack.
func writers(n int) func() {
	return func() {
		var x int32
		for g := 0; g < n; g++ {
			g := g
			rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x), int32(g)) })
		}
	}
}

// odRestCost explores the root unit of writers(n) for one run and
// returns what hands its rest to the coordinator costs: the bytes of the
// units it spawns as JSON (what the worker builds and sends), the bytes
// the coordinator allocates accepting them, and the units to explore.
func odRestCost(t *testing.T, n int) (spawned int, accepted uint64, units []strategy.Unit, od *strategy.ODCoord) {
	t.Helper()
	s, err := strategy.NewForUnit(strategy.Options{}, strategy.RootUnit("odpor", 0))
	if err != nil {
		t.Fatal(err)
	}
	cc := strategy.NewClassCounter(s)
	if !cc.Begin(1) {
		t.Fatal("no first run")
	}
	r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 50000}, cc, writers(n))
	cc.End(r)
	sp := s.(strategy.UnitState).Spawned()
	b, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	var in []strategy.Unit
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	od = strategy.NewODCoord()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for _, s := range in {
		us, _, _ := od.Accept(s)
		units = append(units, us...)
	}
	runtime.ReadMemStats(&m1)
	return len(b), m1.TotalAlloc - m0.TotalAlloc, units, od
}

// TestODRestSharesPath (issue 12): the rest of an optimal-DPOR unit, the
// wakeup children not started on its stack, shares the path down to them
// in the worker's report and in the coordinator: its size is linear in
// the depth of the run. Before, it was one unit per child each with a
// copy of the whole path, quadratic (a 40,199-step GoKer Hugo3251 stack:
// the worker went from 1.4 to 4.5 GB, and Grpc3017's ran out of memory).
// Each unit, once dispatched, still holds its whole path.
func TestODRestSharesPath(t *testing.T) {
	small, big := 40, 160 // 4 times as deep
	sb, sa, su, _ := odRestCost(t, small)
	bb, ba, bu, od := odRestCost(t, big)
	t.Logf("writers(%d): %d units, %d bytes spawned, %d bytes accepted; writers(%d): %d units, %d bytes spawned, %d bytes accepted", small, len(su), sb, sa, big, len(bu), bb, ba)
	if len(bu) < big/2 {
		t.Fatalf("writers(%d): %d units in the rest, want at least %d", big, len(bu), big/2)
	}
	// Linear: 4 times as deep, about 4 times the bytes (quadratic: 16).
	if bb > 7*sb {
		t.Errorf("rest as JSON: %d bytes at depth %d, %d at depth %d: more than linear", sb, small, bb, big)
	}
	if ba > 7*sa {
		t.Errorf("coordinator: %d bytes allocated accepting the rest at depth %d, %d at depth %d: more than linear", sa, small, ba, big)
	}
	// A unit dispatched holds its whole path: the shared one down to its
	// level, then its own step.
	deepest := 0
	for _, u := range bu {
		d := od.Dispatch(u)
		if d.OD == nil || len(d.OD.Path) == 0 {
			t.Fatalf("unit dispatched without its path: %+v", d.OD)
		}
		deepest = max(deepest, len(d.OD.Path))
	}
	if deepest < big {
		t.Errorf("deepest unit dispatched at depth %d, want at least %d", deepest, big)
	}
}
