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
	if g == nil || g.exec == nil {
		return 0
	}
	var period time.Duration
	g.recvWaitsOn(func(ch unsafe.Pointer) bool {
		if t := g.exec.chanTimer(ch); t != nil && t.period > 0 {
			period = t.period
			return true
		}
		return false
	})
	return period
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
