package rt

import (
	"time"

	"heddle.dev/internal/engine"
)

// Sleep replaces time.Sleep. During an exploration time is virtual: the clock
// moves only when heddle fires a timer, so an hour of sleep costs nothing.
func Sleep(d time.Duration) {
	if x := engine.Current(); x != nil {
		x.Sleep(d)
		return
	}
	time.Sleep(d)
}

// Now replaces time.Now. During an exploration it reads the run's virtual
// clock, in the goroutines heddle does not control as well (see
// engine.Exec.ForeignNow): an HTTP server's handler reads the clock the
// test reads.
func Now() time.Time {
	if x := engine.Current(); x != nil {
		return x.Now()
	}
	if x := engine.Active(); x != nil {
		return x.ForeignNow()
	}
	return time.Now()
}

// Since replaces time.Since.
//
// In a goroutine heddle does not control, Since and Until of an instant
// with a monotonic reading (read from the real clock: by code that is not
// rewritten, as net/http's, before the run, or a deadline of a context
// made natively, whose timer is a real one) compare it with the real
// clock; of an instant without one (the virtual clock's, or one parsed
// from an HTTP header), with the virtual clock (ForeignNow), as the
// test's goroutines do.
func Since(t time.Time) time.Duration {
	if x := engine.Current(); x != nil {
		return x.Now().Sub(beforeRun(x, t))
	}
	if x := engine.Active(); x != nil && t == t.Round(0) {
		return x.ForeignNow().Sub(t)
	}
	return time.Since(t)
}

// Until replaces time.Until; see Since for goroutines heddle does not
// control.
func Until(t time.Time) time.Duration {
	if x := engine.Current(); x != nil {
		return beforeRun(x, t).Sub(x.Now())
	}
	if x := engine.Active(); x != nil && t == t.Round(0) {
		return t.Sub(x.ForeignNow())
	}
	return time.Until(t)
}

// beforeRun returns the instant of the virtual clock that stands for t.
// An instant read from the real clock before the run (a package variable
// set to time.Now() at init, as jackc/puddle's start of its nanotime) is
// in the past natively, and time.Since of it is positive: the clocks
// read it monotonically. The virtual clock starts at the run's epoch,
// which is when heddle test started, before the test binary was even
// built, so such an instant is in the virtual clock's future. An instant
// with a monotonic reading (the virtual clock's have none) that is not
// after the real clock's present is taken as read just before the run
// started, one clock read (engine.ReadTime) before its epoch: the same in
// every run and in a replay. t.Sub and the comparison methods of such an
// instant are not covered: they are not rewritten.
func beforeRun(x *engine.Exec, t time.Time) time.Time {
	if t == t.Round(0) || t.After(time.Now()) {
		return t // no monotonic reading, or a deadline still to come
	}
	start, ok := x.ClockStart()
	if !ok {
		return t
	}
	return start.Add(-engine.ReadTime)
}

// After replaces time.After.
func After(d time.Duration) <-chan time.Time { return NewTimer(d).C }

// Tick replaces time.Tick.
func Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// NewTimer replaces time.NewTimer.
func NewTimer(d time.Duration) *time.Timer {
	if x := engine.Current(); x != nil {
		return x.NewTimer(d)
	}
	return time.NewTimer(d)
}

// AfterFunc replaces time.AfterFunc.
func AfterFunc(d time.Duration, f func()) *time.Timer {
	if x := engine.Current(); x != nil {
		return x.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// NewTicker replaces time.NewTicker.
func NewTicker(d time.Duration) *time.Ticker {
	if x := engine.Current(); x != nil {
		return x.NewTicker(d)
	}
	tk := time.NewTicker(d)
	engine.NoteForeignTicker(tk, d)
	return tk
}

// TimerStop replaces t.Stop().
func TimerStop(t *time.Timer) bool {
	if x := engine.Current(); x != nil && x.OwnsTimer(t) {
		return x.TimerStop(t)
	}
	return t.Stop()
}

// TimerReset replaces t.Reset(d).
func TimerReset(t *time.Timer, d time.Duration) bool {
	if x := engine.Current(); x != nil && x.OwnsTimer(t) {
		return x.TimerReset(t, d)
	}
	return t.Reset(d)
}

// TickerStop replaces t.Stop() on a *time.Ticker.
func TickerStop(t *time.Ticker) {
	if x := engine.Current(); x != nil && x.OwnsTicker(t) {
		x.TickerStop(t)
		return
	}
	t.Stop()
	engine.ForgetForeignTicker(t)
}

// TickerReset replaces t.Reset(d) on a *time.Ticker.
func TickerReset(t *time.Ticker, d time.Duration) {
	if x := engine.Current(); x != nil && x.OwnsTicker(t) {
		x.TickerReset(t, d)
		return
	}
	t.Reset(d)
	engine.NoteForeignTicker(t, d)
}
