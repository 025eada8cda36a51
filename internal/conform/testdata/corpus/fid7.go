package prog

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Seventh fidelity audit: selects with three or more ready cases, buffered
// channels of capacity > 1 with several senders and receivers and a close,
// sync.Map's and atomic.Value's swap and compare operations, OnceValue(s)
// with concurrent and panicking callers, runtime.Goexit in deferred calls
// and with locks held, errors.Join of goroutines' errors, sync.Cond with a
// timeout broadcast, runtime.Gosched and LockOSThread.

// TestSelectThreeReady: three buffered channels, each holding a value, in
// one select: Go picks uniformly among the ready cases.
func TestSelectThreeReady(t *testing.T) {
	a, b, c := make(chan int, 1), make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 2
	c <- 3
	select {
	case v := <-a:
		t.Errorf("got %d", v)
	case v := <-b:
		t.Errorf("got %d", v)
	case v := <-c:
		t.Errorf("got %d", v)
	}
}

// TestSelectReadyKindsWithDefault: a receive from a closed channel, a send
// with room in the buffer and a receive of a buffered value are all ready:
// the default is never taken.
func TestSelectReadyKindsWithDefault(t *testing.T) {
	closed := make(chan int)
	close(closed)
	room := make(chan int, 1)
	full := make(chan int, 1)
	full <- 7
	select {
	case v, ok := <-closed:
		t.Errorf("closed %d %v", v, ok)
	case room <- 1:
		t.Errorf("sent")
	case v := <-full:
		t.Errorf("full %d", v)
	default:
		t.Errorf("default")
	}
}

// TestSelectClosedVsAfterZero: a closed channel and time.After(0) in one
// select: the timer is due, so (Go 1.23's timer channels) both cases can
// be chosen.
func TestSelectClosedVsAfterZero(t *testing.T) {
	closed := make(chan int)
	close(closed)
	select {
	case <-closed:
		t.Errorf("closed")
	case <-time.After(0):
		t.Errorf("timer")
	}
}

// TestSelectSendTwoReceivers: a select sends on one of two unbuffered
// channels, each with a receiver that may or may not have arrived yet.
func TestSelectSendTwoReceivers(t *testing.T) {
	a, b := make(chan int), make(chan int)
	got := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		select {
		case <-a:
			got <- "a"
		case <-time.After(50 * time.Millisecond):
		}
	}()
	go func() {
		defer wg.Done()
		select {
		case <-b:
			got <- "b"
		case <-time.After(50 * time.Millisecond):
		}
	}()
	select {
	case a <- 1:
	case b <- 1:
	}
	wg.Wait()
	t.Errorf("received by %s", <-got)
}

// TestChanCap2SendersVsClose: three senders on a channel of capacity 2; the
// root receives one value, then closes it: a sender still to send panics.
func TestChanCap2SendersVsClose(t *testing.T) {
	ch := make(chan int, 2)
	var panics atomic.Int32
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() {
				if recover() != nil {
					panics.Add(1)
				}
			}()
			ch <- i
		}(i)
	}
	first := <-ch
	close(ch)
	wg.Wait()
	n := 1
	for range ch {
		n++
	}
	_ = first
	t.Errorf("received %d, panics %d", n, panics.Load())
}

// TestChanCap3TwoRangers: two goroutines range over a channel of capacity 3
// that the root fills with four values and closes: how the values split.
func TestChanCap3TwoRangers(t *testing.T) {
	ch := make(chan int, 3)
	var mu sync.Mutex
	got := map[string][]int{}
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			for v := range ch {
				mu.Lock()
				got[name] = append(got[name], v)
				mu.Unlock()
			}
		}(name)
	}
	for i := 1; i <= 4; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	t.Errorf("a%v b%v", got["a"], got["b"])
}

// TestChanCloseTwoReceiversOneValue: a channel of capacity 2 holds one
// value when it is closed; two receivers: one gets the value, the other
// the zero value, in either order.
func TestChanCloseTwoReceiversOneValue(t *testing.T) {
	ch := make(chan int, 2)
	ch <- 5
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			v, ok := <-ch
			res <- fmt.Sprintf("%s:%d:%v", name, v, ok)
		}(name)
	}
	close(ch)
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s", strings.Join(r, " "))
}

