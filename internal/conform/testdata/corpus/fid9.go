package prog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Ninth fidelity audit: Cond wakeups against arriving waiters, context
// Done against Err, AfterFunc on a WithoutCancel child, an errgroup-like
// limit, CAS loops on atomic.Pointer and atomic.Value, Goexit with a panic
// in a deferred call, close of a range's channel by a select, selects with
// many ready cases, OnceValue's panic in two callers, and bubble tickers.

// TestCondSignalVsWaiterArrival: a Signal racing a waiter's arrival is
// lost if it comes first; a later Broadcast then wakes the waiter, or
// finds none either (a leak).
func TestCondSignalVsWaiterArrival(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	reason := "none"
	res := make(chan string, 1)
	go func() {
		mu.Lock()
		cond.Wait()
		r := reason
		mu.Unlock()
		res <- r
	}()
	sent := make(chan bool)
	go func() {
		mu.Lock()
		reason = "signal"
		cond.Signal()
		mu.Unlock()
		sent <- true
	}()
	<-sent
	mu.Lock()
	reason = "broadcast"
	cond.Broadcast()
	mu.Unlock()
	t.Errorf("woken by %s", <-res)
}

// TestCondBroadcastReacquireOrder: three waiters queued in order; a
// Broadcast wakes all of them: the order they take the lock back is the
// scheduler's.
func TestCondBroadcastReacquireOrder(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := make(chan bool)
	var order []string
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			ready <- true
			cond.Wait()
			order = append(order, name)
			mu.Unlock()
		}()
		<-ready
		mu.Lock()
		mu.Unlock()
	}
	cond.Broadcast()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, " "))
}

// TestCondBroadcastThenLateWaiter: a waiter that arrives after the
// Broadcast is not woken by it; a Signal then wakes it, not the waiter
// the Broadcast woke.
func TestCondBroadcastThenLateWaiter(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	woke := make(chan string, 2)
	ready := make(chan bool)
	waiter := func(name string) {
		mu.Lock()
		ready <- true
		cond.Wait()
		mu.Unlock()
		woke <- name
	}
	go waiter("a")
	<-ready
	mu.Lock()
	cond.Broadcast()
	mu.Unlock()
	first := <-woke
	go waiter("b")
	<-ready
	mu.Lock()
	cond.Signal()
	mu.Unlock()
	t.Errorf("%s then %s", first, <-woke)
}

// TestContextDoneThenErr: once Done is closed Err is not nil; before, it
// may be either.
func TestContextDoneThenErr(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := ctx.Done()
	go cancel()
	select {
	case <-d:
		t.Errorf("done %v", ctx.Err())
	default:
		t.Errorf("open %v", ctx.Err())
	}
}

// TestContextAfterFuncWithoutCancelChild: an AfterFunc on a child of a
// WithoutCancel context runs on the child's cancel only, never the
// parent's; its stop races the child's cancel.
func TestContextAfterFuncWithoutCancelChild(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	child, cancelChild := context.WithCancel(context.WithoutCancel(parent))
	ran := make(chan string, 1)
	stop := context.AfterFunc(child, func() { ran <- fmt.Sprint(parent.Err() != nil) })
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cancelParent() }()
	go func() { defer wg.Done(); cancelChild() }()
	stopped := stop()
	wg.Wait()
	if stopped {
		t.Errorf("stopped, ran %d", len(ran))
		return
	}
	t.Errorf("not stopped, ran after parent cancel %s", <-ran)
}

// TestContextTwoAfterFuncsOrder: two AfterFuncs of one context each run
// in a goroutine of their own on the cancel: either may run first.
func TestContextTwoAfterFuncsOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wg.Add(2)
	for _, name := range []string{"a", "b"} {
		context.AfterFunc(ctx, func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		})
	}
	cancel()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, " "))
}

// limitGroup is errgroup.Group with SetLimit, reduced: a semaphore
// channel, the first error, and a context cancelled by it.
type limitGroup struct {
	wg     sync.WaitGroup
	sem    chan struct{}
	once   sync.Once
	err    error
	cancel func()
}

func (g *limitGroup) Go(f func() error) {
	g.sem <- struct{}{}
	g.start(f)
}

func (g *limitGroup) TryGo(f func() error) bool {
	select {
	case g.sem <- struct{}{}:
	default:
		return false
	}
	g.start(f)
	return true
}

func (g *limitGroup) start(f func() error) {
	g.wg.Add(1)
	go func() {
		defer func() { <-g.sem; g.wg.Done() }()
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err; g.cancel() })
		}
	}()
}

