package prog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Thirteenth fidelity audit, second file: newer language and library
// features beside goroutines: a range-over-func body run by a goroutine
// the iterator starts (and the runtime's panic when it yields after
// break), Go 1.22's per-iteration loop variables captured by goroutines
// (three-clause loops whose body changes the variable, range over an
// int), context.AfterFunc on a WithoutCancel context, a child's Err and
// Cause read while its parent is cancelled, AfterFunc timers' Stop and
// Reset results, tickers reset and time.Tick in select loops, Go 1.23's
// Stop-then-drain idiom, a watchdog timer, a self-resetting AfterFunc, a
// Cond wait with a timeout, a select sending and receiving on one
// channel, a polling select with default and time.After, errors.Join, a
// start-once CAS, t.Context's AfterFunc against a cleanup, a counter
// written under RLock and double-checked initialization through a plain
// flag (races), a merge that disables closed channels, a result
// abandoned on cancel (a leak), and stop channels closed to workers.

// TestRangeFuncBodyOnGoroutine: the iterator yields from a goroutine it
// starts and waits for; the loop body runs there. break ends it.
func TestRangeFuncBodyOnGoroutine(t *testing.T) {
	seq := func(yield func(int) bool) {
		done := make(chan bool)
		go func() {
			defer close(done)
			for i := 1; i <= 3; i++ {
				if !yield(i) {
					return
				}
			}
		}()
		<-done
	}
	var got []int
	for v := range seq {
		got = append(got, v)
		if v == 2 {
			break
		}
	}
	t.Errorf("got %v", got)
}

// TestRangeFuncYieldAfterBreak: the iterator's goroutine ignores
// yield's false and yields again: the runtime panics on that goroutine.
func TestRangeFuncYieldAfterBreak(t *testing.T) {
	seq := func(yield func(int) bool) {
		done := make(chan bool)
		go func() {
			defer close(done)
			yield(1)
			yield(2)
		}()
		<-done
	}
	for range seq {
		break
	}
	t.Errorf("loop ended")
}

// TestThreeClauseLoopVarPerIteration: each iteration's i is its own; the
// body increments it before the goroutine captures it, and the next
// iteration starts from it: the goroutines send 1 and 3, in either
// order.
func TestThreeClauseLoopVarPerIteration(t *testing.T) {
	ch := make(chan int, 2)
	for i := 0; i < 4; i++ {
		i++
		go func() { ch <- i }()
	}
	a, b := <-ch, <-ch
	t.Errorf("%d %d", a, b)
}

// TestRangeIntWaitGroupGoOrder: range over an int starting WaitGroup.Go
// functions that append their own i: every order of 0, 1, 2.
func TestRangeIntWaitGroupGoOrder(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var order []string
	for i := range 3 {
		wg.Go(func() {
			mu.Lock()
			order = append(order, fmt.Sprint(i))
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, ""))
}

// TestContextAfterFuncWithoutCancel: an AfterFunc on a WithoutCancel
// context never runs, whoever cancels the parent: stop returns true.
func TestContextAfterFuncWithoutCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	var ran atomic.Bool
	stop := context.AfterFunc(context.WithoutCancel(parent), func() { ran.Store(true) })
	done := make(chan bool)
	go func() { cancel(); close(done) }()
	<-done
	<-parent.Done()
	t.Errorf("stop %v, ran %v", stop(), ran.Load())
}

// TestChildErrThenCauseWhileParentCancelled: a goroutine cancels a
// parent with a cause; the test reads its child's Err and then its
// Cause. Never an error without its cause.
func TestChildErrThenCauseWhileParentCancelled(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	child, stop := context.WithTimeout(parent, time.Hour)
	defer stop()
	go cancel(errors.New("fid13 boom"))
	err := child.Err()
	cause := context.Cause(child)
	<-child.Done()
	t.Errorf("err %v, cause %v", err, cause)
}

// TestAfterFuncStopFromTwoGoroutines: two goroutines stop a pending
// AfterFunc timer: exactly one Stop returns true.
func TestAfterFuncStopFromTwoGoroutines(t *testing.T) {
	tm := time.AfterFunc(time.Hour, func() {})
	res := make(chan bool, 2)
	for range 2 {
		go func() { res <- tm.Stop() }()
	}
	a, b := <-res, <-res
	if a == b {
		t.Errorf("both %v", a)
	}
}

// TestAfterFuncResetVsStop: a goroutine stops a pending AfterFunc timer
// while the test resets it. Stop always finds it active; Reset finds it
// active only if it came first.
func TestAfterFuncResetVsStop(t *testing.T) {
	tm := time.AfterFunc(time.Hour, func() {})
	res := make(chan bool)
	go func() { res <- tm.Stop() }()
	reset := tm.Reset(time.Hour)
	stopped := <-res
	tm.Stop()
	t.Errorf("stop %v, reset %v", stopped, reset)
}

