package strategy_test

import (
	"sync"
	"sync/atomic"
	"time"

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
