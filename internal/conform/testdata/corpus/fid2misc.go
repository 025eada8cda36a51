package prog

import (
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Second fidelity audit: selects over closed and nil channels, Once and
// panics, CAS loops, TryRLock against a waiting writer, Goexit in a
// deferred call, cleanups from goroutines, io.Pipe, and synctest timers
// stopped and reset.

// TestSelectClosedReadyNil: a select among a closed channel, a ready
// buffered one, a nil one and a send that can proceed: every ready case
// may win.
func TestSelectClosedReadyNil(t *testing.T) {
	closed := make(chan int)
	close(closed)
	ready := make(chan int, 1)
	ready <- 1
	var never chan int
	room := make(chan int, 1)
	select {
	case v, ok := <-closed:
		t.Errorf("closed %d %v", v, ok)
	case v := <-ready:
		t.Errorf("ready %d", v)
	case <-never:
		t.Errorf("nil channel")
	case room <- 2:
		t.Errorf("sent")
	}
}

// TestSelectCloseWhileWaiting: a select waiting on two channels; one is
// closed while the other gets a value.
func TestSelectCloseWhileWaiting(t *testing.T) {
	a, b := make(chan int), make(chan int, 1)
	go close(a)
	go func() { b <- 7 }()
	select {
	case v, ok := <-a:
		t.Errorf("a %d %v", v, ok)
	case v := <-b:
		t.Errorf("b %d", v)
	}
}

// TestOncePanicConcurrent: the first Do's function panics; a Do racing it
// waits for it and then does nothing, and a Do after it does nothing.
func TestOncePanicConcurrent(t *testing.T) {
	var once sync.Once
	var wg sync.WaitGroup
	res := make([]string, 2)
	for i := 0; i < 2; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					res[i] = "panicked"
				}
			}()
			once.Do(func() { panic("boom") })
			res[i] = "returned"
		}()
	}
	wg.Wait()
	ran := false
	once.Do(func() { ran = true })
	t.Errorf("%s %s, later Do ran %v", res[0], res[1], ran)
}

// TestCASLoopRetries: two goroutines add with CompareAndSwap loops; the
// sum is always right, a CAS may fail and retry.
func TestCASLoopRetries(t *testing.T) {
	var v atomic.Int64
	var retries atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				old := v.Load()
				if v.CompareAndSwap(old, old+1) {
					return
				}
				retries.Add(1)
			}
		}()
	}
	wg.Wait()
	t.Errorf("sum %d, retried %v", v.Load(), retries.Load() > 0)
}

// TestTryRLockWriterWaiting: with a reader in, TryRLock fails once a
// writer waits (writer preference), and succeeds before it arrives.
func TestTryRLockWriterWaiting(t *testing.T) {
	var mu sync.RWMutex
	mu.RLock()
	locked := make(chan bool)
	go func() {
		mu.Lock()
		mu.Unlock()
		locked <- true
	}()
	ok := mu.TryRLock()
	if ok {
		mu.RUnlock()
	}
	mu.RUnlock()
	<-locked
	t.Errorf("TryRLock %v", ok)
}

// TestGoexitInDeferredPanic: Goexit called by a deferred function while
// the goroutine panics ends the goroutine; the panic does not crash.
func TestGoexitInDeferredPanic(t *testing.T) {
	done := make(chan string, 1)
	go func() {
		defer func() { done <- "deferred ran" }()
		defer runtime.Goexit()
		panic("boom")
	}()
	t.Errorf("%s", <-done)
}

// TestCleanupFromGoroutines: cleanups registered by two goroutines run in
// the reverse order of registration, whichever registered first; the
// cleanup registered first (by the test) runs last and reports the order.
func TestCleanupFromGoroutines(t *testing.T) {
	var order []string
	t.Cleanup(func() { t.Errorf("cleanup order %s", strings.Join(order, " ")) })
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		name := name
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Cleanup(func() { order = append(order, name) })
		}()
	}
	wg.Wait()
}