// TestTickerResetByRequestInBubble: a worker's ticker (1s) is reset to
// 3s at 1.5s through a channel of durations: ticks at 1s and 4.5s
// before the done channel closes at 5.5s.
func TestTickerResetByRequestInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		resetc := make(chan time.Duration)
		done := make(chan bool)
		res := make(chan []time.Duration)
		go func() {
			tk := time.NewTicker(time.Second)
			defer tk.Stop()
			var ticks []time.Duration
			for {
				select {
				case <-tk.C:
					ticks = append(ticks, time.Since(start))
				case d := <-resetc:
					tk.Reset(d)
				case <-done:
					res <- ticks
					return
				}
			}
		}()
		time.Sleep(1500 * time.Millisecond)
		resetc <- 3 * time.Second
		time.Sleep(4 * time.Second)
		close(done)
		t.Errorf("ticks %v", <-res)
	})
}

// TestTimeTickSelectLoopInBubble: a loop over time.Tick(1s) ends when a
// goroutine closes done at 2.5s: two ticks.
func TestTimeTickSelectLoopInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan bool)
		go func() {
			time.Sleep(2500 * time.Millisecond)
			close(done)
		}()
		tick := time.Tick(time.Second)
		n := 0
	loop:
		for {
			select {
			case <-tick:
				n++
			case <-done:
				break loop
			}
		}
		t.Errorf("ticks %d", n)
	})
}

// TestTimerStopDrainExpiredInBubble: Go 1.23's timer channels: a timer
// expired and never received is stopped; Stop's result decides whether
// the old drain idiom receives (and would block forever).
func TestTimerStopDrainExpiredInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		time.Sleep(2 * time.Second)
		stopped := tm.Stop()
		drained := false
		if !stopped {
			select {
			case <-tm.C:
				drained = true
			default:
			}
		}
		t.Errorf("stop %v, drained %v, len %d", stopped, drained, len(tm.C))
	})
}

// TestWatchdogTimerInBubble: heartbeats every 500ms, three times, each
// stopping (draining) and resetting a 1s watchdog: it expires at 2.5s.
func TestWatchdogTimerInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		beat := make(chan bool)
		go func() {
			for range 3 {
				time.Sleep(500 * time.Millisecond)
				beat <- true
			}
		}()
		wd := time.NewTimer(time.Second)
		beats := 0
		for {
			select {
			case <-beat:
				beats++
				if !wd.Stop() {
					select {
					case <-wd.C:
					default:
					}
				}
				wd.Reset(time.Second)
				continue
			case <-wd.C:
			}
			break
		}
		t.Errorf("beats %d, expired at %v", beats, time.Since(start))
	})
}

// TestAfterFuncSelfResetInBubble: an AfterFunc resets its own timer
// twice, then reports: three runs, the last at 3s.
func TestAfterFuncSelfResetInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tmc := make(chan *time.Timer, 1)
		done := make(chan time.Duration)
		n := 0
		tmc <- time.AfterFunc(time.Second, func() {
			tm := <-tmc
			n++
			if n < 3 {
				tm.Reset(time.Second)
				tmc <- tm
				return
			}
			done <- time.Since(start)
		})
		t.Errorf("runs done at %v", <-done)
	})
}

// TestCondWaitWithTimeoutInBubble: a Cond wait given up by an AfterFunc
// at 1s that sets a flag and broadcasts; the producer would signal at
// 2s. The waiter times out; the producer's item is there later.
func TestCondWaitWithTimeoutInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		ready, timedOut := false, false
		go func() {
			time.Sleep(2 * time.Second)
			mu.Lock()
			ready = true
			mu.Unlock()
			cond.Signal()
		}()
		tm := time.AfterFunc(time.Second, func() {
			mu.Lock()
			timedOut = true
			mu.Unlock()
			cond.Broadcast()
		})
		mu.Lock()
		for !ready && !timedOut {
			cond.Wait()
		}
		r, to := ready, timedOut
		mu.Unlock()
		tm.Stop()
		time.Sleep(3 * time.Second)
		mu.Lock()
		later := ready
		mu.Unlock()
		t.Errorf("ready %v, timed out %v, later %v", r, to, later)
	})
}

// TestSelectSendRecvSameChan: two goroutines each select between a send
// and a receive on one unbuffered channel: one sends to the other.
func TestSelectSendRecvSameChan(t *testing.T) {
	ch := make(chan string)
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			select {
			case ch <- name:
				res <- name + " sent"
			case v := <-ch:
				res <- name + " got " + v
			}
		}()
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%s", strings.Join(r, ", "))
}

// TestSelectPollWithTimeAfterAndDefault: three polls of a select with a
// value channel, a far time.After and a default, while a goroutine sends
// once: the value arrives at any of the polls or after them.
func TestSelectPollWithTimeAfterAndDefault(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 7 }()
	got := -1
	for i := 0; i < 3; i++ {
		select {
		case <-ch:
			got = i
		case <-time.After(time.Hour):
		default:
		}
		if got >= 0 {
			break
		}
	}
	if got < 0 {
		<-ch
	}
	t.Errorf("got at %d", got)
}

