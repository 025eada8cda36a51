package strategy_test

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// Hand-written corpus programs for the differential test.
// outcomes, when positive, is the number of distinct outcomes (values
// read, final values, bug) the program has, counted by hand.
var handWritten = []struct {
	name     string
	outcomes int
	body     func(*outcome)
}{
	{"loads-4", 5, func(o *outcome) {
		// Straight-line code loading one variable four times: not a spin.
		var x0, x1 int32
		o.vars = []*int32{&x0, &x1}
		rt.Go(func() {
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
		})
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x0), 1) })
	}},
	{"gosched-3", 2, func(o *outcome) {
		var x0, x1 int32
		o.vars = []*int32{&x0, &x1}
		rt.Go(func() {
			rt.Gosched()
			rt.Gosched()
			rt.Gosched()
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
		})
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x0), 1) })
	}},
	{"unbuffered-competing", 2, func(o *outcome) {
		var x0, x1 int32
		o.vars = []*int32{&x0, &x1}
		ch := rt.MakeChan[chan int32](0)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		o.log(0, rt.Recv(ch))
		o.log(0, rt.Recv(ch))
	}},
	{"mutex-wg", 1, func(o *outcome) {
		var x0, x1 int32
		o.vars = []*int32{&x0, &x1}
		var mu sync.Mutex
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 2)
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				o.log(1, atomic.AddInt32(rt.AtomicW(&x0), 1))
				rt.MutexUnlock(&mu)
				rt.WaitGroupDone(&wg)
			})
		}
		rt.WaitGroupWait(&wg)
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
	}},
	{"timer-select", 2, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](1)
		rt.Go(func() { rt.Sleep(time.Millisecond); rt.Send(ch, 1) })
		tm := rt.After(2 * time.Millisecond)
		r := rt.RecvCase(ch)
		o.log(0, int32(rt.Select(false, r, rt.RecvCase(tm))))
	}},
	{"close-recv", 3, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](1)
		rt.Go(func() { rt.Send(ch, 7) })
		rt.Go(func() { rt.Close(ch) })
		v, ok := rt.Recv2(ch)
		if ok {
			o.log(0, v)
		} else {
			o.log(0, -1)
		}
	}},
	{"cond", 1, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		rt.Go(func() {
			rt.MutexLock(&mu)
			atomic.StoreInt32(rt.AtomicW(&x0), 1)
			rt.CondSignal(c)
			rt.MutexUnlock(&mu)
		})
		rt.MutexLock(&mu)
		for atomic.LoadInt32(rt.AtomicR(&x0)) == 0 {
			rt.CondWait(c)
		}
		rt.MutexUnlock(&mu)
	}},
	{"once", 2, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		var once sync.Once
		for i := 1; i <= 2; i++ {
			i := int32(i)
			rt.Go(func() { rt.OnceDo(&once, func() { atomic.StoreInt32(&x0, i) }) })
		}
	}},
	{"rwmutex", 4, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		var rw sync.RWMutex
		rt.Go(func() {
			rt.RWRLock(&rw)
			o.log(1, atomic.LoadInt32(rt.AtomicR(&x0)))
			rt.RWRUnlock(&rw)
		})
		rt.Go(func() {
			rt.RWLock(&rw)
			atomic.AddInt32(rt.AtomicW(&x0), 1)
			rt.RWUnlock(&rw)
		})
		rt.RWRLock(&rw)
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
		rt.RWRUnlock(&rw)
	}},
	{"lock-order", 2, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		var a, b sync.Mutex
		rt.Go(func() { rt.MutexLock(&a); rt.MutexLock(&b); rt.MutexUnlock(&b); rt.MutexUnlock(&a) })
		rt.MutexLock(&b)
		rt.MutexLock(&a)
		rt.MutexUnlock(&a)
		rt.MutexUnlock(&b)
	}},
	// Timers: sleeps, timer channels, AfterFunc goroutines, Stop and
	// Reset, tickers and context deadlines race with the goroutines. A
	// timer may fire early (MaxStarve), so each races with every step.
	{"sleep-vs-send", 2, func(o *outcome) {
		// Either send may come first: [1 2] or [2 1].
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](1)
		rt.Go(func() { rt.Sleep(time.Millisecond); rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		o.log(0, rt.Recv(ch))
		o.log(0, rt.Recv(ch))
	}},
	{"after-vs-send", 2, func(o *outcome) {
		// The receive wins (0), or the timeout (1) and the sender leaks.
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](0)
		rt.Go(func() { rt.Send(ch, 7) })
		tm := rt.After(time.Millisecond)
		r := rt.RecvCase(ch)
		o.log(0, int32(rt.Select(false, r, rt.RecvCase(tm))))
	}},
	{"afterfunc-vs-mutex", 3, func(o *outcome) {
		// The callback's critical section runs before the first (x
		// read 1 twice), between the two reads (0, 1), or after (0, 0).
		var x0 int32
		o.vars = []*int32{&x0}
		var mu sync.Mutex
		rt.AfterFunc(time.Millisecond, func() {
			rt.MutexLock(&mu)
			atomic.StoreInt32(rt.AtomicW(&x0), 1)
			rt.MutexUnlock(&mu)
		})
		rt.MutexLock(&mu)
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
		rt.MutexUnlock(&mu)
		rt.Sleep(2 * time.Millisecond)
		rt.MutexLock(&mu)
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
		rt.MutexUnlock(&mu)
	}},
	{"timer-stop-vs-fire", 2, func(o *outcome) {
		// Stop first (true; nothing to receive), or the firing first,
		// with the value received before Stop (false), or not: then,
		// with Go 1.23's timer channels (this module's go line), Stop
		// discards the pending value and reports true.
		var x0 int32
		o.vars = []*int32{&x0}
		tm := rt.NewTimer(time.Millisecond)
		rt.Go(func() {
			if rt.TimerStop(tm) {
				o.log(1, 1)
			} else {
				o.log(1, 0)
			}
		})
		r := rt.RecvCase(tm.C)
		o.log(0, int32(rt.Select(true, r)))
	}},
	{"timer-reset-vs-fire", 3, func(o *outcome) {
		// Reset before the firing (true, received at 2 ms), or after
		// it, the value received before Reset drains it (1 ms) or the
		// second firing's (3 ms).
		var x0 int32
		o.vars = []*int32{&x0}
		tm := rt.NewTimer(time.Millisecond)
		rt.Go(func() {
			if rt.TimerReset(tm, 2*time.Millisecond) {
				o.log(1, 1)
			} else {
				o.log(1, 0)
			}
		})
		v := rt.Recv(tm.C)
		o.log(0, int32(v.Sub(engine.Epoch)/time.Millisecond))
	}},
	{"ticker-loop", 4, func(o *outcome) {
		// The test reads the tick count before 0 to 3 ticks were taken.
		var x0 int32
		o.vars = []*int32{&x0}
		tk := rt.NewTicker(time.Millisecond)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			for i := 0; i < 3; i++ {
				rt.Recv(tk.C)
				atomic.AddInt32(rt.AtomicW(&x0), 1)
			}
			rt.TickerStop(tk)
			rt.Close(done)
		})
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
		rt.Recv(done)
	}},
	{"context-timeout", 2, func(o *outcome) {
		// The hand-off before the deadline (0, 0), or both give up (1,
		// 1): one cannot give up while the other hands off.
		var x0 int32
		o.vars = []*int32{&x0}
		ctx, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
		ch := rt.MakeChan[chan int32](0)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.SendCase(ch, 1), rt.RecvCase(ctx.Done()))))
		})
		o.log(0, int32(rt.Select(false, rt.RecvCase(ch), rt.RecvCase(ctx.Done()))))
		cancel()
	}},
	{"afterfunc-vs-loop", 3, func(o *outcome) {
		// A callback stops a bounded polling loop after 0, 1 or 2
		// rounds. A third round would re-read the unchanged flag at the
		// same call site: a spin, which the exhaustive strategies do not
		// prolong while the callback can run (strategies.md, Fairness).
		var x0 int32
		o.vars = []*int32{&x0}
		rt.AfterFunc(time.Millisecond, func() { atomic.StoreInt32(rt.AtomicW(&x0), 1) })
		i := int32(0)
		for ; i < 3 && atomic.LoadInt32(rt.AtomicR(&x0)) == 0; i++ {
			rt.Gosched()
		}
		o.log(0, i)
	}},
	{"poll-until-timer", 0, func(o *outcome) {
		// Each default taken moves the clock by a microsecond; the
		// timer fires when it is due, or early (outcomes not counted by
		// hand: the spin rule decides how long the loop may poll).
		var x0 int32
		o.vars = []*int32{&x0}
		tm := rt.After(3 * time.Microsecond)
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x0), 1) })
		n := int32(0)
		for rt.Select(true, rt.RecvCase(tm)) < 0 {
			n++
		}
		o.log(0, n)
		o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
	}},
	{"ctx-err-poll", 2, func(o *outcome) {
		// ctx.Err() is a read of the cancellation state: the cancel may
		// come before it (issue 10, TestContextErrPoll).
		ctx, cancel := rt.WithCancel(context.Background())
		rt.Go(cancel)
		o.log(0, errBit(ctx.Err()))
	}},
	{"ctx-cause-parent", 3, func(o *outcome) {
		// Cancelling the parent cancels the child: its Err and Cause
		// each read the state, before or after the cancel, in order.
		parent, cancel := rt.WithCancel(context.Background())
		child, cancelChild := rt.WithCancelCause(parent)
		rt.Go(cancel)
		o.log(0, errBit(child.Err()))
		o.log(0, errBit(rt.Cause(child)))
		cancelChild(nil)
	}},
	{"ctx-err-spin-deadline", 0, func(o *outcome) {
		// Polling Err until the deadline fires: the polls are spins, so
		// virtual time moves and the deadline fires (outcomes not
		// counted by hand: the spin rule decides how long it polls).
		ctx, cancel := rt.WithTimeout(context.Background(), 3*time.Microsecond)
		n := int32(0)
		for ctx.Err() == nil && n < 1000 {
			n++
		}
		o.log(0, n)
		cancel()
	}},
	// Polls (a select with a default) racing a partner's arrival at its
	// channel operation (engine.OpArrive): a partner that finished its
	// previous operation may not have reached the next one yet.
	{"poll-vs-arrival", 2, func(o *outcome) {
		// The poll takes the value (1), or finds nobody yet (-1) and
		// then waits for it.
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](0)
		rt.Go(func() { rt.Send(ch, 1) })
		r := rt.RecvCase(ch)
		if rt.Select(true, r) >= 0 {
			o.log(0, r.V)
		} else {
			o.log(0, -1)
			rt.Recv(ch)
		}
	}},
	{"poll-between-ops", 2, func(o *outcome) {
		// Issue 10's TestArriveDefault: the partner is between its
		// receive and its send when the test polls: case 0 or the
		// default (-1).
		var x0 int32
		o.vars = []*int32{&x0}
		a := rt.MakeChan[chan int32](0)
		b := rt.MakeChan[chan int32](0)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			v := rt.Recv(a)
			rt.Select(false, rt.SendCase(b, v+1), rt.RecvCase(done))
		})
		rt.Send(a, 1)
		o.log(0, int32(rt.Select(true, rt.RecvCase(b))))
		rt.Close(done)
	}},
	{"poll-loop-deadlock", 2, func(o *outcome) {
		// A request loop that skips a reply the worker has not reached:
		// the worker then blocks on the reply while the test waits for
		// its end (a deadlock), or every reply is taken.
		var x0 int32
		o.vars = []*int32{&x0}
		req := rt.MakeChan[chan int32](0)
		resp := rt.MakeChan[chan int32](0)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			for {
				v, ok := rt.Recv2(req)
				if !ok {
					break
				}
				rt.Send(resp, v)
			}
			rt.Close(done)
		})
		rt.Send(req, 1)
		rt.Select(true, rt.RecvCase(resp))
		rt.Close(req)
		rt.Recv(done)
	}},
	{"poll-send-two-receivers", 0, func(o *outcome) {
		// Two non-blocking sends to two receivers that arrive in either
		// order, or not yet; receivers left without a value leak.
		var x0 int32
		o.vars = []*int32{&x0}
		ch := rt.MakeChan[chan int32](0)
		rt.Go(func() { o.log(1, rt.Recv(ch)) })
		rt.Go(func() { o.log(2, rt.Recv(ch)) })
		o.log(0, int32(rt.Select(true, rt.SendCase(ch, 1))))
		o.log(0, int32(rt.Select(true, rt.SendCase(ch, 2))))
	}},
	{"poll-two-channels", 3, func(o *outcome) {
		// A poll over two channels whose senders arrive in any order;
		// then the test takes what is left.
		var x0 int32
		o.vars = []*int32{&x0}
		a := rt.MakeChan[chan int32](0)
		b := rt.MakeChan[chan int32](0)
		rt.Go(func() { rt.Send(a, 1) })
		rt.Go(func() { rt.Send(b, 2) })
		ra, rb := rt.RecvCase(a), rt.RecvCase(b)
		switch rt.Select(true, ra, rb) {
		case 0:
			o.log(0, ra.V)
			o.log(0, rt.Recv(b))
		case 1:
			o.log(0, rb.V)
			o.log(0, rt.Recv(a))
		default:
			o.log(0, -1)
			o.log(0, rt.Recv(a)+rt.Recv(b))
		}
	}},
	// Go's handoff on buffered channels (engine/chan.go): a receive from
	// a full buffer completes the oldest waiting sender's send, a send to
	// an empty one the oldest waiting receiver's receive, as one joint
	// step whose partner depends on the order of arrival.
	{"buffered-handoff-senders", 0, func(o *outcome) {
		ch := rt.MakeChan[chan int32](1)
		rt.Send(ch, 0)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		for range 3 {
			o.log(0, rt.Recv(ch))
			o.log(0, int32(rt.Len(ch)))
		}
	}},
	{"buffered-handoff-select-send", 0, func(o *outcome) {
		ch := rt.MakeChan[chan int32](1)
		quit := rt.MakeChan[chan struct{}](0)
		rt.Send(ch, 0)
		rt.Go(func() {
			if rt.Select(false, rt.SendCase(ch, 1), rt.RecvCase(quit)) == 0 {
				o.log(1, 1)
			} else {
				o.log(1, -1)
			}
		})
		rt.Go(func() { rt.Send(ch, 2) })
		o.log(0, rt.Recv(ch))
		rt.Close(quit)
		o.log(0, rt.Recv(ch))
		r := rt.RecvCase(ch)
		if rt.Select(true, r) == 0 {
			o.log(0, r.V)
		}
	}},
	{"buffered-handoff-receivers", 0, func(o *outcome) {
		ch := rt.MakeChan[chan int32](1)
		quit := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			r := rt.RecvCase(ch)
			if rt.Select(false, r, rt.RecvCase(quit)) == 0 {
				o.log(1, r.V)
			} else {
				o.log(1, -1)
			}
		})
		rt.Go(func() { o.log(2, rt.Recv(ch)) })
		rt.Send(ch, 1)
		o.log(0, int32(rt.Len(ch)))
		rt.Close(quit)
		rt.Send(ch, 2)
	}},
	{"trylock", 3, func(o *outcome) {
		var x0 int32
		o.vars = []*int32{&x0}
		var mu sync.Mutex
		rt.Go(func() { rt.MutexLock(&mu); atomic.StoreInt32(rt.AtomicW(&x0), 1); rt.MutexUnlock(&mu) })
		if rt.MutexTryLock(&mu) {
			o.log(0, atomic.LoadInt32(rt.AtomicR(&x0)))
			rt.MutexUnlock(&mu)
		}
	}},
}

// errBit is 1 for a non-nil error.
func errBit(err error) int32 {
	if err != nil {
		return 1
	}
	return 0
}