// TestPipeTwoWriters: two goroutines write to an io.Pipe; the reader gets
// each write whole, in either order.
func TestPipeTwoWriters(t *testing.T) {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Write([]byte(s))
		}()
	}
	go func() {
		wg.Wait()
		w.Close()
	}()
	b, err := io.ReadAll(r)
	t.Errorf("%s %v", b, err)
}

// TestPipeCloseVsWrite: the reader closes the pipe while a writer writes.
func TestPipeCloseVsWrite(t *testing.T) {
	r, w := io.Pipe()
	res := make(chan string)
	go func() {
		n, err := w.Write([]byte("x"))
		res <- strings.Join([]string{string(rune('0' + n)), errString(err)}, " ")
	}()
	go r.Close()
	t.Errorf("write %s", <-res)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestSynctestAfterFuncStopResetZero: a stopped AfterFunc's Reset(0) in a
// bubble: Go keeps the timer in the bubble's heap and runs it when the
// bubble next blocks, not at once.
func TestSynctestAfterFuncStopResetZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ran atomic.Bool
		tm := time.AfterFunc(time.Hour, func() { ran.Store(true) })
		tm.Stop()
		tm.Reset(0)
		for i := 0; i < 3; i++ {
			runtime.Gosched()
		}
		before := ran.Load()
		synctest.Wait()
		t.Errorf("ran before the bubble blocked %v, after %v", before, ran.Load())
	})
}

// TestSynctestTimerStopResetZeroBlocked: the same for a timer whose
// channel a goroutine of the bubble waits on.
func TestSynctestTimerStopResetZeroBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Hour)
		got := make(chan bool, 1)
		go func() {
			<-tm.C
			got <- true
		}()
		synctest.Wait()
		tm.Stop()
		tm.Reset(0)
		runtime.Gosched()
		select {
		case <-got:
			t.Errorf("received before the bubble blocked")
		default:
			<-got
			t.Errorf("received once the bubble blocked")
		}
	})
}

// TestSynctestTimerStopResetZeroPoll: a stopped timer nobody waits on,
// Reset(0): a poll of its channel finds the value (Go runs the due timer
// at the receive).
func TestSynctestTimerStopResetZeroPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Hour)
		tm.Stop()
		tm.Reset(0)
		select {
		case <-tm.C:
			t.Errorf("value")
		default:
			t.Errorf("no value")
		}
	})
}

// TestSynctestTimerResetZeroActivePoll: an active timer nobody waited on,
// Reset(0) without a Stop: a poll finds the value (Go runs the due timer,
// not in the heap, at the receive).
func TestSynctestTimerResetZeroActivePoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Hour)
		tm.Reset(0)
		select {
		case <-tm.C:
			t.Errorf("value")
		default:
			t.Errorf("no value")
		}
	})
}

// TestSynctestChanPolledOutside: a bubble's channel polled from outside
// the bubble: Go's runtime stops the program.
func TestSynctestChanPolledOutside(t *testing.T) {
	chs := make(chan chan int, 1)
	synctest.Test(t, func(t *testing.T) {
		chs <- make(chan int, 1)
	})
	select {
	case <-<-chs:
		t.Errorf("received")
	default:
		t.Errorf("polled")
	}
}

// TestSynctestTimerStoppedOutside: a bubble's timer stopped from outside
// the bubble: Go's runtime stops the program.
func TestSynctestTimerStoppedOutside(t *testing.T) {
	tms := make(chan *time.Timer, 1)
	synctest.Test(t, func(t *testing.T) {
		tms <- time.NewTimer(time.Hour)
	})
	t.Errorf("stopped %v", (<-tms).Stop())
}

// TestFirstFailureOfGoroutines: two goroutines and the test fail at once:
// any of them may fail first.
func TestFirstFailureOfGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		name := name
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Errorf("first %s", name)
		}()
	}
	t.Errorf("first test")
	wg.Wait()
}
