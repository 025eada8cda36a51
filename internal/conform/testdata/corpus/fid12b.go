package prog

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// More of the twelfth audit: RWMutex, TryLock, Broadcast and atomics
// reached through interfaces, method expressions used as values, timers
// embedded in structs, an AfterFunc timer's nil channel, the RWMutex
// misuse Go detects, and parallel subtests beside their parent's defer
// and cleanup.

// TestRWMutexReadThroughInterface: two readers lock through an interface
// with RLock and RUnlock; a writer locks directly and logs between; the
// readers' logs stay inside their read sections.
func TestRWMutexReadThroughInterface(t *testing.T) {
	var rw sync.RWMutex
	var r interface {
		RLock()
		RUnlock()
	} = &rw
	var n atomic.Int32
	var bad atomic.Bool
	done := make(chan bool)
	go func() {
		r.RLock()
		a := n.Load()
		b := n.Load()
		if a != b {
			bad.Store(true)
		}
		r.RUnlock()
		close(done)
	}()
	rw.Lock()
	n.Add(1)
	n.Add(1)
	rw.Unlock()
	<-done
	t.Errorf("torn %v", bad.Load())
}

// TestTryLockThroughInterface: the test holds a mutex while a goroutine
// tries it through an interface; it succeeds only after the Unlock.
func TestTryLockThroughInterface(t *testing.T) {
	var mu sync.Mutex
	var tl interface{ TryLock() bool } = &mu
	mu.Lock()
	res := make(chan bool)
	go func() {
		ok := tl.TryLock()
		if ok {
			mu.Unlock()
		}
		res <- ok
	}()
	mu.Unlock()
	t.Errorf("try %v", <-res)
}

// TestCondBroadcastThroughInterface: two waiters, a Broadcast through an
// interface wakes both.
func TestCondBroadcastThroughInterface(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var b interface{ Broadcast() } = c
	ready := false
	var wg sync.WaitGroup
	var waited atomic.Int32
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for !ready {
				waited.Add(1)
				c.Wait()
			}
			mu.Unlock()
		}()
	}
	mu.Lock()
	ready = true
	mu.Unlock()
	b.Broadcast()
	wg.Wait()
	t.Errorf("waited %d", waited.Load())
}

// TestAtomicStoreThroughInterface: a goroutine stores 1 then 2 through an
// interface over an atomic.Int32; the test loads once: 0, 1 or 2.
func TestAtomicStoreThroughInterface(t *testing.T) {
	var n atomic.Int32
	var s interface{ Store(int32) } = &n
	done := make(chan bool)
	go func() {
		s.Store(1)
		s.Store(2)
		close(done)
	}()
	v := n.Load()
	<-done
	t.Errorf("saw %d", v)
}

// TestMethodExpressionValues: WaitGroup.Done and Mutex.Lock/Unlock as
// method expressions stored in variables.
func TestMethodExpressionValues(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := (*sync.WaitGroup).Done
	lock, unlock := (*sync.Mutex).Lock, (*sync.Mutex).Unlock
	var log []string
	wg.Add(2)
	for _, name := range []string{"a", "b"} {
		go func() {
			defer done(&wg)
			lock(&mu)
			log = append(log, name+"1")
			log = append(log, name+"2")
			unlock(&mu)
		}()
	}
	wg.Wait()
	t.Errorf("%s", strings.Join(log, " "))
}

type deadlineTimer struct {
	*time.Timer
	name string
}

// TestEmbeddedTimerStop: a timer embedded in a struct is stopped through
// the promoted method: a Reset after it finds it inactive.
func TestEmbeddedTimerStop(t *testing.T) {
	d := deadlineTimer{Timer: time.NewTimer(time.Hour), name: "d"}
	stopped := d.Stop()
	active := d.Reset(time.Millisecond)
	<-d.C
	t.Errorf("%s stopped %v, then active %v", d.name, stopped, active)
}

// TestAfterFuncTimerChanNil: an AfterFunc timer's C is nil: a select on
// it and on the function's signal takes the signal.
func TestAfterFuncTimerChanNil(t *testing.T) {
	done := make(chan bool)
	tm := time.AfterFunc(time.Millisecond, func() { close(done) })
	select {
	case <-tm.C:
		t.Errorf("C delivered")
	case <-done:
		t.Errorf("func ran, C nil %v", tm.C == nil)
	}
}

// TestTimerZeroStopImmediately: a timer of 0 stopped at once; Go 1.23's
// timer channels deliver nothing after Stop, whatever Stop returned.
func TestTimerZeroStopImmediately(t *testing.T) {
	tm := time.NewTimer(0)
	s := tm.Stop()
	select {
	case <-tm.C:
		t.Errorf("stop %v, then a value", s)
	default:
		t.Errorf("stop %v, nothing", s)
	}
}

