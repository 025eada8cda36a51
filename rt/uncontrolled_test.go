package rt_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A goroutine heddle does not control (started before the run, as in init,
// or by code that is not rewritten) calls rewritten code while controlled
// goroutines take steps. It must run natively, not be taken for the
// controlled goroutine that holds the processor.
func TestUncontrolledGoroutineRunsNatively(t *testing.T) {
	start := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	// Started outside any run, like a goroutine started in init: each
	// time it is started, it locks and unlocks a mutex through rewritten
	// calls, starts a goroutine through rt.Go, and reports.
	finished := make(chan struct{}, 1)
	go func() {
		var mu sync.Mutex
		for {
			select {
			case <-stop:
				return
			case <-start:
			}
			for i := 0; i < 200; i++ {
				rt.MutexLock(&mu)
				rt.Gosched()
				rt.MutexUnlock(&mu)
			}
			done := make(chan struct{})
			rt.Go(func() { close(done) })
			<-done
			finished <- struct{}{}
		}
	}()
	for run := 1; run <= 20; run++ {
		var done atomic.Bool
		var now time.Time
		s := strategy.NewRandom(int64(run))
		s.Begin(run)
		res := engine.Run(engine.Config{StepLimit: 1 << 30}, s, func() {
			rt.Go(func() {
				for !done.Load() {
					rt.Gosched()
				}
			})
			start <- struct{}{}
			for !done.Load() {
				select {
				case <-finished:
					done.Store(true)
				default:
					rt.Gosched()
				}
			}
			now = rt.Now()
		})
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s\n%s", run, res.Bug.Kind, res.Bug.Message, res.Bug.Stack)
		}
		if len(res.Gs) != 2 {
			t.Fatalf("run %d: %d controlled goroutines, want 2 (the uncontrolled goroutine's rt.Go must start a native goroutine)", run, len(res.Gs))
		}
		if !now.Before(engine.Epoch.AddDate(1, 0, 0)) {
			t.Fatalf("run %d: the test goroutine read the wall clock %v, not the virtual one", run, now)
		}
	}
}

// A server goroutine heddle does not control (as one started in init)
// receives a channel made by the run and replies on it natively: the
// run's goroutine waiting for the reply must get it, not be reported as a
// deadlock.
func TestUncontrolledServerRepliesOnRunChannel(t *testing.T) {
	requests := rt.MakeChan[chan chan int](0) // outside any run: foreign
	go func() {
		for reply, ok := rt.Recv2(requests); ok; reply, ok = rt.Recv2(requests) {
			rt.Send(reply, 1)
		}
	}()
	defer close(requests)
	for run := 1; run <= 20; run++ {
		s := strategy.NewRandom(int64(run))
		s.Begin(run)
		got := 0
		res := engine.Run(engine.Config{}, s, func() {
			reply := rt.MakeChan[chan int](0)
			rt.Send(requests, reply)
			got = rt.Recv(reply)
		})
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if got != 1 {
			t.Fatalf("run %d: got %d", run, got)
		}
	}
}
