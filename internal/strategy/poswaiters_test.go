package strategy_test

import (
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// posDrawWatch checks, at every point POS chooses at, what a lazy
// representation of a mutex's waiters as one choice would rely on: which
// waiters POS draws a new priority for.
type posDrawWatch struct {
	*strategy.POS
	t   *testing.T
	pos int // the trace entries looked at
	// Per point and mutex with waiters offered: fresh counts those
	// where the mutex was unlocked since the previous point (all drawn
	// again), kept those where it was not and none was drawn, partial
	// those where it was not and some were (goroutines new at the Lock).
	fresh, kept, partial int
	// prev is the waiters offered at the previous point, by goroutine
	// index, with their mutex; stale counts the waiters new at a point
	// that were not drawn again: a goroutine that ran without a point
	// keeps the priority of its last event when its next one has the same
	// kind (POS.Choose).
	prev  map[int]uintptr
	stale int
}

func (s *posDrawWatch) Choose(p *engine.Point) int {
	tr := p.Exec.Trace()
	unlocked := map[uintptr]bool{}
	for ; s.pos < len(tr); s.pos++ {
		if st := &tr[s.pos]; st.Kind == engine.OpUnlock {
			unlocked[st.Obj] = true
		}
	}
	i := s.POS.Choose(p)
	drawn := map[int]bool{}
	for _, j := range strategy.POSDrawn(s.POS) {
		drawn[j] = true
	}
	// By mutex: its waiters offered, and how many were drawn.
	offered, redrawn := map[uintptr]int{}, map[uintptr]int{}
	now := map[int]uintptr{}
	for j := range p.Choices {
		c := &p.Choices[j]
		if c.G == nil {
			continue
		}
		kind, obj, _ := c.PendingObj()
		if kind != engine.OpLock {
			continue
		}
		m := uintptr(obj)
		offered[m]++
		if drawn[j] {
			redrawn[m]++
		}
		gi := c.G.Index
		now[gi] = m
		if unlocked[m] {
			continue
		}
		was, ok := s.prev[gi]
		switch {
		case drawn[j] && ok && was == m:
			s.t.Errorf("step %d: goroutine %d, waiting on a mutex not unlocked since the last point, where it waited already, drawn again", p.Step, gi)
		case !drawn[j] && !(ok && was == m):
			s.stale++
		}
	}
	s.prev = now
	for m, n := range offered {
		switch {
		case unlocked[m]:
			// Every waiter of a mutex unlocked since the last point
			// races with the Unlock: all are drawn again.
			if redrawn[m] != n {
				s.t.Errorf("step %d: %d of the %d waiters of a mutex unlocked since the last point drawn again", p.Step, redrawn[m], n)
			}
			s.fresh++
		case redrawn[m] == 0:
			s.kept++
		default:
			// Some drawn, some kept: goroutines that arrived at the
			// Lock since the last point (new events) beside waiters
			// that keep theirs.
			s.partial++
		}
	}
	return i
}

// TestPOSWaitersDrawnTogether: with POS, the waiters of a mutex offered at
// a point are all given new priorities when the mutex was unlocked since
// the previous point (each one's Lock races with the Unlock), and keep
// them otherwise; of the goroutines new at the Lock, some are drawn and
// some keep the priority of their previous event, of the same kind, which
// they ran without a point. This is what a
// mutex's waiters kept as one choice would have to reproduce exactly
// (docs/benchmarks.md, "A mutex's waiters as one choice"); the test
// also checks that the runs have points of each kind, so that a lazy
// representation meets all three.
func TestPOSWaitersDrawnTogether(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		pos := strategy.NewPOS(seed)
		strategy.SetPOSTrackDraws(pos, true)
		w := &posDrawWatch{POS: pos, t: t}
		for run := 1; run <= 20; run++ {
			w.Begin(run)
			w.pos, w.prev = 0, nil
			r := engine.Run(engine.Config{Trace: true, StepLimit: 1 << 16}, w, lockerShape(12))
			if r.Bug != nil || r.Internal != "" {
				t.Fatalf("seed %d run %d: unexpected end: %v %s", seed, run, r.Bug, r.Internal)
			}
			w.End(r)
		}
		if w.fresh == 0 || w.kept == 0 || w.partial == 0 {
			t.Errorf("seed %d: points with waiters all drawn again %d, all kept %d, some of each %d: want each", seed, w.fresh, w.kept, w.partial)
		}
		t.Logf("seed %d: waiters all drawn again at %d points, all kept at %d, some of each at %d; new waiters with an old priority: %d", seed, w.fresh, w.kept, w.partial, w.stale)
	}
}
