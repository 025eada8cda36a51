package prog

import (
	"sync"
	"testing"
)

// TestMutexOrder: two critical sections on one variable, in either order.
func TestMutexOrder(t *testing.T) {
	var mu sync.Mutex
	x := 1
	done := make(chan bool)
	go func() {
		mu.Lock()
		x = x * 3
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	x = x + 2
	mu.Unlock()
	<-done
	t.Errorf("x=%d", x)
}

// TestTryLockRace: TryLock racing a critical section.
func TestTryLockRace(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	got := mu.TryLock()
	if got {
		mu.Unlock()
	}
	<-done
	t.Errorf("TryLock %v", got)
}

// TestRWMutexReaders: readers and a writer; each reader reports what it
// saw.
func TestRWMutexReaders(t *testing.T) {
	var rw sync.RWMutex
	x := 0
	seen := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			rw.RLock()
			seen <- x
			rw.RUnlock()
		}()
	}
	rw.Lock()
	x = 1
	rw.Unlock()
	a, b := <-seen, <-seen
	t.Errorf("readers saw %d", a+b)
}

// TestRWTryLock: TryRLock and TryLock racing a writer.
func TestRWTryLock(t *testing.T) {
	var rw sync.RWMutex
	done := make(chan bool)
	go func() {
		rw.Lock()
		rw.Unlock()
		done <- true
	}()
	r := rw.TryRLock()
	if r {
		rw.RUnlock()
	}
	w := rw.TryLock()
	if w {
		rw.Unlock()
	}
	<-done
	t.Errorf("TryRLock %v TryLock %v", r, w)
}

// TestWaitGroupValues: goroutines joined with a WaitGroup, each appending
// under a mutex.
func TestWaitGroupValues(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var order []int
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Errorf("order %v", order)
}

// TestOnceWinner: two goroutines race to run a Once.
func TestOnceWinner(t *testing.T) {
	var once sync.Once
	winner := 0
	done := make(chan bool)
	for i := 1; i <= 2; i++ {
		go func() {
			once.Do(func() { winner = i })
			done <- true
		}()
	}
	<-done
	<-done
	t.Errorf("winner %d", winner)
}

// TestCondWakeups: a waiter on a Cond with a predicate loop, and a
// signaller; the waiter reports how many times it waited.
func TestCondWakeups(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	waits := make(chan int)
	go func() {
		mu.Lock()
		n := 0
		for !ready {
			n++
			cond.Wait()
		}
		mu.Unlock()
		waits <- n
	}()
	mu.Lock()
	ready = true
	cond.Signal()
	mu.Unlock()
	t.Errorf("waited %d times", <-waits)
}

// TestCondLostSignal: a Signal without a predicate is lost when it comes
// before the Wait: the waiter then leaks.
func TestCondLostSignal(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	go func() {
		mu.Lock()
		cond.Wait()
		mu.Unlock()
	}()
	mu.Lock()
	cond.Signal()
	mu.Unlock()
}

// TestWaitGroupWaitPoll: a non-blocking check of a WaitGroup's goroutine
// through a channel, racing its Done.
func TestWaitGroupWaitPoll(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	finished := make(chan bool, 1)
	go func() {
		defer wg.Done()
		finished <- true
	}()
	select {
	case <-finished:
		t.Error("finished before the poll")
	default:
		t.Error("running at the poll")
	}
	wg.Wait()
}