func (g *limitGroup) Wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}

// TestErrgroupLimitTryGo: with a limit of 1, TryGo fails while the first
// task runs and succeeds once it ended.
func TestErrgroupLimitTryGo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g := &limitGroup{sem: make(chan struct{}, 1), cancel: cancel}
	g.Go(func() error { return nil })
	ok := g.TryGo(func() error { return errors.New("second") })
	err := g.Wait()
	t.Errorf("trygo %v, err %v, ctx %v", ok, err, ctx.Err())
}

// TestErrgroupLimitFirstErrorCancels: limit 2, three tasks; the first
// error cancels the context; the third task, started when a slot frees,
// may see it cancelled.
func TestErrgroupLimitFirstErrorCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g := &limitGroup{sem: make(chan struct{}, 2), cancel: cancel}
	var third atomic.Value
	g.Go(func() error { return errors.New("a") })
	g.Go(func() error { return errors.New("b") })
	g.Go(func() error {
		third.Store(ctx.Err() != nil)
		return nil
	})
	err := g.Wait()
	t.Errorf("err %v, third saw cancel %v", err, third.Load())
}

// TestAtomicPointerCASAppend: two goroutines append to a slice held by an
// atomic.Pointer with a CAS loop: both elements are kept; a goroutine
// retries if the other swapped between its load and its CAS.
func TestAtomicPointerCASAppend(t *testing.T) {
	var p atomic.Pointer[[]string]
	p.Store(&[]string{})
	var retried atomic.Bool
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				old := p.Load()
				next := append(append([]string{}, *old...), name)
				if p.CompareAndSwap(old, &next) {
					return
				}
				retried.Store(true)
			}
		}()
	}
	wg.Wait()
	t.Errorf("%s retried %v", strings.Join(*p.Load(), " "), retried.Load())
}

// TestAtomicValueCASCounter: two goroutines add 2 each to an int held by
// an atomic.Value with a CAS loop: no update is lost.
func TestAtomicValueCASCounter(t *testing.T) {
	var v atomic.Value
	v.Store(0)
	var retries atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 2; k++ {
				for {
					old := v.Load().(int)
					if v.CompareAndSwap(old, old+1) {
						break
					}
					retries.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Errorf("total %d, retried %v", v.Load(), retries.Load() > 0)
}

// TestGoexitThenPanicInDefer: a deferred call panics while Goexit runs
// the deferred calls; an earlier-registered deferred call recovers it;
// the goroutine still ends (the Goexit goes on).
func TestGoexitThenPanicInDefer(t *testing.T) {
	res := make(chan string, 1)
	go func() {
		after := false
		defer func() { res <- fmt.Sprintf("recovered %v, after %v", recover(), after) }()
		defer func() { panic("in defer") }()
		runtime.Goexit()
		after = true
	}()
	t.Errorf("%s", <-res)
}

// TestGoexitInDeferAfterRecover: a goroutine panics, a deferred call
// recovers, an earlier deferred call then calls Goexit: the goroutine ends
// there, its remaining deferred calls run.
func TestGoexitInDeferAfterRecover(t *testing.T) {
	res := make(chan string, 2)
	go func() {
		defer func() { res <- "last defer" }()
		defer runtime.Goexit()
		defer func() { res <- fmt.Sprintf("recovered %v", recover()) }()
		panic("boom")
	}()
	t.Errorf("%s; %s", <-res, <-res)
}

// TestRangeClosedBySelectProducer: the producer sends with a select that
// also watches quit; the consumer stops after two values and closes quit.
// With one slot of buffer the producer may have sent a third.
func TestRangeClosedBySelectProducer(t *testing.T) {
	ch := make(chan int, 1)
	quit := make(chan struct{})
	sent := make(chan int, 1)
	go func() {
		n := 0
		defer func() { sent <- n }()
		defer close(ch)
		for i := 0; i < 5; i++ {
			select {
			case ch <- i:
				n++
			case <-quit:
				return
			}
		}
	}()
	var got []int
	for v := range ch {
		got = append(got, v)
		if len(got) == 2 {
			close(quit)
			break
		}
	}
	n := <-sent
	rest := 0
	for range ch {
		rest++
	}
	t.Errorf("got %v, sent %d, left %d", got, n, rest)
}

// TestTwoRangersOneProducer: two goroutines range over one channel the
// producer fills with four values and closes: any split.
func TestTwoRangersOneProducer(t *testing.T) {
	ch := make(chan int)
	counts := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			n := 0
			for range ch {
				n++
			}
			counts <- n
		}()
	}
	for i := 0; i < 4; i++ {
		ch <- i
	}
	close(ch)
	a, b := <-counts, <-counts
	if a > b {
		a, b = b, a
	}
	t.Errorf("split %d %d", a, b)
}

