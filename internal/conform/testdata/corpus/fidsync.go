package prog

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Package sync and sync/atomic beyond the basics (fidelity audit): Cond
// Broadcast, WaitGroup.Go and reuse, OnceValue, sync.Map iterations
// racing writes, atomic.Value and atomic.Pointer, RWMutex writer
// preference, sync.Pool across goroutines and garbage collections.

// TestCondBroadcastOrder: three goroutines wait on a Cond; one Broadcast
// wakes them all, and they reacquire the mutex in some order. (A version
// that waited for them with a Gosched loop took heddle 500,000 steps.)
func TestCondBroadcastOrder(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var order []string
	var wg sync.WaitGroup
	for _, name := range []string{"A", "B", "C"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			c.Wait()
			order = append(order, name)
			mu.Unlock()
		}()
	}
	time.Sleep(fidSleep)
	mu.Lock()
	c.Broadcast()
	mu.Unlock()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, ""))
}

// TestCondSignalRace: a Signal racing two goroutines that are about to
// wait: it wakes one of those waiting at the time, or none.
func TestCondSignalRace(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	woke := make(chan string, 2)
	for _, name := range []string{"A", "B"} {
		go func() {
			mu.Lock()
			c.Wait()
			mu.Unlock()
			woke <- name
		}()
	}
	mu.Lock()
	c.Signal()
	mu.Unlock()
	select {
	case w := <-woke:
		t.Errorf("woke %s", w)
	case <-time.After(10 * time.Millisecond):
		t.Errorf("none woke")
	}
	mu.Lock()
	c.Broadcast()
	mu.Unlock()
}

