package strategy_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// runRecorded runs body under s as explore would: with call sites
// recorded for a RecordNeeder.
func runRecorded(t *testing.T, s engine.Strategy, limit int, body func()) (runs int, bugs []*engine.Bug) {
	t.Helper()
	rec := false
	if rn, ok := s.(strategy.RecordNeeder); ok {
		rec = rn.NeedsRecord()
	}
	for run := 1; s.Begin(run); run++ {
		if run > limit {
			t.Fatalf("exploration did not end within %d runs", limit)
		}
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, Record: rec, StepLimit: 5000}, s, body)
		s.End(r)
		runs++
		if r.Bug != nil {
			bugs = append(bugs, r.Bug)
		}
	}
	return runs, bugs
}

// hapFig1 is seed-001 Fig. 1, the atomicity violation: T1 sets p then
// clears it; T2 checks p and then uses it.
func hapFig1() {
	var p int32
	rt.Go(func() {
		atomic.StoreInt32(rt.AtomicW(&p), 1) // e1
		atomic.StoreInt32(rt.AtomicW(&p), 0) // e4
	})
	rt.Go(func() {
		if atomic.LoadInt32(rt.AtomicR(&p)) != 0 { // e2
			if atomic.LoadInt32(rt.AtomicR(&p)) == 0 { // e3
				panic("nil dereference")
			}
		}
	})
}

func TestHaPSetFindsFig1(t *testing.T) {
	h := strategy.NewHaPSet(2)
	if !h.NeedsRecord() {
		t.Fatal("HaPSet does not ask for call sites")
	}
	_, bugs := runRecorded(t, h, 1000, hapFig1)
	if len(bugs) == 0 {
		t.Fatal("HaPSet-guided search missed the atomicity violation")
	}
	// At least the two pairs of the serial run e1 e2 e3 e4: e1→e2, e3→e4.
	if h.Coverage() < 2 {
		t.Errorf("coverage %d pairs", h.Coverage())
	}
	if h.Proven() != "" {
		t.Errorf("HaPSet claims a proof: %q", h.Proven())
	}
}

// sameStatements: n goroutines run the same critical section at the same
// call sites. Source DPOR explores all n! lock orders; once the pairs
// (lock after lock, in both goroutine orders) are covered, HaPSet stops.
func sameStatements(n int) func() {
	return func() {
		var mu sync.Mutex
		var x int32
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				atomic.AddInt32(rt.AtomicW(&x), 1)
				rt.MutexUnlock(&mu)
			})
		}
	}
}

func TestHaPSetPrunesCoveredPairs(t *testing.T) {
	h := strategy.NewHaPSet(2)
	hr, _ := runRecorded(t, h, 10000, sameStatements(4))
	s := strategy.NewSourceDPOR()
	sr, _ := runRecorded(t, s, 10000, sameStatements(4))
	if hr >= sr || h.Coverage() == 0 {
		t.Errorf("HaPSet %d runs (coverage %d), source DPOR %d runs", hr, h.Coverage(), sr)
	}
	t.Logf("HaPSet %d runs, %d pairs; source DPOR %d runs", hr, h.Coverage(), sr)
}

// TestHaPSetPreemptionBound: with bound 0 only non-preemptive schedules
// are explored, and the Fig. 1 bug needs a preemption.
func TestHaPSetPreemptionBound(t *testing.T) {
	h := strategy.NewHaPSet(0)
	_, bugs := runRecorded(t, h, 1000, hapFig1)
	if len(bugs) != 0 {
		t.Errorf("bound 0 found %d bugs; the violation needs a preemption", len(bugs))
	}
}