// TestSelectFiveReadyMixed: five cases ready at once, receives, sends and
// a closed channel: Go picks uniformly, each can be taken.
func TestSelectFiveReadyMixed(t *testing.T) {
	a, b := make(chan int, 1), make(chan int, 1)
	c, e := make(chan int, 1), make(chan int, 1)
	d := make(chan int)
	a <- 1
	b <- 2
	close(d)
	select {
	case <-a:
		t.Errorf("recv a")
	case <-b:
		t.Errorf("recv b")
	case c <- 3:
		t.Errorf("send c")
	case <-d:
		t.Errorf("closed d")
	case e <- 5:
		t.Errorf("send e")
	}
}

// TestSelectTwiceFairness: the same two ready cases twice in a row: each
// sequence of choices is possible.
func TestSelectTwiceFairness(t *testing.T) {
	a, b := make(chan int, 2), make(chan int, 2)
	a <- 1
	a <- 1
	b <- 2
	b <- 2
	var s string
	for i := 0; i < 2; i++ {
		select {
		case <-a:
			s += "a"
		case <-b:
			s += "b"
		}
	}
	t.Errorf("%s", s)
}

// TestOnceValuePanicTwoCallers: OnceValue's function panics; a caller
// blocked in it while it panicked, and a later one, panic with the same
// value.
func TestOnceValuePanicTwoCallers(t *testing.T) {
	started := make(chan bool)
	release := make(chan bool)
	f := sync.OnceValue(func() int {
		started <- true
		<-release
		panic("boom")
	})
	call := func() (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	res := make(chan any, 2)
	go func() { res <- call() }()
	<-started
	go func() { res <- call() }()
	release <- true
	got := []string{fmt.Sprint(<-res), fmt.Sprint(<-res), fmt.Sprint(call())}
	sort.Strings(got)
	t.Errorf("%s", strings.Join(got, " "))
}

// TestSynctestTickerResetFromGoroutine: a ticker of 2s, reset to 1s by a
// goroutine at 3s: ticks at 2s, 4s, 5s.
func TestSynctestTickerResetFromGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tk := time.NewTicker(2 * time.Second)
		defer tk.Stop()
		go func() {
			time.Sleep(3 * time.Second)
			tk.Reset(time.Second)
		}()
		var at []string
		for i := 0; i < 3; i++ {
			<-tk.C
			at = append(at, time.Since(start).String())
		}
		t.Errorf("ticks at %s", strings.Join(at, " "))
	})
}

// TestSynctestTickerStopSameInstant: a goroutine stops the ticker at the
// instant of its first tick: no tick is received after the Stop, whether
// the tick fired before it or not (Go 1.23 timer channels).
func TestSynctestTickerStopSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		done := make(chan bool)
		go func() {
			time.Sleep(time.Second)
			tk.Stop()
			done <- true
		}()
		<-done
		select {
		case <-tk.C:
			t.Errorf("tick after stop")
		default:
			t.Errorf("no tick")
		}
	})
}

// TestSynctestTickerStopVsReceiver: a goroutine receives ticks while
// another stops the ticker at 2.5s: two ticks, then the receiver waits
// forever (the bubble's end sees it blocked).
func TestSynctestTickerStopVsReceiver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		got := make(chan int, 1)
		quit := make(chan bool)
		go func() {
			n := 0
			for {
				select {
				case <-tk.C:
					n++
				case <-quit:
					got <- n
					return
				}
			}
		}()
		time.Sleep(2500 * time.Millisecond)
		tk.Stop()
		time.Sleep(time.Second)
		close(quit)
		t.Errorf("ticks %d", <-got)
	})
}

// TestAfterFuncStopFromOwnFunc: f stops its own timer while it runs:
// Stop reports false (the timer already fired), and a Reset from f arms
// it again.
func TestAfterFuncStopFromOwnFunc(t *testing.T) {
	res := make(chan string, 2)
	var tm *time.Timer
	var mu sync.Mutex
	runs := 0
	mu.Lock()
	tm = time.AfterFunc(time.Millisecond, func() {
		mu.Lock()
		runs++
		n := runs
		mu.Unlock()
		if n == 1 {
			res <- fmt.Sprintf("stop %v reset %v", tm.Stop(), tm.Reset(time.Millisecond))
			return
		}
		res <- "second run"
	})
	mu.Unlock()
	t.Errorf("%s, %s", <-res, <-res)
}
