package prog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Third fidelity audit: standard-library synchronization heddle does not
// rewrite (log.Logger, io.Pipe, net.Pipe), unbuffered handoffs to several
// receivers, sync.Map and atomic compare-and-swap races, AfterFunc's f
// while it runs, context.AfterFunc on a done context, panic(nil), a read
// lock released by another goroutine, and t.Context.

// TestLoggerTwoGoroutines: two goroutines log through one log.Logger;
// its lock (in package log, not rewritten) orders the lines either way.
func TestLoggerTwoGoroutines(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Print(s)
		}()
	}
	wg.Wait()
	t.Errorf("%q", buf.String())
}

// TestPipeFprintTwoWriters: two goroutines write to an io.Pipe with
// fmt.Fprint (through the io.Writer interface); the reader gets the
// writes whole, in either order.
func TestPipeFprintTwoWriters(t *testing.T) {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprint(w, s)
		}()
	}
	go func() {
		wg.Wait()
		w.Close()
	}()
	b, err := io.ReadAll(r)
	t.Errorf("%s %v", b, err)
}

// TestNetPipeTwoWriters: the same with net.Pipe.
func TestNetPipeTwoWriters(t *testing.T) {
	a, b := net.Pipe()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Write([]byte(s))
		}()
	}
	go func() {
		wg.Wait()
		a.Close()
	}()
	got, err := io.ReadAll(b)
	t.Errorf("%s %v", got, err)
}

// TestPipeReadPartial: a Read with a short buffer takes part of a write;
// the writer waits until the rest is read; a Close by the reader while
// the writer waits fails the rest of the write.
func TestPipeReadPartial(t *testing.T) {
	r, w := io.Pipe()
	res := make(chan string, 1)
	go func() {
		n, err := w.Write([]byte("abcd"))
		res <- fmt.Sprintf("wrote %d %v", n, err)
	}()
	buf := make([]byte, 2)
	n, _ := r.Read(buf)
	r.CloseWithError(errors.New("stop"))
	t.Errorf("read %q, %s", buf[:n], <-res)
}

// TestUnbufferedThreeReceivers: three goroutines receive from one
// unbuffered channel; the test sends 1, 2, 3: any receiver may get any
// value.
func TestUnbufferedThreeReceivers(t *testing.T) {
	ch := make(chan int)
	res := make(chan string, 3)
	for _, name := range []string{"a", "b", "c"} {
		name := name
		go func() { res <- fmt.Sprint(name, <-ch) }()
	}
	for i := 1; i <= 3; i++ {
		ch <- i
	}
	got := []string{<-res, <-res, <-res}
	sort.Strings(got)
	t.Errorf("%s", strings.Join(got, " "))
}

// TestSyncMapRangeDelete: Range while another goroutine deletes a key and
// stores a new one: Range sees each key at most once, a deleted key maybe.
func TestSyncMapRangeDelete(t *testing.T) {
	var m sync.Map
	m.Store(1, 1)
	m.Store(2, 2)
	done := make(chan bool)
	go func() {
		m.Delete(2)
		m.Store(3, 3)
		close(done)
	}()
	var keys []int
	m.Range(func(k, _ any) bool {
		keys = append(keys, k.(int))
		return true
	})
	<-done
	sort.Ints(keys)
	t.Errorf("%v", keys)
}

// TestSyncMapSwapVsCAS: CompareAndSwap and Swap of one key race.
func TestSyncMapSwapVsCAS(t *testing.T) {
	var m sync.Map
	m.Store("k", 0)
	var cas bool
	var old any
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cas = m.CompareAndSwap("k", 0, 1) }()
	go func() { defer wg.Done(); old, _ = m.Swap("k", 2) }()
	wg.Wait()
	v, _ := m.Load("k")
	t.Errorf("cas %v swapped out %v final %v", cas, old, v)
}

// TestAtomicValueCASFromNil: two goroutines CompareAndSwap an empty
// atomic.Value from nil: one wins.
func TestAtomicValueCASFromNil(t *testing.T) {
	var v atomic.Value
	var a, b bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = v.CompareAndSwap(nil, "a") }()
	go func() { defer wg.Done(); b = v.CompareAndSwap(nil, "b") }()
	wg.Wait()
	t.Errorf("a %v b %v final %v", a, b, v.Load())
}

