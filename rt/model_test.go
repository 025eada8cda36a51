package rt_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/rt"
)

// A corpus of small programs written against rt exactly as the rewriter
// emits them. Outside an exploration rt behaves natively, so each program
// runs natively too. Every outcome seen natively must be found by heddle's
// exhaustive exploration, and heddle must find no outcome outside the set
// the Go spec and memory model allow.
var corpus = []struct {
	name    string
	allowed []string
	run     func() string
}{
	{"mutex-counter", []string{"2"}, func() string {
		var mu sync.Mutex
		var wg sync.WaitGroup
		n := 0
		for i := 0; i < 2; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				rt.MutexLock(&mu)
				n++
				rt.MutexUnlock(&mu)
			})
		}
		rt.WaitGroupWait(&wg)
		return fmt.Sprint(n)
	}},
	{"unbuffered-pingpong", []string{"ping pong"}, func() string {
		ch := rt.MakeChan[chan string](0)
		back := rt.MakeChan[chan string](0)
		rt.Go(func() {
			v := rt.Recv(ch)
			rt.Send(back, v+" pong")
		})
		rt.Send(ch, "ping")
		return rt.Recv(back)
	}},
	{"select-two-ready", []string{"a", "b"}, func() string {
		a := rt.MakeChan[chan string](1)
		b := rt.MakeChan[chan string](1)
		rt.Send(a, "a")
		rt.Send(b, "b")
		ca, cb := rt.RecvCase(a), rt.RecvCase(b)
		switch rt.Select(false, ca, cb) {
		case 0:
			return ca.V
		case 1:
			return cb.V
		}
		return "?"
	}},
	{"message-passing-atomics", []string{"0 0", "0 1", "1 1"}, func() string {
		var x, y int32
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			atomic.StoreInt32(rt.AtomicW(&x), 1)
			atomic.StoreInt32(rt.AtomicW(&y), 1)
			rt.Close(done)
		})
		r1 := atomic.LoadInt32(rt.AtomicR(&y))
		r2 := atomic.LoadInt32(rt.AtomicR(&x))
		rt.Recv(done)
		return fmt.Sprint(r1, r2)
	}},
	{"buffered-fifo", []string{"1 2 3"}, func() string {
		ch := rt.MakeChan[chan int](3)
		rt.Go(func() {
			for i := 1; i <= 3; i++ {
				rt.Send(ch, i)
			}
		})
		return fmt.Sprint(rt.Recv(ch), rt.Recv(ch), rt.Recv(ch))
	}},
	{"close-range", []string{"3 false"}, func() string {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() {
			for i := 0; i < 3; i++ {
				rt.Send(ch, i)
			}
			rt.Close(ch)
		})
		n := 0
		for {
			_, ok := rt.Recv2(ch)
			if !ok {
				break
			}
			n++
		}
		_, ok := rt.Recv2(ch)
		return fmt.Sprint(n, ok)
	}},
	{"two-senders-order", []string{"1 2", "2 1"}, func() string {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		return fmt.Sprint(rt.Recv(ch), rt.Recv(ch))
	}},
	{"rwmutex-readers-overlap", []string{"overlap", "serial"}, func() string {
		var rw sync.RWMutex
		var wg sync.WaitGroup
		var in, max int32
		for i := 0; i < 2; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				rt.RWRLock(&rw)
				n := atomic.AddInt32(rt.AtomicW(&in), 1)
				if n > atomic.LoadInt32(rt.AtomicR(&max)) {
					atomic.StoreInt32(rt.AtomicW(&max), n)
				}
				atomic.AddInt32(rt.AtomicW(&in), -1)
				rt.RWRUnlock(&rw)
			})
		}
		rt.WaitGroupWait(&wg)
		if max == 2 {
			return "overlap"
		}
		return "serial"
	}},
	{"rwmutex-writer-excludes", []string{"0 0", "1 1"}, func() string {
		var rw sync.RWMutex
		a, b := 0, 0
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.RWLock(&rw)
			a = 1
			rt.Gosched()
			b = 1
			rt.RWUnlock(&rw)
			rt.Close(done)
		})
		rt.RWRLock(&rw)
		r := fmt.Sprint(a, b)
		rt.RWRUnlock(&rw)
		rt.Recv(done)
		return r
	}},
	{"once-value", []string{"1 1"}, func() string {
		calls := 0
		get := rt.OnceValue(func() int { calls++; return calls })
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(ch, get()) })
		v := get()
		w := rt.Recv(ch)
		if v != w || calls != 1 {
			return "broken"
		}
		return fmt.Sprint(v, calls)
	}},
	{"cond-handoff", []string{"ready"}, func() string {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		ready := false
		rt.Go(func() {
			rt.MutexLock(&mu)
			ready = true
			rt.MutexUnlock(&mu)
			rt.CondSignal(c)
		})
		rt.MutexLock(&mu)
		for !ready {
			rt.CondWait(c)
		}
		rt.MutexUnlock(&mu)
		return "ready"
	}},
	{"timeout-vs-reply", []string{"reply", "timeout"}, func() string {
		ch := rt.MakeChan[chan string](1)
		rt.Go(func() {
			rt.Sleep(5 * time.Millisecond)
			rt.Send(ch, "reply")
		})
		c0, c1 := rt.RecvCase(ch), rt.RecvCase(rt.After(10*time.Millisecond))
		switch rt.Select(false, c0, c1) {
		case 0:
			return c0.V
		default:
			return "timeout"
		}
	}},
	{"select-default", []string{"default", "got"}, func() string {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() {
			c := rt.SendCase(ch, 1)
			rt.Select(true, c)
		})
		c := rt.RecvCase(ch)
		r := "default"
		rt.Gosched()
		if rt.Select(true, c) == 0 {
			r = "got"
		}
		return r
	}},
	{"context-cancel", []string{"context canceled"}, func() string {
		ctx, cancel := rt.WithCancel(context.Background())
		rt.Go(cancel)
		rt.Recv(ctx.Done())
		return ctx.Err().Error()
	}},
	{"context-timeout", []string{"context deadline exceeded", "done"}, func() string {
		ctx, cancel := rt.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		work := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.Sleep(10 * time.Millisecond)
			rt.Close(work)
		})
		c0, c1 := rt.RecvCase(ctx.Done()), rt.RecvCase(work)
		if rt.Select(false, c0, c1) == 0 {
			return ctx.Err().Error()
		}
		return "done"
	}},
	{"waitgroup-go", []string{"3"}, func() string {
		var wg sync.WaitGroup
		var n atomic.Int32
		for i := 0; i < 3; i++ {
			rt.WaitGroupGo(&wg, func() { rt.AtomicW(&n).Add(1) })
		}
		rt.WaitGroupWait(&wg)
		return fmt.Sprint(rt.AtomicR(&n).Load())
	}},
	{"syncmap", []string{"a", "b"}, func() string {
		var m sync.Map
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.SyncMapW(&m).LoadOrStore("k", "a")
			rt.Close(done)
		})
		v, _ := rt.SyncMapW(&m).LoadOrStore("k", "b")
		rt.Recv(done)
		return v.(string)
	}},
	{"ticker", []string{"3"}, func() string {
		tk := rt.NewTicker(time.Millisecond)
		defer rt.TickerStop(tk)
		n := 0
		for n < 3 {
			rt.Recv(tk.C)
			n++
		}
		return fmt.Sprint(n)
	}},
}

func TestModelsAgreeWithGo(t *testing.T) {
	for _, p := range corpus {
		t.Run(p.name, func(t *testing.T) {
			allowed := map[string]bool{}
			for _, a := range p.allowed {
				allowed[a] = true
			}
			native := map[string]bool{}
			n := 2000
			if testing.Short() || strings.Contains(p.name, "time") || p.name == "ticker" {
				n = 200 // these sleep for real when run natively
			}
			for i := 0; i < n; i++ {
				native[p.run()] = true
			}
			found, bugs, runs := exhaust(t, p.run)
			if len(bugs) > 0 {
				t.Fatalf("bugs in a correct program: %v", bugs)
			}
			for o := range native {
				if !found[o] {
					t.Errorf("outcome %q seen natively but not found by heddle (heddle found %s)", o, keys(found))
				}
			}
			for o := range found {
				if !allowed[o] {
					t.Errorf("heddle found outcome %q, which Go forbids (allowed: %v)", o, p.allowed)
				}
			}
			t.Logf("%d runs; heddle: %s; native: %s", runs, keys(found), keys(native))
		})
	}
}
