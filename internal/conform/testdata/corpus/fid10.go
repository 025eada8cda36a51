package prog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Tenth fidelity audit: Go 1.22's per-iteration loop variables captured
// by goroutines (and a racy write to one), range-over-func iterators that
// yield from a goroutine, iter.Pull shared by two goroutines, two Onces
// taken in opposite orders, a Cond over an RWMutex's read lock, sync.Map
// LoadOrStore/CompareAndSwap/Swap/LoadAndDelete races, atomic.Pointer
// CompareAndSwap against Swap, context AfterFunc chains and causes,
// timers reset in a bubble with an undrained channel, and selects whose
// ready cases are all reachable.

// TestLoopVarPerIterationGoroutines: each iteration of a three-clause
// loop has its own i (Go 1.22): the goroutines see 0, 1 and 2, in any
// order.
func TestLoopVarPerIterationGoroutines(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			seen = append(seen, fmt.Sprint(i))
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Errorf("seen %s", strings.Join(seen, " "))
}

// TestLoopVarWrittenAfterGo: the body writes its own iteration's i after
// starting a goroutine that reads it: a race, the goroutine sees the value
// before or after the write (but never the next iteration's).
//
// conform: racy
func TestLoopVarWrittenAfterGo(t *testing.T) {
	res := make(chan int, 2)
	for i := 0; i < 4; i++ {
		go func() { res <- i }()
		i++
	}
	a, b := <-res, <-res
	if a > b {
		a, b = b, a
	}
	t.Errorf("got %d %d", a, b)
}

// TestRangeChanVarPerIteration: the values of a range over a channel,
// each captured by a goroutine started in its iteration.
func TestRangeChanVarPerIteration(t *testing.T) {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	ch <- "c"
	close(ch)
	out := make(chan string, 3)
	for v := range ch {
		go func() { out <- v }()
	}
	got := []string{<-out, <-out, <-out}
	sort.Strings(got)
	first := got[0] + got[1] + got[2]
	t.Errorf("sorted %s", first)
}

// TestRangeFuncYieldFromGoroutine: an iterator whose yields run on a
// goroutine of its own; the loop body polls a channel another goroutine
// sends on, and breaks after the second value.
func TestRangeFuncYieldFromGoroutine(t *testing.T) {
	seq := func(yield func(int) bool) {
		done := make(chan bool)
		go func() {
			defer close(done)
			for i := 0; i < 5; i++ {
				if !yield(i) {
					return
				}
			}
		}()
		<-done
	}
	signal := make(chan bool, 1)
	go func() { signal <- true }()
	var got []string
	for v := range seq {
		select {
		case <-signal:
			got = append(got, fmt.Sprintf("%d+", v))
		default:
			got = append(got, fmt.Sprint(v))
		}
		if v == 1 {
			break
		}
	}
	t.Errorf("got %s", strings.Join(got, " "))
}

// TestIterPullSharedUnderLock: one iter.Pull's next shared by two
// goroutines under a mutex: which takes which value is the scheduler's.
func TestIterPullSharedUnderLock(t *testing.T) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; i < 2; i++ {
			if !yield(i) {
				return
			}
		}
	})
	defer stop()
	var mu sync.Mutex
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			mu.Lock()
			v, ok := next()
			mu.Unlock()
			res <- fmt.Sprintf("%s%d%v", name, v, ok)
		}()
	}
	got := []string{<-res, <-res}
	sort.Strings(got)
	t.Errorf("%s %s", got[0], got[1])
}

// TestOnceCrossOrder: two goroutines run two Onces nested in opposite
// orders: one inside the other's function. A deadlock when each holds
// the Once the other waits for; else one of the two nestings.
func TestOnceCrossOrder(t *testing.T) {
	var a, b sync.Once
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Do(func() { note("a"); b.Do(func() { note("b in a") }) })
	}()
	go func() {
		defer wg.Done()
		b.Do(func() { note("b"); a.Do(func() { note("a in b") }) })
	}()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, ", "))
}

// TestCondOverRLockerTwoWaiters: a Cond whose Locker is an RWMutex's read
// lock: two waiters hold the read lock at once and both wait; the writer
// sets the flag under the write lock and broadcasts; they relock in
// either order.
func TestCondOverRLockerTwoWaiters(t *testing.T) {
	var rw sync.RWMutex
	c := sync.NewCond(rw.RLocker())
	flag := false
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw.RLock()
			for !flag {
				c.Wait()
			}
			rw.RUnlock()
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}()
	}
	rw.Lock()
	flag = true
	rw.Unlock()
	c.Broadcast()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, " "))
}

