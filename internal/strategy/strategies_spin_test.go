package strategy_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// spinWait terminates under fair scheduling only: the waiter spins on an
// atomic flag with Gosched until the setter sets it.
func spinWait() {
	var flag int32
	rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&flag), 1) })
	for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
		rt.Gosched()
	}
}

func TestSpinningGoroutinesAreDeprioritized(t *testing.T) {
	for _, s := range []engine.Strategy{strategy.NewDFS(0), strategy.NewIPB(-1), strategy.NewIDB(-1), strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		res, _ := runAll(t, s, 10000, spinWait)
		for _, r := range res {
			if r.Bug != nil {
				t.Errorf("%T: %v", s, r.Bug.Message)
			}
		}
		if p, ok := s.(strategy.Prover); ok && p.Proven() == "" {
			t.Errorf("%T did not finish", s)
		}
	}
}

// TestContextErrPollingReachesDeadline: a goroutine that polls ctx.Err()
// until its deadline spins (the polls make no progress), so virtual time
// moves on and the deadline fires; a cancel from another goroutine may
// also end the loop. No strategy exceeds the step bound. (Each poll moves
// the clock by engine.PollTime; the deadline is within MaxStarve, so it
// may also fire early.)
func TestContextErrPollingReachesDeadline(t *testing.T) {
	body := func() {
		ctx, cancel := rt.WithTimeout(context.Background(), 50*time.Microsecond)
		rt.Go(func() {
			for ctx.Err() == nil {
			}
		})
		for ctx.Err() == nil {
		}
		cancel()
	}
	for _, s := range []engine.Strategy{strategy.NewDFS(0), strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		res, _ := runAll(t, s, 10000, body)
		for _, r := range res {
			if r.Bug != nil {
				t.Errorf("%T: %v", s, r.Bug.Message)
			}
		}
		if p, ok := s.(strategy.Prover); ok && p.Proven() == "" {
			t.Errorf("%T did not finish", s)
		}
		t.Logf("%T: %d runs", s, len(res))
	}
}
