package prog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Sixth fidelity audit: a timer (or a context's deadline) firing into a
// select parked on its channel commits the select, which synctest makes
// deterministic; what a bubble counts as durably blocked (a mutex and a
// channel of no bubble are not); t.Context inside a bubble; causes seen
// by context.AfterFunc and polls.

var errFid6 = errors.New("fid6 cause")

// TestSynctestTimerFiresIntoParkedSelect: a select parked on a timer's
// channel and on a buffered channel. The timer fires at 1s while the
// select is parked: Go's timer sends to the parked select directly,
// committing it, before the root's send at 2s makes the other case ready.
func TestSynctestTimerFiresIntoParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		ch := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-tm.C:
				done <- "timer"
			case <-ch:
				done <- "ch"
			}
		}()
		synctest.Wait()
		time.Sleep(2 * time.Second)
		ch <- 1
		t.Errorf("%s", <-done)
	})
}

// TestSynctestAfterFiresIntoParkedSelect: the same with time.After in the
// select, the common timeout pattern.
func TestSynctestAfterFiresIntoParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-time.After(time.Second):
				done <- "timeout"
			case <-ch:
				done <- "ch"
			}
		}()
		time.Sleep(2 * time.Second)
		ch <- 1
		t.Errorf("%s", <-done)
	})
}

// TestSynctestTickerFiresIntoParkedSelect: a ticker's first tick into a
// parked select.
func TestSynctestTickerFiresIntoParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		ch := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-tk.C:
				done <- "tick"
			case <-ch:
				done <- "ch"
			}
		}()
		time.Sleep(1500 * time.Millisecond)
		ch <- 1
		t.Errorf("%s", <-done)
	})
}

// TestSynctestContextTimeoutIntoParkedSelect: a context's deadline closes
// Done while a select is parked on it: the close commits the select.
func TestSynctestContextTimeoutIntoParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		ch := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-ctx.Done():
				done <- "done " + context.Cause(ctx).Error()
			case <-ch:
				done <- "ch"
			}
		}()
		time.Sleep(2 * time.Second)
		ch <- 1
		t.Errorf("%s", <-done)
	})
}

// TestSynctestTimerStopAfterDelivered: Stop after the timer fired into a
// parked select returns false; the select got the value.
func TestSynctestTimerStopAfterDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		quit := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-tm.C:
				done <- "timer"
			case <-quit:
				done <- "quit"
			}
		}()
		time.Sleep(2 * time.Second)
		stopped := tm.Stop()
		quit <- 1
		t.Errorf("stop %v %s", stopped, <-done)
	})
}

// TestSynctestTwoTimersParkedSelect: a select parked on two timers: the
// earlier one commits it.
func TestSynctestTwoTimersParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := time.NewTimer(time.Second)
		b := time.NewTimer(2 * time.Second)
		done := make(chan string, 1)
		go func() {
			select {
			case <-a.C:
				done <- "a"
			case <-b.C:
				done <- "b"
			}
		}()
		time.Sleep(3 * time.Second)
		t.Errorf("%s", <-done)
	})
}

// TestTimerFiresIntoParkedSelect: outside a bubble: the select is parked
// (almost always) when the timer fires; it may also start after both
// cases are ready.
func TestTimerFiresIntoParkedSelect(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	ch := make(chan int, 1)
	done := make(chan string, 1)
	go func() {
		select {
		case <-tm.C:
			done <- "timer"
		case <-ch:
			done <- "ch"
		}
	}()
	time.Sleep(5 * time.Millisecond)
	ch <- 1
	t.Errorf("%s", <-done)
}

// TestSynctestWaitMutexNotDurable: a bubble goroutine blocked on a mutex
// is not durably blocked: synctest.Wait returns only once it got the lock
// (released from outside the bubble after real time) and finished.
func TestSynctestWaitMutexNotDurable(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	go func() {
		time.Sleep(10 * time.Millisecond)
		mu.Unlock()
	}()
	synctest.Test(t, func(t *testing.T) {
		var x atomic.Int32
		go func() {
			mu.Lock()
			x.Store(1)
			mu.Unlock()
		}()
		synctest.Wait()
		t.Errorf("x %d", x.Load())
	})
}

