package prog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Eleventh fidelity audit, time and contexts: timeout and deadline
// causes against an explicit cancel after a sleep as long, AfterFunc's
// stop racing a deadline, a ticker stopped or reset while a goroutine
// selects on it, a fired timer's value polled while it is reset, and in
// synctest bubbles the same races at one instant, a Cond woken by a
// timer's function, and a ticker stopped by an AfterFunc.

var errTimeout11 = errors.New("timed out")

// TestContextTimeoutCauseVsSleepCancel: a timeout with a cause races a
// cancel after a sleep as long as the timeout.
func TestContextTimeoutCauseVsSleepCancel(t *testing.T) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, errTimeout11)
	go func() {
		time.Sleep(time.Millisecond)
		cancel()
	}()
	<-ctx.Done()
	t.Errorf("err %v, cause %v", ctx.Err(), context.Cause(ctx))
}

// TestContextDeadlineCauseAfterFuncStop: a goroutine stops an AfterFunc
// of a context whose deadline comes as it wakes: stopped, or f ran and
// saw the cause.
func TestContextDeadlineCauseAfterFuncStop(t *testing.T) {
	ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Millisecond), errTimeout11)
	defer cancel()
	ran := make(chan string, 1)
	stop := context.AfterFunc(ctx, func() { ran <- fmt.Sprint(context.Cause(ctx)) })
	res := make(chan bool)
	go func() {
		time.Sleep(time.Millisecond)
		res <- stop()
	}()
	stopped := <-res
	if stopped {
		t.Errorf("stopped")
		return
	}
	t.Errorf("ran: %s", <-ran)
}

// TestContextChildCauseParentTimeoutVsChildCancel: the child's cause is
// its parent's timeout cause or its own cancel's, whichever came first.
func TestContextChildCauseParentTimeoutVsChildCancel(t *testing.T) {
	parent, cancelParent := context.WithTimeoutCause(context.Background(), time.Millisecond, errTimeout11)
	defer cancelParent()
	child, cancelChild := context.WithCancelCause(parent)
	go func() {
		time.Sleep(time.Millisecond)
		cancelChild(errors.New("child"))
	}()
	<-child.Done()
	t.Errorf("cause %v", context.Cause(child))
}

// TestTickerStopVsSelect: a goroutine selects on a ticker's channel and a
// done channel; the test stops the ticker and closes done after a sleep as
// long as the period.
func TestTickerStopVsSelect(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	done := make(chan struct{})
	res := make(chan string)
	go func() {
		select {
		case <-tk.C:
			res <- "tick"
		case <-done:
			res <- "done"
		}
	}()
	time.Sleep(time.Millisecond)
	tk.Stop()
	close(done)
	t.Errorf("%s", <-res)
}

// TestTimerFiredPolledWhileReset: a timer fires unreceived; a goroutine
// polls its channel while the test resets it for an hour.
func TestTimerFiredPolledWhileReset(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	res := make(chan string)
	go func() {
		select {
		case <-tm.C:
			res <- "value"
		default:
			res <- "none"
		}
	}()
	active := tm.Reset(time.Hour)
	got := <-res
	tm.Stop()
	t.Errorf("reset %v, poll %s", active, got)
}

// TestSynctestTimeoutCauseVsSleeperCancel: in a bubble, a timeout with a
// cause and a cancel by a goroutine that slept as long come at one
// instant.
func TestSynctestTimeoutCauseVsSleeperCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeoutCause(context.Background(), time.Second, errTimeout11)
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		<-ctx.Done()
		t.Errorf("cause %v", context.Cause(ctx))
	})
}

// TestSynctestTickerStoppedByAfterFunc: an AfterFunc stops a ticker at
// the instant of its first tick; a goroutine waits for the tick or for a
// later timeout.
func TestSynctestTickerStoppedByAfterFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		time.AfterFunc(time.Second, tk.Stop)
		select {
		case <-tk.C:
			t.Errorf("tick")
		case <-time.After(2 * time.Second):
			t.Errorf("timeout")
		}
	})
}

// TestSynctestCondBroadcastFromTimerFunc: two goroutines wait in a loop on
// a Cond; a timer's function sets the predicate and broadcasts, and a
// sleeper at the same instant signals without setting it.
func TestSynctestCondBroadcastFromTimerFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		ready := false
		wakes := 0
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				for !ready {
					cond.Wait()
					wakes++
				}
				mu.Unlock()
			}()
		}
		time.AfterFunc(time.Second, func() {
			mu.Lock()
			ready = true
			mu.Unlock()
			cond.Broadcast()
		})
		go func() {
			time.Sleep(time.Second)
			cond.Signal()
		}()
		wg.Wait()
		t.Errorf("wakes %d", wakes)
	})
}

// TestSynctestAfterFuncStopVsTimeoutCause: at one instant, a context's
// timeout runs its AfterFunc and a sleeper stops it.
func TestSynctestAfterFuncStopVsTimeoutCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeoutCause(context.Background(), time.Second, errTimeout11)
		defer cancel()
		var mu sync.Mutex
		var log []string
		stop := context.AfterFunc(ctx, func() {
			mu.Lock()
			log = append(log, "f")
			mu.Unlock()
		})
		go func() {
			time.Sleep(time.Second)
			s := stop()
			mu.Lock()
			log = append(log, fmt.Sprint("stop ", s))
			mu.Unlock()
		}()
		time.Sleep(2 * time.Second)
		mu.Lock()
		defer mu.Unlock()
		t.Errorf("%s", strings.Join(log, ", "))
	})
}

// TestSynctestTickerResetVsReceive: at the instant of a ticker's tick, a
// sleeper resets it to an hour while the test waits on it with a later
// timeout.
func TestSynctestTickerResetVsReceive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		go func() {
			time.Sleep(time.Second)
			tk.Reset(time.Hour)
		}()
		var got []string
		timeout := time.After(3 * time.Second)
		for len(got) < 2 {
			select {
			case <-tk.C:
				got = append(got, "tick")
			case <-timeout:
				got = append(got, "timeout", "")
			}
		}
		t.Errorf("%s", strings.Join(got, " "))
	})
}

// TestSynctestTwoTimeoutCausesSameInstant: a parent and its child time out
// at one instant, each with its own cause; the child's cause is one of
// them.
func TestSynctestTwoTimeoutCausesSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, c1 := context.WithTimeoutCause(context.Background(), time.Second, errors.New("parent"))
		defer c1()
		child, c2 := context.WithTimeoutCause(parent, time.Second, errors.New("child"))
		defer c2()
		<-child.Done()
		t.Errorf("child cause %v, parent cause %v", context.Cause(child), context.Cause(parent))
	})
}

// TestTimersSameDurationFuncsOrder: three AfterFuncs of one duration log
// in the order they ran.
func TestTimersSameDurationFuncsOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		time.AfterFunc(time.Millisecond, func() {
			defer wg.Done()
			mu.Lock()
			log = append(log, name)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Errorf("order %s", strings.Join(log, " "))
}