// TestAtomicPointerSwaps: two Swaps of an atomic.Pointer: each sees the
// value before it.
func TestAtomicPointerSwaps(t *testing.T) {
	var p atomic.Pointer[string]
	s0, s1, s2 := "0", "1", "2"
	p.Store(&s0)
	var o1, o2 *string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); o1 = p.Swap(&s1) }()
	go func() { defer wg.Done(); o2 = p.Swap(&s2) }()
	wg.Wait()
	t.Errorf("1 got %s, 2 got %s, final %s", *o1, *o2, *p.Load())
}

// TestAfterFuncStopWhileRunning: an AfterFunc's f is running (blocked):
// Stop returns false, Reset returns false and starts f again beside the
// first call.
func TestAfterFuncStopWhileRunning(t *testing.T) {
	started := make(chan int, 2)
	release := make(chan struct{})
	var calls atomic.Int32
	tm := time.AfterFunc(time.Millisecond, func() {
		started <- int(calls.Add(1))
		<-release
	})
	first := <-started
	stopped := tm.Stop()
	reset := tm.Reset(0)
	second := <-started
	close(release)
	t.Errorf("first %d stop %v reset %v second %d", first, stopped, reset, second)
}

// TestAfterFuncStopRace: Stop right after AfterFunc(0): either Stop
// wins and f never runs, or f runs.
func TestAfterFuncStopRace(t *testing.T) {
	ran := make(chan struct{})
	tm := time.AfterFunc(0, func() { close(ran) })
	if tm.Stop() {
		t.Errorf("stopped")
		return
	}
	<-ran
	t.Errorf("ran")
}

// TestContextAfterFuncDoneContext: context.AfterFunc on a context already
// cancelled starts f at once; stop returns false, since f was started.
func TestContextAfterFuncDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(ran) })
	s := stop()
	<-ran
	t.Errorf("stop %v", s)
}

// TestContextDeadlineCausePassed: WithDeadlineCause with a deadline in
// the past is done at once, with its cause.
func TestContextDeadlineCausePassed(t *testing.T) {
	ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(-time.Second), errors.New("late"))
	defer cancel()
	select {
	case <-ctx.Done():
		t.Errorf("done: %v, cause %v", ctx.Err(), context.Cause(ctx))
	default:
		t.Errorf("not done")
	}
}

// TestPanicNilRecovered: panic(nil) in a goroutine, recovered: Go 1.21
// turns it into a *runtime.PanicNilError.
func TestPanicNilRecovered(t *testing.T) {
	res := make(chan string)
	go func() {
		defer func() { res <- fmt.Sprintf("%T", recover()) }()
		panic(nil)
	}()
	t.Errorf("%s", <-res)
}

// TestRUnlockOtherGoroutine: a read lock taken by one goroutine and
// released by another (Go allows it); a writer then gets the lock.
func TestRUnlockOtherGoroutine(t *testing.T) {
	var rw sync.RWMutex
	locked := make(chan struct{})
	go func() {
		rw.RLock()
		close(locked)
	}()
	<-locked
	rw.RUnlock()
	ok := rw.TryLock()
	t.Errorf("TryLock %v", ok)
}

// TestOnceFuncPanicTwoCallers: two goroutines call a panicking OnceFunc;
// both see its panic value.
func TestOnceFuncPanicTwoCallers(t *testing.T) {
	f := sync.OnceFunc(func() { panic("p") })
	res := make(chan string, 2)
	for i := 0; i < 2; i++ {
		go func() {
			defer func() { res <- fmt.Sprint(recover()) }()
			f()
		}()
	}
	t.Errorf("%s %s", <-res, <-res)
}

// TestTestContextBeforeCleanup: t.Context is cancelled just before the
// cleanups run; a goroutine waiting on it may or may not have run by
// then.
func TestTestContextBeforeCleanup(t *testing.T) {
	ctx := t.Context()
	saw := make(chan struct{})
	go func() {
		<-ctx.Done()
		close(saw)
	}()
	t.Cleanup(func() {
		select {
		case <-saw:
			t.Errorf("cleanup: %v, goroutine saw it", ctx.Err())
		default:
			t.Errorf("cleanup: %v, goroutine not yet", ctx.Err())
		}
	})
}
