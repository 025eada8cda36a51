package strategy_test

import (
	"sync/atomic"
	"testing"

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
