package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// TestPollDueTimer: since Go 1.23 a receive from a timer's channel runs
// the timer if it is due, so a select with a default case on a timer of
// duration 0 (or a timer whose instant has passed) always takes the
// timer. heddle's firing was a step of its own, and the poll could come
// before it and take the default.
func TestPollDueTimer(t *testing.T) {
	if !engine.SyncTimerChans() {
		t.Skip("asynchronous timer channels (asynctimerchan=1)")
	}
	outcomes, bugs := exhaustControlled(t, func() string {
		out := ""
		for _, d := range []time.Duration{0, -time.Second} {
			if rt.Select(true, rt.RecvCase(rt.After(d))) == 0 {
				out += "fired "
			} else {
				out += "default "
			}
		}
		tm := rt.NewTimer(time.Millisecond)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Sleep(2 * time.Millisecond)
			rt.Send(done, true)
		})
		rt.Recv(done) // the clock is past the timer's instant
		if rt.Select(true, rt.RecvCase(tm.C)) == 0 {
			out += "fired"
		} else {
			out += "default"
		}
		return out
	})
	if want := "fired fired fired"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestPollWaitedTicker: a channel timer joins Go's timer heap when a
// goroutine blocks on its channel, and the heap fires it, which a poll may
// come before: a poll of a ticker received from before may find no tick
// although one is due (the conformance harness's TestTickerPoll shows
// both natively).
func TestPollWaitedTicker(t *testing.T) {
	if !engine.SyncTimerChans() {
		t.Skip("asynchronous timer channels (asynctimerchan=1)")
	}
	outcomes, bugs := exhaustControlled(t, func() string {
		tk := rt.NewTicker(time.Microsecond)
		defer rt.TickerStop(tk)
		rt.Recv(tk.C)
		rt.Sleep(time.Microsecond)
		if rt.Select(true, rt.RecvCase(tk.C)) == 0 {
			return "tick"
		}
		return "none"
	})
	if want := "none | tick"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}
