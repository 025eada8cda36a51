package syncs

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Synchronization through interfaces and function values: the dynamic
// value is a sync, time or atomic type's.

type doneWaiter interface {
	Done()
	Wait()
}

func TestWaitGroupThroughInterface(t *testing.T) {
	var wg sync.WaitGroup
	var dw doneWaiter = &wg
	var n atomic.Int32
	wg.Add(2)
	for range 2 {
		go func() {
			n.Add(1)
			dw.Done()
		}()
	}
	dw.Wait()
	if n.Load() != 2 {
		t.Fatal("Wait returned early")
	}
}

func TestCondSignalThroughInterface(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var s interface{ Signal() } = c
	ready := false
	done := make(chan bool)
	go func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		close(done)
	}()
	mu.Lock()
	ready = true
	mu.Unlock()
	s.Signal()
	<-done
}

func TestTimerStopThroughInterface(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	var s interface {
		Stop() bool
		Reset(time.Duration) bool
	} = tm
	if !s.Stop() {
		t.Fatal("Stop of an active timer returned false")
	}
	if s.Reset(time.Millisecond) {
		t.Fatal("Reset of a stopped timer returned true")
	}
	<-tm.C
}

func TestAtomicFuncValue(t *testing.T) {
	var n int64
	add, load := atomic.AddInt64, atomic.LoadInt64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			add(&n, 1)
		}()
	}
	wg.Wait()
	if load(&n) != 2 {
		t.Fatal("lost an add")
	}
}