// TestTimerResetAfterExpiryUnreceived: a timer expired while nobody
// received; Reset's result, and no stale value after it.
func TestTimerResetAfterExpiryUnreceived(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	r := tm.Reset(time.Hour)
	select {
	case <-tm.C:
		t.Errorf("reset %v, stale value", r)
	default:
		t.Errorf("reset %v, nothing", r)
	}
	tm.Stop()
}

// TestRWMutexUnlockOfReadLocked: Unlock of a read-locked RWMutex is Go's
// fatal error.
func TestRWMutexUnlockOfReadLocked(t *testing.T) {
	var rw sync.RWMutex
	rw.RLock()
	rw.Unlock()
	t.Errorf("returned")
}

// TestRWMutexRUnlockOfWriteLocked: RUnlock of a write-locked RWMutex is
// Go's fatal error.
func TestRWMutexRUnlockOfWriteLocked(t *testing.T) {
	var rw sync.RWMutex
	rw.Lock()
	rw.RUnlock()
	t.Errorf("returned")
}

// TestParallelSubtestsBesideParentDeferAndCleanup: the parent's defer runs
// before its parallel subtests, its cleanup after both; the subtests in
// either order.
func TestParallelSubtestsBesideParentDeferAndCleanup(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	t.Run("group", func(t *testing.T) {
		t.Cleanup(func() { add("cleanup") })
		defer add("defer")
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				add(name)
			})
		}
	})
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestParallelSubtestContextVsSiblingCleanup: a parallel subtest's
// t.Context is cancelled when it ends, before its cleanups; the sibling
// observes it (or not yet) through a channel.
func TestParallelSubtestContextVsSiblingCleanup(t *testing.T) {
	var seen atomic.Value
	seen.Store("none")
	ch := make(chan bool, 1)
	t.Run("group", func(t *testing.T) {
		t.Run("a", func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			go func() { <-ctx.Done(); ch <- true }()
		})
		t.Run("b", func(t *testing.T) {
			t.Parallel()
			select {
			case <-ch:
				seen.Store("a done")
			default:
				seen.Store("a running")
			}
		})
	})
	t.Errorf("%v", seen.Load())
}

// TestWaitGroupGoThroughMethodValue: WaitGroup.Go called through a method
// value, twice; the two functions log in either order.
func TestWaitGroupGoThroughMethodValue(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var log []string
	spawn := wg.Go
	for _, s := range []string{"a", "b"} {
		spawn(func() {
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestOnceDoMethodValue: once.Do through a method value from two
// goroutines; the winner's name is recorded once.
func TestOnceDoMethodValue(t *testing.T) {
	var once sync.Once
	do := once.Do
	var winner atomic.Value
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(func() { winner.Store(s) })
		}()
	}
	wg.Wait()
	t.Errorf("winner %v", winner.Load())
}

// TestAtomicPointerCASMethodValue: two goroutines claim an atomic.Pointer
// through a method value of CompareAndSwap; one wins.
func TestAtomicPointerCASMethodValue(t *testing.T) {
	var p atomic.Pointer[string]
	cas := p.CompareAndSwap
	var wg sync.WaitGroup
	wins := make([]bool, 2)
	for i, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wins[i] = cas(nil, &s)
		}()
	}
	wg.Wait()
	t.Errorf("owner %s wins %v", *p.Load(), wins)
}

type kvStore interface {
	Load(key any) (any, bool)
	Store(key, value any)
}

// TestSyncMapThroughInterface: a goroutine stores a key twice through an
// interface over a sync.Map; the test loads it once: absent, 1 or 2.
func TestSyncMapThroughInterface(t *testing.T) {
	var m sync.Map
	var kv kvStore = &m
	done := make(chan bool)
	go func() {
		kv.Store("k", 1)
		kv.Store("k", 2)
		close(done)
	}()
	v, ok := m.Load("k")
	<-done
	t.Errorf("saw %v %v", v, ok)
}

// TestSyncMapRangeThroughInterface: a Range through an interface beside
// a goroutine's Store of a second key: the range sees one key or two.
func TestSyncMapRangeThroughInterface(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	var r interface {
		Range(func(key, value any) bool)
	} = &m
	done := make(chan bool)
	go func() {
		m.Store("b", 2)
		close(done)
	}()
	n := 0
	r.Range(func(key, value any) bool { n++; return true })
	<-done
	t.Errorf("ranged %d", n)
}