// TestSyncMapLoadOrStoreVsCAS: a LoadOrStore of "a" races a
// CompareAndSwap from "a" to "b" on a key first absent.
func TestSyncMapLoadOrStoreVsCAS(t *testing.T) {
	var m sync.Map
	res := make(chan string, 2)
	go func() {
		v, loaded := m.LoadOrStore("k", "a")
		res <- fmt.Sprintf("los %v %v", v, loaded)
	}()
	go func() {
		res <- fmt.Sprintf("cas %v", m.CompareAndSwap("k", "a", "b"))
	}()
	x, y := <-res, <-res
	if x > y {
		x, y = y, x
	}
	v, _ := m.Load("k")
	t.Errorf("%s, %s, final %v", x, y, v)
}

// TestSyncMapSwapVsLoadAndDelete: a Swap racing a LoadAndDelete of a
// present key.
func TestSyncMapSwapVsLoadAndDelete(t *testing.T) {
	var m sync.Map
	m.Store("k", 1)
	res := make(chan string, 2)
	go func() {
		p, loaded := m.Swap("k", 2)
		res <- fmt.Sprintf("swap %v %v", p, loaded)
	}()
	go func() {
		p, loaded := m.LoadAndDelete("k")
		res <- fmt.Sprintf("lad %v %v", p, loaded)
	}()
	x, y := <-res, <-res
	if x > y {
		x, y = y, x
	}
	v, ok := m.Load("k")
	t.Errorf("%s, %s, final %v %v", x, y, v, ok)
}

// TestSyncMapRangeVsLoadOrStore: a Range counting the keys races a
// LoadOrStore of a new key and a Delete of an old one.
func TestSyncMapRangeVsLoadOrStore(t *testing.T) {
	var m sync.Map
	m.Store(1, true)
	m.Store(2, true)
	done := make(chan bool)
	go func() {
		m.LoadOrStore(3, true)
		m.Delete(1)
		done <- true
	}()
	var keys []int
	m.Range(func(k, v any) bool {
		keys = append(keys, k.(int))
		return true
	})
	<-done
	sort.Ints(keys)
	t.Errorf("keys %v", keys)
}

// TestAtomicPointerCASVsSwap: a CompareAndSwap from the loaded pointer
// races a Swap; the CAS wins only if it comes first.
func TestAtomicPointerCASVsSwap(t *testing.T) {
	a, b, c := "a", "b", "c"
	var p atomic.Pointer[string]
	p.Store(&a)
	res := make(chan string, 2)
	go func() {
		old := p.Load()
		res <- fmt.Sprintf("cas %v", p.CompareAndSwap(old, &b))
	}()
	go func() {
		res <- "swap " + *p.Swap(&c)
	}()
	x, y := <-res, <-res
	if x > y {
		x, y = y, x
	}
	t.Errorf("%s, %s, final %s", x, y, *p.Load())
}

// TestAtomicValueCASVsStore: atomic.Value CompareAndSwap from a loaded
// value racing a Store.
func TestAtomicValueCASVsStore(t *testing.T) {
	var v atomic.Value
	v.Store(1)
	res := make(chan string, 1)
	go func() {
		old := v.Load()
		res <- fmt.Sprintf("cas %v", v.CompareAndSwap(old, old.(int)+10))
	}()
	v.Store(5)
	r := <-res
	t.Errorf("%s, final %v", r, v.Load())
}

// TestContextAfterFuncChain: an AfterFunc on a cancels b; an AfterFunc on
// b reports; a goroutine polls b's Err before and after it waits for a.
func TestContextAfterFuncChain(t *testing.T) {
	a, cancelA := context.WithCancel(context.Background())
	b, cancelB := context.WithCancelCause(context.Background())
	defer cancelB(nil)
	context.AfterFunc(a, func() { cancelB(errors.New("from a")) })
	got := make(chan string, 1)
	context.AfterFunc(b, func() { got <- "b done" })
	seen := make(chan string)
	go func() {
		before := b.Err()
		<-a.Done()
		after := b.Err()
		seen <- fmt.Sprintf("%v/%v", before, after)
	}()
	cancelA()
	s := <-seen
	<-got
	t.Errorf("b %s, cause %v", s, context.Cause(b))
}

