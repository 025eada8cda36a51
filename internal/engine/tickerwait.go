package engine

import "time"

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
	switch g.op.Kind {
	case OpRecv, OpSelect:
	default:
		return 0
	}
	for _, c := range g.op.Cases {
		if c == nil || c.IsSend() {
			continue
		}
		ch := c.Chan()
		if ch == nil {
			continue
		}
		for _, t := range g.exec.timers {
			if t.period > 0 && t.ch != nil && chanAddr(t.ch) == ch {
				return t.period
			}
		}
	}
	return 0
}
