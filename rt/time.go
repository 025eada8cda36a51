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

// Now replaces time.Now.
func Now() time.Time {
	if x := engine.Current(); x != nil {
		return x.Now()
	}
	return time.Now()
}

// Since replaces time.Since.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until replaces time.Until.
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

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
	return time.NewTicker(d)
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
}

// TickerReset replaces t.Reset(d) on a *time.Ticker.
func TickerReset(t *time.Ticker, d time.Duration) {
	if x := engine.Current(); x != nil && x.OwnsTicker(t) {
		x.TickerReset(t, d)
		return
	}
	t.Reset(d)
}