// TestContextAfterFuncStopInsideOther: two AfterFuncs of one context; the
// first to run stops the other: the other runs or not, whichever runs
// first.
func TestContextAfterFuncStopInsideOther(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan string, 2)
	var stopA, stopB func() bool
	var mu sync.Mutex
	mu.Lock()
	stopA = context.AfterFunc(ctx, func() {
		mu.Lock()
		s := stopB
		mu.Unlock()
		res <- fmt.Sprintf("a stops b %v", s())
	})
	stopB = context.AfterFunc(ctx, func() {
		mu.Lock()
		s := stopA
		mu.Unlock()
		res <- fmt.Sprintf("b stops a %v", s())
	})
	mu.Unlock()
	cancel()
	r := <-res
	select {
	case r2 := <-res:
		t.Errorf("%s; %s", r, r2)
	case <-time.After(50 * time.Millisecond):
		t.Errorf("%s; only", r)
	}
}

// TestContextWithoutCancelAfterFuncVsParentCause: a WithoutCancel child
// keeps the parent's values but not its cancel: an AfterFunc on the
// child never runs, one on the parent sees the parent's cause.
func TestContextWithoutCancelAfterFuncVsParentCause(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	child := context.WithoutCancel(parent)
	ran := make(chan string, 2)
	context.AfterFunc(child, func() { ran <- "child" })
	context.AfterFunc(parent, func() { ran <- fmt.Sprintf("parent %v", context.Cause(parent)) })
	go cancel(errors.New("stop"))
	r := <-ran
	select {
	case r2 := <-ran:
		r += "; " + r2
	case <-time.After(20 * time.Millisecond):
	}
	t.Errorf("%s, child err %v, value %v", r, child.Err(), child.Value(key{}))
}

// TestContextDeadlineCauseVsCancelCause: WithDeadlineCause with a
// deadline 1 ms away races a cancel with another cause from a goroutine;
// the first to cancel sets Err and the cause.
func TestContextDeadlineCauseVsCancelCause(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.Background())
	ctx, cancel := context.WithDeadlineCause(parent, time.Now().Add(time.Millisecond), errors.New("late"))
	defer cancel()
	go cancelParent(errors.New("parent"))
	<-ctx.Done()
	t.Errorf("err %v, cause %v", ctx.Err(), context.Cause(ctx))
}

// TestSynctestTimerResetUndrained: Go 1.23 timers: a timer that fired with
// nobody receiving, reset: Reset reports false (it had expired) and no
// stale value is left; the next value comes at the new time.
func TestSynctestTimerResetUndrained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tm := time.NewTimer(time.Second)
		time.Sleep(2 * time.Second)
		r := tm.Reset(time.Second)
		n := len(tm.C)
		at := <-tm.C
		t.Errorf("reset %v, len %d, at %v", r, n, at.Sub(start))
	})
}

// TestSynctestTimerStopUndrainedThenReceive: a fired, unreceived timer is
// stopped: Stop reports true (Go 1.23: the value was never sent), and a
// receive then blocks: a goroutine's send on another channel wins.
func TestSynctestTimerStopUndrainedThenReceive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		time.Sleep(2 * time.Second)
		stopped := tm.Stop()
		other := make(chan string)
		go func() {
			time.Sleep(time.Second)
			other <- "other"
		}()
		select {
		case <-tm.C:
			t.Errorf("stop %v, stale value", stopped)
		case s := <-other:
			t.Errorf("stop %v, %s", stopped, s)
		}
	})
}

// TestTimerResetRacingFire: a timer of 1 ms reset to an hour by a
// goroutine while the test waits on it with a 30 ms timeout: fired or
// reset first.
func TestTimerResetRacingFire(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	res := make(chan bool, 1)
	go func() { res <- tm.Reset(time.Hour) }()
	select {
	case <-tm.C:
		t.Errorf("fired, reset %v", <-res)
	case <-time.After(30 * time.Millisecond):
		t.Errorf("timeout, reset %v", <-res)
	}
	tm.Stop()
}

