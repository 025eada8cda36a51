package rt_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/rt"
)

// A bubble's channel or timer used from outside the bubble stops the
// program natively with a fatal error of the runtime's; heddle let the
// operation happen. Each case makes the object in a bubble and uses it
// outside, in every schedule.
func TestBubbleObjectsOutside(t *testing.T) {
	cases := []struct {
		name string
		use  func(ch chan int, other chan int, tm *time.Timer, tk *time.Ticker)
		want string
	}{
		{"recv", func(ch, _ chan int, _ *time.Timer, _ *time.Ticker) { rt.Recv(ch) }, "fatal error: receive on synctest channel from outside bubble"},
		{"poll", func(ch, _ chan int, _ *time.Timer, _ *time.Ticker) { rt.Select(true, rt.RecvCase(ch)) }, "fatal error: receive on synctest channel from outside bubble"},
		{"send", func(ch, _ chan int, _ *time.Timer, _ *time.Ticker) { rt.Send(ch, 1) }, "fatal error: send on synctest channel from outside bubble"},
		{"select", func(ch, other chan int, _ *time.Timer, _ *time.Ticker) {
			rt.Select(true, rt.RecvCase(other), rt.SendCase(ch, 1))
		}, "fatal error: select on synctest channel from outside bubble"},
		{"close", func(ch, _ chan int, _ *time.Timer, _ *time.Ticker) { rt.Close(ch) }, "fatal error: close of synctest channel from outside bubble"},
		{"timer chan", func(_, _ chan int, tm *time.Timer, _ *time.Ticker) { rt.Select(true, rt.RecvCase(tm.C)) }, "fatal error: receive on synctest channel from outside bubble"},
		{"timer stop", func(_, _ chan int, tm *time.Timer, _ *time.Ticker) { rt.TimerStop(tm) }, "fatal error: stop of synctest timer from outside bubble"},
		{"timer reset", func(_, _ chan int, tm *time.Timer, _ *time.Ticker) { rt.TimerReset(tm, time.Second) }, "fatal error: reset of synctest timer from outside bubble"},
		{"ticker stop", func(_, _ chan int, _ *time.Timer, tk *time.Ticker) { rt.TickerStop(tk) }, "fatal error: stop of synctest timer from outside bubble"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcomes, bugs := exhaustControlled(t, func() string {
				var ch chan int
				var tm *time.Timer
				var tk *time.Ticker
				bubble(func() {
					ch = rt.MakeChan[chan int](1)
					tm = rt.NewTimer(time.Hour)
					tk = rt.NewTicker(time.Hour)
				})
				c.use(ch, rt.MakeChan[chan int](0), tm, tk)
				return "used"
			})
			if len(outcomes) > 0 || bugs["misuse"] != c.want {
				t.Errorf("outcomes %q, bugs %v; want the misuse %q only", keys(outcomes), bugs, c.want)
			}
		})
	}
}

// A bubble's context used outside it is not refused: Go makes its Done
// channel in its first caller, and the bubble's own channels are checked
// only.
func TestBubbleContextOutside(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var done <-chan struct{}
		var cancel func()
		bubble(func() {
			ctx, c := rt.WithCancel(context.Background())
			done, cancel = ctx.Done(), c
		})
		cancel()
		rt.Recv(done)
		return "done"
	})
	if keys(outcomes) != "done" || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want done only", keys(outcomes), bugs)
	}
}

