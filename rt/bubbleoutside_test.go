package rt_test

import (
	"context"
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