// TestSyncMapLoadAndDeleteTwo: two goroutines LoadAndDelete one key:
// exactly one of them loads it.
func TestSyncMapLoadAndDeleteTwo(t *testing.T) {
	var m sync.Map
	m.Store("k", 1)
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			_, loaded := m.LoadAndDelete("k")
			res <- fmt.Sprintf("%s=%v", name, loaded)
		}(name)
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s", strings.Join(r, " "))
}

// TestSyncMapCASAbsentVsStore: CompareAndSwap of a key that another
// goroutine may have stored yet or not: it fails on an absent key.
func TestSyncMapCASAbsentVsStore(t *testing.T) {
	var m sync.Map
	done := make(chan bool)
	go func() {
		m.Store("k", 1)
		close(done)
	}()
	swapped := m.CompareAndSwap("k", 1, 2)
	<-done
	v, _ := m.Load("k")
	t.Errorf("swapped %v, now %v", swapped, v)
}

// TestSyncMapSwapTwo: two goroutines Swap one key, starting absent: one of
// them sees it absent, the other sees the first's value.
func TestSyncMapSwapTwo(t *testing.T) {
	var m sync.Map
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			prev, loaded := m.Swap("k", name)
			res <- fmt.Sprintf("%s<-%v,%v", name, prev, loaded)
		}(name)
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	v, _ := m.Load("k")
	t.Errorf("%s final %v", strings.Join(r, " "), v)
}

// TestSyncMapRangeVsClear: Range over three keys while another goroutine
// Clears the map: how many the Range sees.
func TestSyncMapRangeVsClear(t *testing.T) {
	var m sync.Map
	for i := 0; i < 3; i++ {
		m.Store(i, i)
	}
	done := make(chan bool)
	go func() {
		m.Clear()
		close(done)
	}()
	n := 0
	m.Range(func(k, v any) bool {
		n++
		return true
	})
	<-done
	t.Errorf("saw %d", n)
}

// TestAtomicValueSwapTwo: two Swaps of an empty atomic.Value: one sees nil.
func TestAtomicValueSwapTwo(t *testing.T) {
	var v atomic.Value
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			old := v.Swap(name)
			res <- fmt.Sprintf("%s<-%v", name, old)
		}(name)
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s", strings.Join(r, " "))
}

// TestAtomicValueInconsistentType: an int and a string are stored into an
// empty atomic.Value concurrently: the second store panics.
func TestAtomicValueInconsistentType(t *testing.T) {
	var v atomic.Value
	res := make(chan string, 2)
	store := func(name string, x any) {
		defer func() {
			if recover() != nil {
				res <- name + " panicked"
				return
			}
			res <- name + " stored"
		}()
		v.Store(x)
	}
	go store("int", 1)
	go store("string", "s")
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s, holds %v", strings.Join(r, ", "), v.Load())
}

// TestAtomicPointerCASFromLoaded: two goroutines Load a pointer, then CAS
// it from what they loaded: one or both succeed (the second loaded after
// the first's CAS).
func TestAtomicPointerCASFromLoaded(t *testing.T) {
	var p atomic.Pointer[int]
	zero := 0
	p.Store(&zero)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			old := p.Load()
			n := *old + i
			if p.CompareAndSwap(old, &n) {
				wins.Add(1)
			}
		}(i)
	}
	wg.Wait()
	t.Errorf("wins %d, value %d", wins.Load(), *p.Load())
}

// TestOnceValueBlockedCallers: the first caller of a OnceValue runs f,
// which waits for the root; a second caller waits for f: both get f's
// value, finishing in either order.
func TestOnceValueBlockedCallers(t *testing.T) {
	release := make(chan bool)
	var calls atomic.Int32
	get := sync.OnceValue(func() int {
		calls.Add(1)
		<-release
		return 42
	})
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			res <- fmt.Sprintf("%s%d", name, get())
		}(name)
	}
	close(release)
	t.Errorf("%s %s calls %d", <-res, <-res, calls.Load())
}