// A bubble's WaitGroup (one an Add in the bubble made its own) used from
// outside it, a WaitGroup in use outside used in a bubble, or one used in
// two bubbles, stops the program natively with sync's fatal error; so does
// a Cond's Signal or Broadcast from outside a bubble that wakes a goroutine
// of the bubble. heddle let them happen. A package-level WaitGroup is in no
// bubble (Go cannot associate it): used both ways, it is not refused.
func TestBubbleSyncOutside(t *testing.T) {
	const mixed = "fatal error: sync: WaitGroup.Add called from inside and outside synctest bubble"
	cases := []struct {
		name string
		prog func()
		want string // the misuse, or "" for none
		// alsoDone: some runs end without the misuse too (a Cond's
		// Signal while the waiter is between its unlock and joining the
		// notify list wakes no parked goroutine, so it is not fatal)
		alsoDone bool
	}{
		{"wg inside then outside", func() {
			wg := new(sync.WaitGroup)
			bubble(func() { rt.WaitGroupAdd(wg, 1) })
			rt.WaitGroupAdd(wg, 1)
		}, mixed, false},
		{"wg done inside, then outside", func() {
			wg := new(sync.WaitGroup)
			bubble(func() { rt.WaitGroupAdd(wg, 1); rt.WaitGroupDone(wg) })
			rt.WaitGroupAdd(wg, 1)
		}, mixed, false},
		{"wg waited inside, then outside", func() {
			wg := new(sync.WaitGroup)
			bubble(func() { rt.WaitGroupAdd(wg, 1); rt.WaitGroupDone(wg); rt.WaitGroupWait(wg) })
			rt.WaitGroupAdd(wg, 1)
			rt.WaitGroupDone(wg)
		}, "", false},
		{"wg outside then inside", func() {
			wg := new(sync.WaitGroup)
			rt.WaitGroupAdd(wg, 1)
			bubble(func() { rt.WaitGroupAdd(wg, 1) })
		}, mixed, false},
		{"wg outside at zero, then inside", func() {
			wg := new(sync.WaitGroup)
			rt.WaitGroupAdd(wg, 1)
			rt.WaitGroupDone(wg)
			bubble(func() { rt.WaitGroupAdd(wg, 1); rt.WaitGroupDone(wg) })
		}, "", false},
		{"wg in two bubbles", func() {
			wg := new(sync.WaitGroup)
			bubble(func() { rt.WaitGroupAdd(wg, 1) })
			bubble(func() { rt.WaitGroupAdd(wg, 1) })
		}, "fatal error: sync: WaitGroup.Add called from multiple synctest bubbles", false},
		{"package wg both ways", func() {
			bubble(func() { rt.WaitGroupAdd(&packageWG, 1) })
			rt.WaitGroupAdd(&packageWG, -1)
		}, "", false},
		{"cond signal from outside", func() { condFromOutside(false) }, "fatal error: semaphore wake of synctest goroutine from outside bubble", true},
		{"cond broadcast from outside", func() { condFromOutside(true) }, "fatal error: semaphore wake of synctest goroutine from outside bubble", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcomes, bugs := exhaustControlled(t, func() string {
				c.prog()
				return "done"
			})
			if c.want == "" {
				if keys(outcomes) != "done" || len(bugs) > 0 {
					t.Errorf("outcomes %q, bugs %v; want done only", keys(outcomes), bugs)
				}
			} else if c.alsoDone {
				if keys(outcomes) != "done" || bugs["misuse"] != c.want {
					t.Errorf("outcomes %q, bugs %v; want done and the misuse %q", keys(outcomes), bugs, c.want)
				}
			} else if len(outcomes) > 0 || bugs["misuse"] != c.want {
				t.Errorf("outcomes %q, bugs %v; want the misuse %q only", keys(outcomes), bugs, c.want)
			}
		})
	}
}

var packageWG sync.WaitGroup

// condFromOutside signals (or broadcasts) a Cond from outside a bubble
// while a goroutine of the bubble waits on it; the bubble's root waits on a
// channel made outside, so the bubble is not durably blocked meanwhile.
func condFromOutside(all bool) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	waiting := rt.MakeChan[chan bool](0)
	fin := rt.MakeChan[chan bool](0)
	done := rt.MakeChan[chan bool](0)
	rt.Go(func() {
		bubble(func() {
			rt.Go(func() {
				rt.MutexLock(&mu)
				rt.Send(waiting, true)
				rt.CondWait(c)
				rt.MutexUnlock(&mu)
			})
			rt.Recv(fin)
		})
		rt.Close(done)
	})
	rt.Recv(waiting)
	rt.MutexLock(&mu)
	if all {
		rt.CondBroadcast(c)
	} else {
		rt.CondSignal(c)
	}
	rt.MutexUnlock(&mu)
	rt.Close(fin)
	rt.Recv(done)
}

// A goroutine of a bubble in Wait on a WaitGroup of no bubble is not
// durably blocked, as in Go: synctest.Wait does not return while it waits,
// and time does not move for it. heddle counted it blocked: Wait returned
// before the Done from outside, and the bubble's sleep ended before it too.
func TestBubbleWaitOutsideWaitGroup(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		wg := new(sync.WaitGroup)
		rt.WaitGroupAdd(wg, 1)
		var done atomic.Bool
		rt.Go(func() {
			rt.Sleep(time.Second)
			done.Store(true)
			rt.WaitGroupDone(wg)
		})
		var seen bool
		bubble(func() {
			rt.Go(func() { rt.WaitGroupWait(wg) })
			rt.SynctestWait()
			seen = done.Load()
		})
		return fmt.Sprintf("done before Wait returned: %v", seen)
	})
	if want := "done before Wait returned: true"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q only", keys(outcomes), bugs, want)
	}
}

// A Wait outside any bubble on a bubble's WaitGroup whose counter is zero
// (its Adds and Dones all in the bubble, no Wait there) faults in Go 1.26:
// its check of the WaitGroup's bubble reads the bubble of a goroutine that
// has none.
func TestBubbleWaitGroupWaitOutside(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		wg := new(sync.WaitGroup)
		bubble(func() { rt.WaitGroupAdd(wg, 1); rt.WaitGroupDone(wg) })
		rt.WaitGroupWait(wg)
		return "returned"
	})
	if want := "runtime error: invalid memory address or nil pointer dereference"; len(outcomes) > 0 || !strings.Contains(bugs["panic"], want) {
		t.Errorf("outcomes %q, bugs %v; want the panic %q only", keys(outcomes), bugs, want)
	}
}