// TestSynctestWaitOutsideChanNotDurable: a bubble goroutine blocked on a
// channel made outside the bubble is not durably blocked: Wait returns
// once the outside send let it finish.
func TestSynctestWaitOutsideChanNotDurable(t *testing.T) {
	ch := make(chan int)
	go func() {
		time.Sleep(10 * time.Millisecond)
		ch <- 1
	}()
	synctest.Test(t, func(t *testing.T) {
		var x atomic.Int32
		go func() {
			x.Store(int32(<-ch))
		}()
		synctest.Wait()
		t.Errorf("x %d", x.Load())
	})
}

// TestSynctestTContextEndsGoroutine: a bubble goroutine waiting on the
// bubble's t.Context: the context is cancelled when the bubble's function
// returns, before its cleanups, so the goroutine ends and the bubble
// does not deadlock.
func TestSynctestTContextEndsGoroutine(t *testing.T) {
	var saw atomic.Bool
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		go func() {
			<-ctx.Done()
			saw.Store(true)
		}()
		t.Cleanup(func() {
			synctest.Wait()
			if !saw.Load() {
				t.Errorf("cleanup before the goroutine saw Done")
			}
		})
	})
	t.Errorf("saw %v", saw.Load())
}

// TestSynctestWaitGroupGoSleeps: WaitGroup.Go in a bubble: Wait is durable
// and the bubble's clock advances exactly by the longest sleep.
func TestSynctestWaitGroupGoSleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var wg sync.WaitGroup
		var n atomic.Int32
		for i := 1; i <= 3; i++ {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * time.Second)
				n.Add(int32(i))
			})
		}
		wg.Wait()
		t.Errorf("n %d after %v", n.Load(), time.Since(start))
	})
}

// TestContextAfterFuncSeesCause: context.AfterFunc's f runs after the
// cancel set both the error and the cause.
func TestContextAfterFuncSeesCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	got := make(chan string, 1)
	context.AfterFunc(ctx, func() {
		got <- fmt.Sprintf("%v / %v", ctx.Err(), context.Cause(ctx))
	})
	go cancel(errFid6)
	t.Errorf("%s", <-got)
}

// TestContextCauseVsErrPoll: a poll of Err then Cause while another
// goroutine cancels with a cause: once Err is set, so is the cause (one
// lock sets both), so "canceled / <nil>" is impossible.
func TestContextCauseVsErrPoll(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	go cancel(errFid6)
	err := ctx.Err()
	cause := context.Cause(ctx)
	if err != nil && cause == nil {
		t.Errorf("err %v without a cause", err)
		return
	}
	t.Errorf("%v / %v", err != nil, cause != nil)
}

// TestContextDeadlineCauseInBubble: WithDeadlineCause's cause once the
// deadline passed, seen by a goroutine parked on Done.
func TestContextDeadlineCauseInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Second), errFid6)
		defer cancel()
		got := make(chan string, 1)
		go func() {
			<-ctx.Done()
			got <- fmt.Sprintf("%v / %v", ctx.Err(), context.Cause(ctx))
		}()
		time.Sleep(2 * time.Second)
		cancel()
		t.Errorf("%s", <-got)
	})
}

// TestSyncMapCompareAndDeleteVsCAS: CompareAndDelete and CompareAndSwap
// of the same old value race: exactly one wins.
func TestSyncMapCompareAndDeleteVsCAS(t *testing.T) {
	var m sync.Map
	m.Store("k", 1)
	var wg sync.WaitGroup
	var del, swp bool
	wg.Go(func() { del = m.CompareAndDelete("k", 1) })
	wg.Go(func() { swp = m.CompareAndSwap("k", 1, 3) })
	wg.Wait()
	v, ok := m.Load("k")
	t.Errorf("del %v swap %v: %v %v", del, swp, v, ok)
}

