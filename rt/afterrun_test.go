package rt_test

import (
	"context"
	"sync"
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

// The deferred calls of a goroutine unwound at the end of a run complete
// what cannot block: a buffered send with room, a close inside a Once (as
// ants' last worker closes its pool's allDone channel); an operation that
// would block (a send nobody receives) ends the goroutine there, and the
// calls deferred before it still run.
func TestUnwoundDeferredCallsComplete(t *testing.T) {
	var once sync.Once
	allDone := make(chan struct{}) // made outside the run, kept by the program
	slots := make(chan int, 1)
	var after int32
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		block := rt.MakeChan[chan int](0)
		rt.Go(func() {
			defer atomic.StoreInt32(rt.AtomicW(&after), 1)
			defer func() {
				rt.Send(block, 1) // nobody receives: ends the deferred call
				t.Error("a send that would block completed while unwinding")
			}()
			defer rt.OnceDo(&once, func() { rt.Close(allDone) })
			defer rt.Send(slots, 7)
			rt.Recv(block) // left blocked when the test returns
		})
		rt.Gosched()
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindLeak {
		t.Fatalf("run: got %v, want the leak of the blocked goroutine", res.Bug)
	}
	select {
	case v := <-slots:
		if v != 7 {
			t.Errorf("received %d from the deferred send, want 7", v)
		}
	default:
		t.Error("the deferred buffered send did not happen")
	}
	select {
	case <-allDone:
	default:
		t.Error("the deferred Once.Do did not close the channel")
	}
	if atomic.LoadInt32(&after) != 1 {
		t.Error("the call deferred before the blocking one did not run")
	}
}

// A goroutine that a run started but never scheduled (the run ended first,
// here on a panic) runs when the run is unwound, as far as it can without
// blocking: in Go it would have run. Its receive on a channel closed
// before the run completes, and its store takes effect.
func TestUnstartedGoroutineRunsWhenUnwound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var done int32
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		rt.Go(func() {
			rt.Recv(ctx.Done())
			atomic.StoreInt32(rt.AtomicW(&done), 1)
		})
		panic("the run ends before its goroutine takes a step")
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindPanic {
		t.Fatalf("got %v, want the panic", res.Bug)
	}
	if atomic.LoadInt32(&done) != 1 {
		t.Fatal("the goroutine the run never scheduled did not run when unwound")
	}
}

// first always takes the first enabled choice.
type first struct{}

func (first) Begin(int) bool           { return true }
func (first) Choose(*engine.Point) int { return 0 }
func (first) End(*engine.Result)       {}

// A goroutine parked at an operation that cannot block (here an atomic
// store) when the run ends performs it when unwound, and goes on until it
// would block: in Go it was about to run. The run ends while g0.1 waits to
// store its flag (g0 takes the first step and panics).
func TestGoroutineParkedAtAStoreStoresWhenUnwound(t *testing.T) {
	var done int32
	res := engine.Run(engine.Config{}, first{}, func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() {
			rt.Send(ch, 1)
			atomic.StoreInt32(rt.AtomicW(&done), 1)
		})
		rt.Recv(ch)
		rt.Gosched()
		panic("the run ends while g0.1 is parked at its store")
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindPanic {
		t.Fatalf("got %v, want the panic", res.Bug)
	}
	if atomic.LoadInt32(&done) != 1 {
		t.Fatal("the goroutine parked at its atomic store did not store when unwound")
	}
}