// TestErrorsJoinFromGoroutines: two goroutines append their errors under
// a lock; errors.Join lists them in the order they came.
func TestErrorsJoinFromGoroutines(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			errs = append(errs, errors.New(s))
			mu.Unlock()
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	t.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", "+"))
}

// TestAtomicBoolStartOnce: three goroutines race to start with
// CompareAndSwap(false, true): exactly one wins, any of them.
func TestAtomicBoolStartOnce(t *testing.T) {
	var started atomic.Bool
	var winners atomic.Int32
	var winner atomic.Value
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if started.CompareAndSwap(false, true) {
				winners.Add(1)
				winner.Store(name)
			}
		}()
	}
	wg.Wait()
	t.Errorf("winners %d, winner %v", winners.Load(), winner.Load())
}

// TestTestContextAfterFuncVsCleanup: t.Context is cancelled before the
// cleanups run; an AfterFunc on it runs on its own goroutine, before or
// after the cleanup looks.
func TestTestContextAfterFuncVsCleanup(t *testing.T) {
	var ran atomic.Bool
	done := make(chan bool)
	context.AfterFunc(t.Context(), func() {
		ran.Store(true)
		close(done)
	})
	t.Cleanup(func() {
		r := ran.Load()
		<-done
		t.Errorf("in cleanup, ran %v", r)
	})
}

// TestCounterUnderRLock: a counter incremented under RLock, the bug of
// taking the read lock to write: two goroutines hold it at once and an
// increment can be lost (1 or 2).
//
// conform: racy
func TestCounterUnderRLock(t *testing.T) {
	var mu sync.RWMutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.RLock()
			n++
			mu.RUnlock()
		}()
	}
	wg.Wait()
	t.Errorf("n %d", n)
}

// TestDoubleCheckedPlainFlag: double-checked initialization whose fast
// path reads a plain bool (a race): the value is stored before the flag,
// so a reader that sees the flag sees the value (x86-TSO keeps the two
// stores in order; never "v 0"), and the value is computed once.
//
// conform: racy
func TestDoubleCheckedPlainFlag(t *testing.T) {
	var mu sync.Mutex
	inited := false
	v := 0
	computes := 0
	get := func() int {
		if !inited {
			mu.Lock()
			if !inited {
				computes++
				v = 42
				inited = true
			}
			mu.Unlock()
		}
		return v
	}
	res := make(chan int, 2)
	for range 2 {
		go func() { res <- get() }()
	}
	a, b := <-res, <-res
	mu.Lock()
	c := computes
	mu.Unlock()
	t.Errorf("v %d %d, computes %d", a, b, c)
}

// TestMergeDisablesClosedChans: a merge loop sets a closed input to nil
// so that its case is never chosen again; a's two values and b's one
// arrive interleaved in any way that keeps a's order.
func TestMergeDisablesClosedChans(t *testing.T) {
	a, b := make(chan string), make(chan string)
	go func() { a <- "a1"; a <- "a2"; close(a) }()
	go func() { b <- "b1"; close(b) }()
	var got []string
	for a != nil || b != nil {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			got = append(got, v)
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			got = append(got, v)
		}
	}
	t.Errorf("%s", strings.Join(got, " "))
}

// TestResultAbandonedOnCancel: the test waits for a result or a context
// already cancelled; when it takes the context, the worker's send on the
// unbuffered channel never completes: a leak.
func TestResultAbandonedOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch := make(chan int)
	go func() { ch <- 1 }()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// TestStopChanClosedToWorkers: two workers take items from a buffered
// channel until a stop channel closes; the test closes it at once. Each
// worker takes 0, 1 or 2 items; together at most 2.
func TestStopChanClosedToWorkers(t *testing.T) {
	work := make(chan int, 2)
	work <- 1
	work <- 2
	stop := make(chan struct{})
	var took atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-work:
					took.Add(1)
				case <-stop:
					return
				}
			}
		}()
	}
	close(stop)
	wg.Wait()
	t.Errorf("took %d, left %d", took.Load(), len(work))
}

// TestAtomicPointerLazyInit: two goroutines initialize a shared value
// through an atomic.Pointer CompareAndSwap; the loser uses the winner's.
// Both see the same value; it was built once or twice.
func TestAtomicPointerLazyInit(t *testing.T) {
	var p atomic.Pointer[string]
	var builds atomic.Int32
	get := func() *string {
		if v := p.Load(); v != nil {
			return v
		}
		s := fmt.Sprint("built ", builds.Add(1))
		if p.CompareAndSwap(nil, &s) {
			return &s
		}
		return p.Load()
	}
	res := make(chan *string, 2)
	for range 2 {
		go func() { res <- get() }()
	}
	x, y := <-res, <-res
	t.Errorf("builds %d, same %v", builds.Load(), x == y)
}
