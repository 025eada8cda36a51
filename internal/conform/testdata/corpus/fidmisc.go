package prog

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Odds and ends of Go's semantics (fidelity audit): locks released by
// another goroutine, misuse Go detects, copies of locked mutexes,
// recursive Once, goroutine counts, selects that cannot pair with
// themselves, the order of context.AfterFunc's function and Done's
// receivers, time read after sleeps and timers.

// TestUnlockOtherGoroutine: a Mutex and an RWMutex's read lock released by
// another goroutine than the one that locked them (Go allows it).
func TestUnlockOtherGoroutine(t *testing.T) {
	var mu sync.Mutex
	var rw sync.RWMutex
	mu.Lock()
	rw.RLock()
	done := make(chan bool)
	go func() {
		mu.Unlock()
		rw.RUnlock()
		done <- true
	}()
	mu.Lock()
	rw.Lock()
	<-done
	t.Error("relocked")
}

// TestCondWaitUnlocked: Wait without holding the lock is a fatal error.
func TestCondWaitUnlocked(t *testing.T) {
	c := sync.NewCond(&sync.Mutex{})
	go func() {
		time.Sleep(time.Millisecond)
		c.Broadcast()
	}()
	c.Wait()
}

// TestCopiedLockedMutex: a copy of a locked mutex is locked.
func TestCopiedLockedMutex(t *testing.T) {
	type box struct {
		mu sync.Mutex
		n  int
	}
	var a box
	a.mu.Lock()
	b := a //nolint:govet // the copy is the point
	got := make(chan bool, 1)
	go func() {
		got <- b.mu.TryLock()
	}()
	t.Errorf("TryLock of the copy %v", <-got)
	a.mu.Unlock()
}

// TestOnceRecursive: a Once whose function calls Do again deadlocks.
func TestOnceRecursive(t *testing.T) {
	var once sync.Once
	var f func()
	f = func() { once.Do(f) }
	f()
}

// TestNumGoroutineDelta: a goroutine that sent its last value may not
// have exited yet when the receiver counts goroutines.
func TestNumGoroutineDelta(t *testing.T) {
	before := runtime.NumGoroutine()
	done := make(chan bool)
	go func() { done <- true }()
	<-done
	t.Errorf("delta %d", runtime.NumGoroutine()-before)
}

// TestSelectSelfPair: a select with a send and a receive on one channel
// never pairs with itself; two such selects pair with each other.
func TestSelectSelfPair(t *testing.T) {
	c := make(chan int)
	res := make(chan string, 2)
	sel := func(name string) {
		select {
		case c <- 1:
			res <- name + " sent"
		case <-c:
			res <- name + " received"
		case <-time.After(20 * time.Millisecond):
			res <- name + " alone"
		}
	}
	go sel("A")
	sel("B")
	t.Errorf("%s, %s", <-res, <-res)
}

// TestContextAfterFuncVsDone: a canceled context's AfterFunc function and
// a goroutine waiting on Done run in either order.
func TestContextAfterFuncVsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	order := make(chan string, 2)
	context.AfterFunc(ctx, func() { order <- "afterfunc" })
	go func() { <-ctx.Done(); order <- "done" }()
	cancel()
	t.Errorf("%s first", <-order)
	<-order
}

// TestWaitGroupTwoWaiters: two goroutines Wait on one WaitGroup; both
// return after the Done, in some order.
func TestWaitGroupTwoWaiters(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	got := make(chan string, 2)
	for _, n := range []string{"A", "B"} {
		go func() { wg.Wait(); got <- n }()
	}
	wg.Done()
	t.Errorf("%s%s", <-got, <-got)
}

// TestTimeMonotonic: time read after a Sleep, a timer's value and a
// context's deadline are never early.
func TestTimeMonotonic(t *testing.T) {
	start := time.Now()
	time.Sleep(2 * time.Millisecond)
	slept := time.Since(start)
	created := time.Now()
	tm := time.NewTimer(3 * time.Millisecond)
	at := <-tm.C
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	dl, _ := ctx.Deadline()
	<-ctx.Done()
	late := !time.Now().Before(dl)
	t.Errorf("slept enough %v timer late enough %v after deadline %v", slept >= 2*time.Millisecond,
		at.Sub(created) >= 3*time.Millisecond, late)
}