// TestAtomicInt64AndOrRace: And and Or on one word from two goroutines
// return the old values in either order.
func TestAtomicInt64AndOrRace(t *testing.T) {
	var n atomic.Int64
	n.Store(0b0110)
	var wg sync.WaitGroup
	var oa, oo int64
	wg.Go(func() { oa = n.And(0b0011) })
	wg.Go(func() { oo = n.Or(0b1000) })
	wg.Wait()
	t.Errorf("and-old %04b or-old %04b final %04b", oa, oo, n.Load())
}

// TestSynctestTimerFiresToFirstWaiter: two goroutines parked on a timer's
// channel, the select first: the firing hands the value to the first
// waiter (Go's receive queue), the other goes on waiting.
func TestSynctestTimerFiresToFirstWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		quit := make(chan int)
		done := make(chan string, 2)
		go func() {
			select {
			case <-tm.C:
				done <- "a timer"
			case <-quit:
				done <- "a quit"
			}
		}()
		synctest.Wait()
		go func() {
			select {
			case <-tm.C:
				done <- "b timer"
			case <-quit:
				done <- "b quit"
			}
		}()
		time.Sleep(2 * time.Second)
		close(quit)
		t.Errorf("%s, %s", <-done, <-done)
	})
}

// TestSynctestTimerFiresToFirstReceiver: the same with two plain
// receives; the second gets the value of a Reset.
func TestSynctestTimerFiresToFirstReceiver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		done := make(chan string, 2)
		go func() { <-tm.C; done <- "a" }()
		synctest.Wait()
		go func() { <-tm.C; done <- "b" }()
		time.Sleep(1500 * time.Millisecond)
		first := <-done
		tm.Reset(time.Second)
		t.Errorf("%s then %s", first, <-done)
	})
}

// TestSynctestTimerFireThenSameInstantSend: the timer fires at the
// instant the root's sleep ends and the root sends on the select's other
// channel: either may commit the parked select (the root may run on
// another P during the timer pass), but the timer's value is never left
// behind once the select took it, nor lost when it took the other case.
func TestSynctestTimerFireThenSameInstantSend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		ch := make(chan int, 1)
		done := make(chan string, 1)
		go func() {
			select {
			case <-tm.C:
				done <- "timer"
			case <-ch:
				done <- "ch"
			}
		}()
		time.Sleep(time.Second)
		ch <- 1
		got := <-done
		left := "empty"
		select {
		case <-tm.C:
			left = "value"
		default:
		}
		t.Errorf("%s, timer %s", got, left)
	})
}

// TestTimerFiresToFirstWaiter: outside a bubble, two selects wait on a
// timer's channel, the second started once the first announced it waits
// (a real sleep): the first usually gets the value.
func TestTimerFiresToFirstWaiter(t *testing.T) {
	tm := time.NewTimer(20 * time.Millisecond)
	quit := make(chan int)
	done := make(chan string, 2)
	waiter := func(name string) {
		select {
		case <-tm.C:
			done <- name + " timer"
		case <-quit:
			done <- name + " quit"
		}
	}
	go waiter("a")
	time.Sleep(5 * time.Millisecond)
	go waiter("b")
	time.Sleep(40 * time.Millisecond)
	close(quit)
	t.Errorf("%s, %s", <-done, <-done)
}

// TestSynctestTickerHeldThenStop: a ticker's tick committed to a parked
// select; the root stops the ticker at the same instant: Stop does not
// take back the delivered tick.
func TestSynctestTickerHeldThenStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		quit := make(chan int)
		done := make(chan string, 1)
		go func() {
			select {
			case <-tk.C:
				done <- "tick"
			case <-quit:
				done <- "quit"
			}
		}()
		synctest.Wait()
		time.Sleep(time.Second)
		tk.Stop()
		close(quit)
		t.Errorf("%s", <-done)
	})
}
