package engine

import (
	"time"
	"unsafe"
)

// TickerWait returns the period of an active ticker whose channel g's
// pending receive or select waits on, or 0. A goroutine left waiting on a
// ticker when a test returns is not blocked forever: it runs every period,
// and reports say so.
//
//go:norace
func (g *G) TickerWait() time.Duration {
	period, _ := g.tickerWait()
	return period
}

// ForeignTickerWait is TickerWait for a ticker made outside the run (at
// init, in a package variable: foreignticker.go), whose ticks heddle does
// not control, or 0.
//
//go:norace
func (g *G) ForeignTickerWait() time.Duration {
	period, foreign := g.tickerWait()
	if !foreign {
		return 0
	}
	return period
}

// tickerWait returns the period of the ticker g waits on (TickerWait), and
// whether it was made outside the run.
//
//go:norace
func (g *G) tickerWait() (period time.Duration, foreign bool) {
	if g == nil || g.exec == nil {
		return 0, false
	}
	g.recvWaitsOn(func(ch unsafe.Pointer) bool {
		if t := g.exec.chanTimer(ch); t != nil && t.period > 0 {
			period = t.period
			return true
		}
		if d := foreignTickerPeriod(ch); d > 0 {
			period, foreign = d, true
			return true
		}
		return false
	})
	return period, foreign
}

// recvWaitsOn reports whether g's pending receive or select has a receive
// case on a channel for which is returns true.
//
//go:norace
func (g *G) recvWaitsOn(is func(ch unsafe.Pointer) bool) bool {
	switch g.op.Kind {
	case OpRecv, OpSelect:
	default:
		return false
	}
	for _, c := range g.op.Cases {
		if c == nil || c.IsSend() {
			continue
		}
		if ch := c.Chan(); ch != nil && is(ch) {
			return true
		}
	}
	return false
}
