package rt_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A goroutine still running when its run ends is unwound by Goexit, which
// runs its deferred calls: the ones that never block (a ticker's Stop, an
// atomic store of a done flag) must take effect, as in Go, so that a later
// run that waits for the flag (ants' Reboot waits for its purge goroutine's
// purgeDone) does not wait forever. A context made by the run and kept in a
// package variable must be cancelled for real when a later run calls its
// cancel function, and that run must see its Done channel closed.
func TestStateLeftByARunStaysConsistent(t *testing.T) {
	var done int32
	var ctx context.Context
	var cancel context.CancelFunc
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		ctx, cancel = rt.WithCancel(context.Background())
		c := ctx
		rt.Go(func() {
			tick := rt.NewTicker(time.Second)
			defer func() {
				rt.TickerStop(tick)
				atomic.StoreInt32(rt.AtomicW(&done), 1)
			}()
			for {
				i := rt.Select(false, rt.RecvCase(c.Done()), rt.RecvCase(tick.C))
				if i == 0 {
					return
				}
			}
		})
		rt.Gosched()
	})
	if res.Bug != nil && res.Bug.Kind != engine.KindLeak { // the ticker loop is left running
		t.Fatalf("run 1: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if atomic.LoadInt32(&done) != 1 {
		t.Fatal("the goroutine unwound at the end of run 1 did not run its deferred atomic store")
	}
	s.Begin(2)
	res = engine.Run(engine.Config{}, s, func() {
		cancel()
		rt.Recv(ctx.Done())
	})
	if res.Bug != nil {
		t.Fatalf("run 2, cancelling run 1's context: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if ctx.Err() != context.Canceled {
		t.Fatalf("run 1's context: Err() = %v after run 2 cancelled it", ctx.Err())
	}
}
