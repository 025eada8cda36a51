package strategy_test

import (
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// fig31 is seed-004 Fig. 3.1: T0 creates T1, T2, T3; T1: b) x=1, c) y=1;
// T2: d) z=1; T3: e) assert(x==y). Each of b..e is one step: a
// goroutine's first step (its start) runs its first statement, and c is a
// visible atomic store, so the steps are exactly those of the figure.
func fig31() {
	var x, y, z int32
	rt.Go(func() {
		atomic.StoreInt32(&x, 1)             // b, in T1's first step
		atomic.StoreInt32(rt.AtomicW(&y), 1) // c
	})
	rt.Go(func() {
		atomic.StoreInt32(&z, 1) // d
	})
	rt.Go(func() {
		if atomic.LoadInt32(&x) != atomic.LoadInt32(&y) { // e
			panic("assertion failed: x != y")
		}
	})
}

func distinct(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func TestFig31PreemptionBound1(t *testing.T) {
	d := strategy.NewBoundedDFS(false, 1)
	res, scheds := runAll(t, d, 1000, fig31)
	if len(res) != 11 || len(distinct(scheds)) != 11 {
		t.Fatalf("preemption bound 1: %d runs, %d distinct schedules, want 11: %q", len(res), len(distinct(scheds)), scheds)
	}
	if got := d.Proven(); got != "all schedules explored" {
		// Every schedule of Fig. 3.1 has at most one preemption.
		t.Fatalf("Proven() = %q", got)
	}
	bugs := 0
	for _, r := range res {
		if r.Bug != nil {
			bugs++
		}
	}
	if bugs != 3 { // b e, b d e, d b e: e runs between b and c
		t.Fatalf("%d failing schedules, want 3", bugs)
	}
}

func TestFig31PreemptionBound0(t *testing.T) {
	d := strategy.NewBoundedDFS(false, 0)
	res, _ := runAll(t, d, 1000, fig31)
	for _, r := range res {
		if r.Bug != nil {
			t.Fatalf("bound 0 found the bug, which needs a preemption")
		}
	}
	if got := d.Proven(); got != "all schedules with ≤ 0 preemptions explored" {
		t.Fatalf("Proven() = %q", got)
	}
}

func TestFig31DelayBound1(t *testing.T) {
	d := strategy.NewBoundedDFS(true, 1)
	res, scheds := runAll(t, d, 1000, fig31)
	if len(res) != 4 || len(distinct(scheds)) != 4 {
		t.Fatalf("delay bound 1: %d runs, want 4: %q", len(res), scheds)
	}
}

func TestDelayBound0IsOneSchedule(t *testing.T) {
	for name, body := range map[string]func(){"fig31": fig31, "readers3": readers(3), "lastzero3": lastzero(3)} {
		d := strategy.NewBoundedDFS(true, 0)
		res, _ := runAll(t, d, 1000, body)
		if len(res) != 1 {
			t.Errorf("%s: delay bound 0 explored %d schedules, want 1", name, len(res))
		}
	}
}

// countingRR records, on the default round-robin schedule, the scheduling
// points with two or more enabled goroutines.
type countingRR struct {
	dfs    *strategy.DFS
	points int
}

func (c *countingRR) Begin(run int) bool { return run == 1 && c.dfs.Begin(run) }
func (c *countingRR) Choose(p *engine.Point) int {
	gs := map[*engine.G]bool{}
	for _, ch := range p.Choices {
		if ch.G != nil && ch.Early == 0 {
			gs[ch.G] = true
		}
	}
	if len(gs) >= 2 {
		c.points++
	}
	return c.dfs.Choose(p)
}
func (c *countingRR) End(r *engine.Result) { c.dfs.End(r) }

func TestDelayBound1IsOnePlusPoints(t *testing.T) {
	for name, body := range map[string]func(){"fig31": fig31, "readers3": readers(3), "lastzero2": lastzero(2), "indexer2": indexer(2)} {
		c := &countingRR{dfs: strategy.NewDFS(0)}
		runAll(t, c, 10, body)
		d := strategy.NewBoundedDFS(true, 1)
		res, _ := runAll(t, d, 10000, body)
		if len(res) != 1+c.points {
			t.Errorf("%s: delay bound 1 explored %d schedules, want 1 + %d", name, len(res), c.points)
		}
	}
}

func TestIterativeCountsEachScheduleOnce(t *testing.T) {
	for _, delay := range []bool{false, true} {
		var it *strategy.Iterative
		if delay {
			it = strategy.NewIDB(-1)
		} else {
			it = strategy.NewIPB(-1)
		}
		_, scheds := runAll(t, it, 100000, readers(2))
		full, _ := runAll(t, strategy.NewDFS(0), 100000, readers(2))
		if it.Schedules() != len(full) {
			t.Errorf("delay=%v: counted %d schedules over passes %v, DFS has %d", delay, it.Schedules(), it.Counted(), len(full))
		}
		if len(distinct(scheds)) != len(full) {
			t.Errorf("delay=%v: %d distinct schedules, want %d", delay, len(distinct(scheds)), len(full))
		}
		if it.Proven() != "all schedules explored" {
			t.Errorf("delay=%v: Proven() = %q", delay, it.Proven())
		}
	}
	it := strategy.NewIPB(1)
	runAll(t, it, 100000, fig31Bad)
	if got := it.Proven(); got != "all schedules with ≤ 1 preemptions explored" {
		t.Errorf("IPB stopped at bound 1: Proven() = %q", got)
	}
	if it.Counted()[0] != 1 && it.Counted()[0] == 0 {
		t.Errorf("pass 0 counted nothing")
	}
}

// fig31Bad is seed-004 Fig. 3.2: as Fig. 3.1 but T2 = f) x=1, g) y=1.
func fig31Bad() {
	var x, y int32
	rt.Go(func() {
		atomic.StoreInt32(&x, 1)
		atomic.StoreInt32(rt.AtomicW(&y), 1)
	})
	rt.Go(func() {
		atomic.StoreInt32(&x, 1)
		atomic.StoreInt32(rt.AtomicW(&y), 1)
	})
	rt.Go(func() {
		if atomic.LoadInt32(&x) != atomic.LoadInt32(&y) {
			panic("assertion failed: x != y")
		}
	})
}

func TestFig32NeedsTwoDelaysOnePreemption(t *testing.T) {
	found := func(s engine.Strategy) bool {
		res, _ := runAll(t, s, 10000, fig31Bad)
		for _, r := range res {
			if r.Bug != nil {
				return true
			}
		}
		return false
	}
	if !found(strategy.NewBoundedDFS(false, 1)) {
		t.Error("preemption bound 1 missed the bug")
	}
	if found(strategy.NewBoundedDFS(true, 1)) {
		t.Error("delay bound 1 found the bug, which needs 2 delays")
	}
	if !found(strategy.NewBoundedDFS(true, 2)) {
		t.Error("delay bound 2 missed the bug")
	}
}
