package rt_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestBubbleStoppedAfterFuncResetZero: in a bubble, an AfterFunc stopped
// and Reset(0) stays in Go's timer heap (stopped there, then reset) and
// runs when the bubble next blocks, not at once in the goroutine that
// resets it: natively f never runs before the bubble blocks. heddle ran
// it at once, and f's goroutine could run before.
func TestBubbleStoppedAfterFuncResetZero(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var before, after bool
		msg := bubble(func() {
			var ran atomic.Bool
			tm := rt.AfterFunc(time.Hour, func() { ran.Store(true) })
			rt.TimerStop(tm)
			rt.TimerReset(tm, 0)
			rt.Gosched()
			rt.Gosched()
			before = ran.Load()
			rt.SynctestWait()
			after = ran.Load()
		})
		return fmt.Sprintf("%s before %v after %v", msg, before, after)
	})
	want := " before false after true"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestBubbleWaitedTimerResetZero: the same for a timer a goroutine of the
// bubble waits on (Go adds its timer to the heap then): stopped and
// Reset(0), it fires once the bubble blocks, not at once.
func TestBubbleWaitedTimerResetZero(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var early bool
		msg := bubble(func() {
			tm := rt.NewTimer(time.Hour)
			got := rt.MakeChan[chan bool](1)
			rt.Go(func() {
				rt.Recv(tm.C)
				rt.Send(got, true)
			})
			rt.SynctestWait()
			rt.TimerStop(tm)
			rt.TimerReset(tm, 0)
			rt.Gosched()
			early = rt.Select(true, rt.RecvCase(got)) == 0
			if !early {
				rt.Recv(got)
			}
		})
		return fmt.Sprintf("%s early %v", msg, early)
	})
	want := " early false"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestBubbleTimerResetZeroPoll: a timer nobody waited on is not in Go's
// heap: Reset(0), stopped before or not, a poll of its channel finds the
// value (Go runs it at the receive).
func TestBubbleTimerResetZeroPoll(t *testing.T) {
	for _, stop := range []bool{false, true} {
		outcomes, bugs := exhaustControlled(t, func() string {
			var got bool
			msg := bubble(func() {
				tm := rt.NewTimer(time.Hour)
				if stop {
					rt.TimerStop(tm)
				}
				rt.TimerReset(tm, 0)
				got = rt.Select(true, rt.RecvCase(tm.C)) == 0
			})
			return fmt.Sprintf("%s got %v", msg, got)
		})
		want := " got true"
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("stop %v: outcomes %q, bugs %v; want %q and none", stop, keys(outcomes), bugs, want)
		}
	}
}