// TestWaitGroupGo: wg.Go (Go 1.25) runs two functions; the order they
// append in is reported.
func TestWaitGroupGo(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var order []int
	for i := 1; i <= 2; i++ {
		wg.Go(func() {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Errorf("order %v", order)
}

// TestWaitGroupReuse: a WaitGroup reused for a second round, whose
// goroutine a first-round goroutine starts.
func TestWaitGroupReuse(t *testing.T) {
	var wg sync.WaitGroup
	var n atomic.Int32
	second := make(chan bool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.Add(1)
		go func() {
			<-second
			n.Add(10)
			wg.Done()
		}()
	}()
	wg.Wait()
	first := n.Load()
	wg.Add(1)
	second <- true
	wg.Wait()
	t.Errorf("after round 1: %d, after round 2: %d", first, n.Load())
}

// TestWaitGroupNegative: one Done too many panics.
func TestWaitGroupNegative(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan bool)
	go func() {
		wg.Done()
		done <- true
	}()
	<-done
	wg.Done()
}

// TestOnceValueRace: two goroutines call a OnceValue function; f runs
// once and both get its value, which counts how many goroutines had
// arrived.
func TestOnceValueRace(t *testing.T) {
	var arrived atomic.Int32
	calls := 0
	f := sync.OnceValue(func() int32 {
		calls++
		return arrived.Load()
	})
	got := make(chan int32, 2)
	for i := 0; i < 2; i++ {
		go func() {
			arrived.Add(1)
			got <- f()
		}()
	}
	a, b := <-got, <-got
	t.Errorf("calls %d values %d %d", calls, a, b)
}

// TestOnceValuesPanic: OnceValues whose f panics in one goroutine: the
// other goroutine gets the same panic.
func TestOnceValuesPanic(t *testing.T) {
	f := sync.OnceValues(func() (int, error) { panic("once") })
	got := make(chan string, 2)
	for i := 0; i < 2; i++ {
		go func() {
			defer func() { got <- fmt.Sprint(recover()) }()
			f()
		}()
	}
	t.Errorf("%s %s", <-got, <-got)
}

// TestSyncMapRangeStore: Range iterating while a goroutine stores a and
// then b: Range is no snapshot, and it may see b's new value but a's old
// one.
func TestSyncMapRangeStore(t *testing.T) {
	var m sync.Map
	m.Store("a", 0)
	m.Store("b", 0)
	done := make(chan bool)
	go func() {
		m.Store("a", 1)
		m.Store("b", 1)
		done <- true
	}()
	seen := map[string]int{}
	m.Range(func(k, v any) bool {
		seen[k.(string)] = v.(int)
		return true
	})
	<-done
	t.Errorf("a=%d b=%d", seen["a"], seen["b"])
}

// TestSyncMapRangeNewKeys: Range racing a goroutine that adds keys and
// deletes one: which keys it sees.
func TestSyncMapRangeNewKeys(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	done := make(chan bool)
	go func() {
		m.Store("b", 2)
		m.Delete("a")
		done <- true
	}()
	var keys []string
	m.Range(func(k, v any) bool {
		keys = append(keys, k.(string))
		return true
	})
	<-done
	sort.Strings(keys)
	t.Errorf("keys %v", keys)
}

// TestSyncMapLoadOrStore: two goroutines LoadOrStore the same key, a
// third CompareAndSwaps it.
func TestSyncMapLoadOrStore(t *testing.T) {
	var m sync.Map
	got := make(chan string, 3)
	for _, v := range []string{"x", "y"} {
		go func() {
			a, loaded := m.LoadOrStore("k", v)
			got <- fmt.Sprintf("%s:%v:%v", v, a, loaded)
		}()
	}
	go func() {
		got <- fmt.Sprintf("cas:%v", m.CompareAndSwap("k", "x", "z"))
	}()
	r := []string{<-got, <-got, <-got}
	sort.Strings(r)
	v, _ := m.Load("k")
	t.Errorf("%v final %v", r, v)
}

type config struct{ a, b int }

// TestAtomicValuePointer: an atomic.Value and an atomic.Pointer published
// by one goroutine and read by another that does not wait.
func TestAtomicValuePointer(t *testing.T) {
	var v atomic.Value
	var p atomic.Pointer[config]
	done := make(chan bool)
	go func() {
		v.Store(config{1, 2})
		old := p.Swap(&config{3, 4})
		if old != nil {
			t.Errorf("old %v", old)
		}
		done <- true
	}()
	x := v.Load()
	y := p.Load()
	swapped := p.CompareAndSwap(nil, &config{5, 6})
	<-done
	t.Errorf("value %v pointer %v swapped %v final %v", x, y, swapped, *p.Load())
}

// TestAtomicAndOr: And and Or (Go 1.23) return the old value: which one
// ran first shows.
func TestAtomicAndOr(t *testing.T) {
	var x atomic.Uint32
	x.Store(0b0110)
	got := make(chan uint32, 1)
	go func() { got <- x.Or(0b1000) }()
	a := x.And(0b1100)
	b := <-got
	t.Errorf("and saw %04b, or saw %04b, final %04b", a, b, x.Load())
}

// TestRWMutexWriterPreference: a reader arriving after a blocked writer
// waits for the writer (Go's writer preference), and TryRLock fails.
func TestRWMutexWriterPreference(t *testing.T) {
	var rw sync.RWMutex
	got := make(chan string, 2)
	rw.RLock()
	go func() { rw.Lock(); got <- "W"; rw.Unlock() }()
	time.Sleep(fidSleep)
	try := rw.TryRLock()
	if try {
		rw.RUnlock()
	}
	go func() { rw.RLock(); got <- "R"; rw.RUnlock() }()
	time.Sleep(fidSleep)
	rw.RUnlock()
	first := <-got
	<-got
	t.Errorf("TryRLock %v first %s", try, first)
}

// TestRWMutexRecursiveRead: a recursive RLock deadlocks once a writer
// waits between the two RLocks.
func TestRWMutexRecursiveRead(t *testing.T) {
	var rw sync.RWMutex
	done := make(chan bool)
	rw.RLock()
	go func() {
		rw.Lock()
		rw.Unlock()
		done <- true
	}()
	time.Sleep(fidSleep)
	rw.RLock()
	rw.RUnlock()
	rw.RUnlock()
	<-done
}

// TestMutexTryLockWaiter: TryLock right after Unlock, with a goroutine
// queued on the mutex: in normal mode it may barge in.
func TestMutexTryLockWaiter(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	mu.Lock()
	go func() { mu.Lock(); mu.Unlock(); done <- true }()
	time.Sleep(fidSleep)
	mu.Unlock()
	ok := mu.TryLock()
	if ok {
		mu.Unlock()
	}
	<-done
	t.Errorf("TryLock %v", ok)
}

// TestUnlockUnlocked: unlocking an unlocked mutex is a fatal error.
func TestUnlockUnlocked(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	<-done
	mu.Unlock()
}

// TestPoolAcrossGoroutines: a goroutine Puts while the test Gets: Get
// returns the value or calls New.
func TestPoolAcrossGoroutines(t *testing.T) {
	p := sync.Pool{New: func() any { return "new" }}
	done := make(chan bool)
	go func() {
		p.Put("put")
		done <- true
	}()
	v := p.Get()
	<-done
	t.Errorf("got %v", v)
}

// TestPoolAfterGC: two garbage collections empty a Pool: Get calls New.
func TestPoolAfterGC(t *testing.T) {
	p := sync.Pool{New: func() any { return "new" }}
	p.Put("put")
	runtime.GC()
	runtime.GC()
	t.Errorf("got %v", p.Get())
}

// TestWaitGroupReuseEarly: a WaitGroup reused (Add from zero) before a
// goroutine woken from Wait returned: natively that goroutine panics if
// it had not resumed yet.
func TestWaitGroupReuseEarly(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan bool)
	go func() {
		wg.Wait()
		done <- true
	}()
	wg.Done()
	wg.Add(1)
	wg.Done()
	<-done
}

// fidSleep lets the goroutines started before it block and queue (longer
// than heddle's -max-starve, as syncfifo.go's queueSleep).
const fidSleep = 150 * time.Millisecond
