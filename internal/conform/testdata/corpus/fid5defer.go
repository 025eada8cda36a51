package prog

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Fifth audit: deferred calls whose step heddle takes (an atomic's
// method, a sync.Map's), which must be taken when the deferred call
// runs, not at the defer statement; and a Once whose function exits the
// goroutine.

// TestDeferAtomicStoreAfterRendezvous: a goroutine's deferred Store runs
// after it met the test on a channel; the test's Load after the meeting
// sees it or not.
func TestDeferAtomicStoreAfterRendezvous(t *testing.T) {
	var running atomic.Bool
	running.Store(true)
	ch := make(chan bool)
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		defer running.Store(false)
		ch <- true
	}()
	<-ch
	v := running.Load()
	<-done
	t.Errorf("running %v", v)
}

// TestDeferAtomicAddFuncAfterRendezvous: the same with atomic.AddInt32,
// whose step heddle takes in its first argument.
func TestDeferAtomicAddFuncAfterRendezvous(t *testing.T) {
	var n int32
	ch := make(chan bool)
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		defer atomic.AddInt32(&n, 1)
		ch <- true
	}()
	<-ch
	v := atomic.LoadInt32(&n)
	<-done
	t.Errorf("n %d", v)
}

// TestDeferSyncMapStoreAfterRendezvous: the same with a sync.Map.
func TestDeferSyncMapStoreAfterRendezvous(t *testing.T) {
	var m sync.Map
	ch := make(chan bool)
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		defer m.Store("k", 1)
		ch <- true
	}()
	<-ch
	_, ok := m.Load("k")
	<-done
	t.Errorf("stored %v", ok)
}

// TestOnceGoexit: a Once whose function exits its goroutine counts as
// done; the other goroutine's Do runs its function only if it came
// first.
func TestOnceGoexit(t *testing.T) {
	var once sync.Once
	var ran atomic.Bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		once.Do(func() { runtime.Goexit() })
	}()
	go func() {
		defer wg.Done()
		once.Do(func() { ran.Store(true) })
	}()
	wg.Wait()
	t.Errorf("ran %v", ran.Load())
}

// TestAtomicPointerCASRace: two goroutines compare-and-swap an
// atomic.Pointer from the same old value: one wins.
func TestAtomicPointerCASRace(t *testing.T) {
	var p atomic.Pointer[string]
	old := new(string)
	p.Store(old)
	res := make(chan string, 2)
	for _, s := range []string{"a", "b"} {
		go func() {
			v := s
			if p.CompareAndSwap(old, &v) {
				res <- s
			} else {
				res <- ""
			}
		}()
	}
	a, b := <-res, <-res
	t.Errorf("won %q, final %s", a+b, *p.Load())
}

// TestAtomicStoreOfReceive: the value an atomic Store stores comes from
// a receive; the Store happens after the rendezvous, and the test's Load
// after it sees it or not.
func TestAtomicStoreOfReceive(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan bool)
	go func() {
		n.Store(<-ch)
		done <- true
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestSyncMapStoreOfReceive: the same with a sync.Map's Store.
func TestSyncMapStoreOfReceive(t *testing.T) {
	var m sync.Map
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		m.Store("k", <-ch)
		done <- true
	}()
	ch <- 1
	_, ok := m.Load("k")
	<-done
	t.Errorf("stored %v", ok)
}

// TestAtomicSwapOfReceive: TestAtomicStoreOfReceive with a Swap whose
// result is kept.
func TestAtomicSwapOfReceive(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan int32)
	go func() {
		old := n.Swap(<-ch)
		done <- old
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}

// TestAtomicCASOfReceiveInIf: TestAtomicStoreOfReceive with a
// CompareAndSwap in an if condition, where the rewriter has no room to
// evaluate the receive first.
func TestAtomicCASOfReceiveInIf(t *testing.T) {
	var n atomic.Int32
	ch := make(chan int32)
	done := make(chan bool)
	go func() {
		swapped := false
		if n.CompareAndSwap(0, <-ch) {
			swapped = true
		}
		done <- swapped
	}()
	ch <- 1
	v := n.Load()
	<-done
	t.Errorf("n %d", v)
}
