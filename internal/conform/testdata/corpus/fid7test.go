package prog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// Seventh fidelity audit: testing's ends (Skip from a goroutine after the
// test returned, Fatal and Goexit in cleanups, a goroutine's panic racing
// another's Fatal), self-sent signals, contexts without cancellation,
// AfterFunc's Reset racing its function, and bubble timers due at the
// same instant as a sleep's end.

var errFid7 = errors.New("fid7 cause")

// TestSkipNowInGoroutineThenError: a goroutine's SkipNow marks the test
// skipped and ends the goroutine; the test then fails: it is reported as
// failed.
func TestSkipNowInGoroutineThenError(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer close(done)
		t.SkipNow()
	}()
	<-done
	t.Errorf("skipped %v", t.Skipped())
}

// TestFatalInCleanupOthersRun: a cleanup's Fatal ends that cleanup; the
// cleanups registered before it still run.
func TestFatalInCleanupOthersRun(t *testing.T) {
	t.Cleanup(func() { t.Error("first registered") })
	t.Cleanup(func() {
		t.Fatal("second registered")
		t.Error("not reached")
	})
}

// TestGoexitInCleanup: a cleanup calls runtime.Goexit; the other cleanup
// runs.
func TestGoexitInCleanup(t *testing.T) {
	t.Cleanup(func() { t.Error("first registered") })
	t.Cleanup(func() {
		runtime.Goexit()
	})
}

// TestPanicRacingFatal: one goroutine panics, another calls t.Fatal; the
// test waits only for the second: the panic ends the process, before or
// after the test's failure is reported, or never happens.
func TestPanicRacingFatal(t *testing.T) {
	start := make(chan bool)
	done := make(chan bool)
	go func() {
		<-start
		panic("boom")
	}()
	go func() {
		defer close(done)
		<-start
		t.Fatal("fatal")
	}()
	close(start)
	<-done
}

// TestSignalSelfSent: a program sends itself a signal it asked to be
// notified of.
func TestSignalSelfSent(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(5 * time.Second):
		t.Errorf("no signal")
	}
}

// TestSignalSelfSentVsReady: the same, the select also having a ready
// case: the signal may have arrived by then or not.
func TestSignalSelfSentVsReady(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	defer signal.Stop(c)
	ready := make(chan bool, 1)
	ready <- true
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-ready:
		t.Errorf("ready")
	}
}

// TestContextWithoutCancelOfTimeout: a context WithoutCancel of one with a
// deadline has no deadline, no Done channel and no cause once the parent
// timed out.
func TestContextWithoutCancelOfTimeout(t *testing.T) {
	parent, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, errFid7)
	defer cancel()
	child := context.WithoutCancel(parent)
	res := make(chan string)
	go func() {
		<-parent.Done()
		_, has := child.Deadline()
		res <- fmt.Sprintf("parent %v, child %v %v %v %v", context.Cause(parent), child.Err(), child.Done() == nil, has, context.Cause(child))
	}()
	t.Errorf("%s", <-res)
}

// TestContextAfterFuncOnWithoutCancel: AfterFunc on a context that is never
// cancelled: f never runs, stop reports it stopped f.
func TestContextAfterFuncOnWithoutCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	ran := make(chan bool, 1)
	stop := context.AfterFunc(context.WithoutCancel(parent), func() { ran <- true })
	cancel()
	time.Sleep(time.Millisecond)
	select {
	case <-ran:
		t.Errorf("ran")
	default:
		t.Errorf("stop %v", stop())
	}
}

// TestAfterFuncResetVsRun: Reset of an AfterFunc timer around the instant
// it is due: Reset reports true and f never runs, or false and f ran.
func TestAfterFuncResetVsRun(t *testing.T) {
	ran := make(chan bool, 1)
	tm := time.AfterFunc(time.Millisecond, func() { ran <- true })
	time.Sleep(time.Millisecond)
	r := tm.Reset(time.Hour)
	tm.Stop()
	select {
	case <-ran:
		t.Errorf("reset %v, ran", r)
	case <-time.After(50 * time.Millisecond):
		t.Errorf("reset %v, not run", r)
	}
}

// TestSynctestAfterFuncResetSameInstant: an AfterFunc timer and a sleep end
// at the same instant; the timer was made first, so Go's timer pass runs
// it first: the Reset after the sleep finds it fired.
func TestSynctestAfterFuncResetSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ran := make(chan bool, 1)
		tm := time.AfterFunc(time.Second, func() { ran <- true })
		time.Sleep(time.Second)
		r := tm.Reset(time.Hour)
		tm.Stop()
		synctest.Wait()
		t.Errorf("reset %v, ran %v", r, len(ran) == 1)
	})
}

// TestSynctestContextAfterFuncStopSameInstant: a context's timeout and a
// sleep end at the same instant; the context's timer fires first, so the
// stop after the sleep finds its AfterFunc started.
func TestSynctestContextAfterFuncStopSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ran := make(chan bool, 1)
		stop := context.AfterFunc(ctx, func() { ran <- true })
		time.Sleep(time.Second)
		s := stop()
		synctest.Wait()
		t.Errorf("stop %v, ran %v", s, len(ran) == 1)
	})
}

// TestSynctestTwoAfterFuncsSameInstant: two AfterFunc timers due at the
// same instant: each f runs in its own goroutine.
func TestSynctestTwoAfterFuncsSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var order []string
		for _, name := range []string{"a", "b"} {
			time.AfterFunc(time.Second, func() {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			})
		}
		time.Sleep(2 * time.Second)
		t.Errorf("%s", strings.Join(order, " "))
	})
}

// TestSynctestCondBroadcastTimeout: in a bubble, a goroutine waits on a
// sync.Cond whose timeout (an AfterFunc) broadcasts before the root sets
// the flag.
func TestSynctestCondBroadcastTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		ready, timedOut := false, false
		time.AfterFunc(time.Second, func() {
			mu.Lock()
			timedOut = true
			mu.Unlock()
			cond.Broadcast()
		})
		res := make(chan string, 1)
		go func() {
			mu.Lock()
			for !ready && !timedOut {
				cond.Wait()
			}
			res <- fmt.Sprintf("ready %v timedOut %v", ready, timedOut)
			mu.Unlock()
		}()
		time.Sleep(2 * time.Second)
		mu.Lock()
		ready = true
		mu.Unlock()
		cond.Broadcast()
		t.Errorf("%s", <-res)
	})
}

// TestSynctestSleepersSameInstant: three goroutines sleep until the same
// instant and then append to a list: the order they run in.
func TestSynctestSleepersSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		for _, name := range []string{"a", "b", "c"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Second)
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			}()
		}
		wg.Wait()
		t.Errorf("%s", strings.Join(order, " "))
	})
}