// TestAfterFuncStopVsResetFromGoroutines: an AfterFunc an hour away,
// stopped by one goroutine and reset to 0 by another: f runs or not
// depending on the order, and the results say so.
func TestAfterFuncStopVsResetFromGoroutines(t *testing.T) {
	ran := make(chan bool, 1)
	tm := time.AfterFunc(time.Hour, func() { ran <- true })
	res := make(chan string, 2)
	go func() { res <- fmt.Sprintf("stop %v", tm.Stop()) }()
	go func() { res <- fmt.Sprintf("reset %v", tm.Reset(0)) }()
	x, y := <-res, <-res
	if x > y {
		x, y = y, x
	}
	select {
	case <-ran:
		t.Errorf("%s, %s, ran", x, y)
	case <-time.After(30 * time.Millisecond):
		t.Errorf("%s, %s, not run", x, y)
	}
}

// TestSelectFourReadyOnce: four ready cases of different kinds (a buffered
// receive, a closed channel, a send with room, a receive from a waiting
// sender): each is taken in some run.
func TestSelectFourReadyOnce(t *testing.T) {
	buf := make(chan int, 1)
	buf <- 1
	closed := make(chan int)
	close(closed)
	room := make(chan int, 1)
	unbuf := make(chan int)
	go func() { unbuf <- 4 }()
	runtime.Gosched()
	var got string
	select {
	case <-buf:
		got = "buffered"
	case <-closed:
		got = "closed"
	case room <- 3:
		got = "send"
	case <-unbuf:
		got = "sender"
	}
	if got != "sender" {
		<-unbuf
	}
	t.Errorf("took %s", got)
}

// TestSelectLoopDrainsTwoProducers: a select loop over two producers of
// two values each, reporting the order of the four values.
func TestSelectLoopDrainsTwoProducers(t *testing.T) {
	a, b := make(chan string), make(chan string)
	go func() { a <- "a1"; a <- "a2"; close(a) }()
	go func() { b <- "b1"; b <- "b2"; close(b) }()
	var got []string
	for a != nil || b != nil {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			got = append(got, v)
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			got = append(got, v)
		}
	}
	t.Errorf("order %s", strings.Join(got, " "))
}

// TestWaitGroupGoWithOnceValues: three WaitGroup.Go workers call one
// OnceValues whose function counts its calls and fails: all see the same
// error, and the function runs once.
func TestWaitGroupGoWithOnceValues(t *testing.T) {
	var calls atomic.Int32
	f := sync.OnceValues(func() (int, error) {
		calls.Add(1)
		return 7, errors.New("once")
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var seen []string
	for i := 0; i < 3; i++ {
		wg.Go(func() {
			v, err := f()
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%d:%v", v, err))
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Errorf("calls %d, seen %s", calls.Load(), strings.Join(seen, " "))
}

// TestOnceFuncPanicSeenByWaiter: OnceFunc's function panics while a
// second caller waits for it: both panic with the value; each goroutine
// recovers its own.
func TestOnceFuncPanicSeenByWaiter(t *testing.T) {
	entered := make(chan bool)
	release := make(chan bool)
	f := sync.OnceFunc(func() {
		entered <- true
		<-release
		panic("boom")
	})
	res := make(chan string, 2)
	call := func(name string) {
		defer func() { res <- fmt.Sprintf("%s %v", name, recover()) }()
		f()
	}
	go call("a")
	<-entered
	go call("b")
	runtime.Gosched()
	close(release)
	x, y := <-res, <-res
	if x > y {
		x, y = y, x
	}
	t.Errorf("%s; %s", x, y)
}

// TestGoexitInDeferWhileWaiterBlocked: a goroutine's deferred call runs
// runtime.Goexit after the goroutine sent one value; its other deferred
// calls still run (close), and the receiver sees both.
func TestGoexitInDeferWhileWaiterBlocked(t *testing.T) {
	ch := make(chan int)
	go func() {
		defer close(ch)
		defer func() { runtime.Goexit() }()
		ch <- 1
	}()
	var got []int
	for v := range ch {
		got = append(got, v)
	}
	t.Errorf("got %v", got)
}

// TestPollMapReadVsWrite: a loop polling a map entry a goroutine writes
// without a lock: the runtime may catch the race.
//
// conform: racy
func TestPollMapReadVsWrite(t *testing.T) {
	m := map[int]int{1: 0}
	go func() { m[1] = 1 }()
	for m[1] == 0 {
		runtime.Gosched()
	}
	t.Errorf("saw %d", m[1])
}