// TestOnceValuesPanicValue: f of a OnceValues panics with an error; both
// callers (one of which started while f ran) recover that same error.
func TestOnceValuesPanicValue(t *testing.T) {
	errBoom := errors.New("boom")
	get := sync.OnceValues(func() (int, error) {
		panic(errBoom)
	})
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func(name string) {
			defer func() {
				r := recover()
				err, _ := r.(error)
				res <- fmt.Sprintf("%s:%v", name, errors.Is(err, errBoom))
			}()
			get()
		}(name)
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s", strings.Join(r, " "))
}

// TestGoexitRecoverNil: a goroutine's deferred recover while it Goexits
// returns nil, and the deferred calls run in order.
func TestGoexitRecoverNil(t *testing.T) {
	var log []string
	done := make(chan bool)
	go func() {
		defer close(done)
		defer func() { log = append(log, fmt.Sprintf("recover %v", recover())) }()
		defer func() { log = append(log, "inner") }()
		runtime.Goexit()
	}()
	<-done
	t.Errorf("%s", strings.Join(log, ", "))
}

// TestGoexitHoldingLock: a goroutine Goexits while holding a mutex that a
// deferred call releases; the root's Lock waits for it, or was first.
func TestGoexitHoldingLock(t *testing.T) {
	var mu sync.Mutex
	var order []string
	done := make(chan bool)
	go func() {
		defer close(done)
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "g")
		runtime.Goexit()
	}()
	mu.Lock()
	order = append(order, "root")
	mu.Unlock()
	<-done
	t.Errorf("%s", strings.Join(order, " "))
}

// TestGoexitInDeferDuringReturn: a deferred call Goexits while its
// function returns normally: the return value never reaches the caller,
// the other deferred calls still run.
func TestGoexitInDeferDuringReturn(t *testing.T) {
	res := make(chan string, 3)
	done := make(chan bool)
	go func() {
		defer close(done)
		defer func() { res <- "outer" }()
		f := func() int {
			defer runtime.Goexit()
			return 1
		}
		res <- fmt.Sprintf("got %d", f())
	}()
	<-done
	close(res)
	var got []string
	for s := range res {
		got = append(got, s)
	}
	t.Errorf("%s", strings.Join(got, ", "))
}

// TestErrorsJoinOfGoroutines: two goroutines add their errors to a list,
// joined after both ended: the order of the join is the order they came.
func TestErrorsJoinOfGoroutines(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			mu.Lock()
			errs = append(errs, errors.New(name))
			mu.Unlock()
		}(name)
	}
	wg.Wait()
	err := errors.Join(errs...)
	t.Errorf("%q", err.Error())
}

// TestCondBroadcastTimeout: a goroutine waits on a sync.Cond for a flag; a
// timer broadcasts as a timeout, the root sets the flag and broadcasts.
func TestCondBroadcastTimeout(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready, timedOut := false, false
	tm := time.AfterFunc(time.Millisecond, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cond.Broadcast()
	})
	defer tm.Stop()
	res := make(chan string, 1)
	go func() {
		mu.Lock()
		for !ready && !timedOut {
			cond.Wait()
		}
		res <- fmt.Sprintf("ready %v timedOut %v", ready, timedOut)
		mu.Unlock()
	}()
	mu.Lock()
	ready = true
	mu.Unlock()
	cond.Broadcast()
	t.Errorf("%s", <-res)
}

// TestGoschedSpin: a goroutine polls an atomic flag at most three times,
// yielding with runtime.Gosched between polls, while the root sets it.
func TestGoschedSpin(t *testing.T) {
	var flag atomic.Bool
	res := make(chan bool)
	go func() {
		seen := flag.Load()
		for i := 0; i < 2 && !seen; i++ {
			runtime.Gosched()
			seen = flag.Load()
		}
		res <- seen
	}()
	runtime.Gosched()
	flag.Store(true)
	t.Errorf("seen %v", <-res)
}

// TestLockOSThreadExit: a goroutine locks its thread and ends without
// unlocking it (its thread ends with it); another unlocks after locking.
func TestLockOSThreadExit(t *testing.T) {
	var n atomic.Int32
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		n.Add(1)
	}()
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		n.Add(2)
	}()
	wg.Wait()
	t.Errorf("n %d", n.Load())
}
