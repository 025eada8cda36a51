package engine

import (
	"time"
	"unsafe"
)

// testing/synctest bubbles.
//
// synctest.Test(t, f) runs f in a goroutine of a new bubble; the
// goroutines it starts, and theirs, belong to the bubble. Natively a
// bubble has a fake clock that advances only when every goroutine of the
// bubble is durably blocked (blocked on something only another goroutine
// of the bubble can end: a channel made in the bubble, a select whose
// cases all are, Cond.Wait, WaitGroup.Wait, time.Sleep), synctest.Wait
// returns when every other goroutine of the bubble is durably blocked, and
// Test returns when they have all exited, or panics when they are
// deadlocked. Under heddle the bubble's goroutines are controlled
// goroutines of the run, and its clock is the run's virtual clock:
//
//   - A timer made by a goroutine of the bubble (a Sleep, a Timer, a
//     Ticker, an AfterFunc, a context deadline) never fires early: only
//     when no goroutine can run (an idle firing), or when due now. After
//     the bubble's root goroutine exited, it does not fire at all.
//   - Wait (OpBubbleWait) is enabled once every other goroutine of the
//     bubble has exited or is durably blocked (durablyBlocked) and no
//     timer of the bubble is due.
//   - Test waits at OpBubbleEnd, enabled when every goroutine of the
//     bubble has exited (Test returns), or when those left are durably
//     blocked and time cannot advance for them: no timer of the bubble
//     is pending, or the root goroutine has exited (Test panics with the
//     runtime's message, BubbleEnd's result).
//
// Both depend on the state of every goroutine of the bubble: the choice of
// the goroutine that waits is recomputed at each step while it is pending
// (bubbleDirty), and the
// exploration strategies order them with every step, as a write of
// virtual time (strategy.appendAccesses).

// Bubble is a synctest bubble of a run.
type Bubble struct {
	start    time.Duration // the run's virtual time when the bubble began: its clock reads 2000-01-01 00:00 UTC then
	root     *G
	first    int  // the root's Index: the bubble's goroutines come at or after it in Exec.gs
	live     int  // goroutines of the bubble that have not exited
	rootDone bool // the root goroutine exited: the bubble's clock stops
	waiting  *G   // the goroutine in Wait
}

// clockAt is what a clock read at the run's virtual instant now shows in
// bubble b (nil: outside any bubble): the run's clock, from its Epoch; or
// the bubble's, which starts at 2000-01-01 00:00 UTC when the bubble does,
// as Go's synctest clock does.
//
//go:norace
func (e *Exec) clockAt(b *Bubble, now time.Duration) time.Time {
	if b != nil {
		return Epoch.Add(now - b.start)
	}
	return e.cfg.Epoch.Add(now)
}

// GoBubble starts f in a controlled goroutine, the root of a new bubble,
// and returns the bubble.
//
//go:norace
func (e *Exec) GoBubble(f func()) *Bubble {
	b := &Bubble{live: 1, start: e.now}
	g := e.newG(e.cur, f)
	if e.cfg.Record {
		g.GoPC = userPC()
	}
	g.bubble = b
	b.root, b.first = g, g.Index
	e.start(g)
	return b
}

// InBubble reports whether the running goroutine belongs to a bubble.
//
//go:norace
func (e *Exec) InBubble() bool { return e.cur != nil && e.cur.bubble != nil }

// exited is called when g, a goroutine of b, exits.
//
//go:norace
func (b *Bubble) exited(g *G) {
	b.live--
	if g == b.root {
		b.rootDone = true
	}
}

// bubbleChan associates a channel being made with the bubble of the
// running goroutine.
//
//go:norace
func (e *Exec) bubbleChan(cs *chanState) {
	if g := e.cur; g != nil && g.bubble != nil {
		cs.bubble = g.bubble
	}
}

// BubbleWait is synctest.Wait in a controlled goroutine: it blocks until
// every other goroutine of the running goroutine's bubble is durably
// blocked, and panics as the runtime does outside a bubble or when
// another goroutine of the bubble is already waiting.
//
//go:norace
func (e *Exec) BubbleWait() {
	g := e.cur
	b := g.bubble
	if b == nil {
		panic("goroutine is not in a bubble")
	}
	if b.waiting != nil {
		panic("wait already in progress")
	}
	if e.aborting {
		return
	}
	b.waiting = g
	e.bubbleWait(g)
	defer e.bubbleWaited(g, b)
	e.yield(Op{Kind: OpBubbleWait, Obj: unsafe.Pointer(b)})
	// What the bubble's goroutines did before they blocked happens
	// before Wait returns, as in the runtime (see yield).
	raceAcquire(unsafe.Pointer(b))
}

// bubbleWaited ends a BubbleWait. (A method, not a deferred closure: a
// closure would be compiled with the race detector's instrumentation.)
//
//go:norace
func (e *Exec) bubbleWaited(g *G, b *Bubble) {
	e.bubbleWaitDone(g)
	b.waiting = nil
}

// bubbleEndWait is BubbleEnd's wait for the bubble to be over.
//
//go:norace
func (e *Exec) bubbleEndWait(g *G, b *Bubble) {
	defer e.bubbleWaitDone(g)
	e.yield(Op{Kind: OpBubbleEnd, Obj: unsafe.Pointer(b)})
}

// BubbleEnd waits until b is over, and returns "" when its goroutines all
// exited, or the runtime's message when they are deadlocked.
//
//go:norace
func (e *Exec) BubbleEnd(b *Bubble) string {
	if e.aborting {
		return ""
	}
	g := e.cur
	e.bubbleWait(g)
	e.bubbleEndWait(g, b)
	raceAcquire(unsafe.Pointer(b)) // see BubbleWait
	switch {
	case b.live == 0:
		return ""
	case b.rootDone:
		return "deadlock: main bubble goroutine has exited but blocked goroutines remain"
	}
	return "deadlock: all goroutines in bubble are blocked"
}

// bubbleWait and bubbleWaitDone count g in and out of the goroutines
// parked at OpBubbleWait or OpBubbleEnd.
//
//go:norace
func (e *Exec) bubbleWait(g *G) {
	e.bubbleWaits++
	e.bubbleWaiters = append(e.bubbleWaiters, g)
}

//go:norace
func (e *Exec) bubbleWaitDone(g *G) {
	e.bubbleWaits--
	for i, h := range e.bubbleWaiters {
		if h == g {
			last := len(e.bubbleWaiters) - 1
			e.bubbleWaiters[i] = e.bubbleWaiters[last]
			e.bubbleWaiters[last] = nil
			e.bubbleWaiters = e.bubbleWaiters[:last]
			break
		}
	}
}

// bubbleDirty makes the next pass of enabled recompute the choices of the
// goroutines parked at OpBubbleWait or OpBubbleEnd, which depend on every
// goroutine of their bubble; the rest of the enabled set is kept as at
// other steps. (The whole set was rebuilt, a pass over every goroutine
// the run had made, at every step of a bubble: workerpool's tests, a
// hundred bubbles a run, spent 40% of their time there.)
//
//go:norace
func (e *Exec) bubbleDirty() {
	if !e.incr || e.rebuildAll {
		return
	}
	for _, g := range e.bubbleWaiters {
		if g.state == gParked {
			e.markDirty(g)
		}
	}
}

// bubbleOpEnabled reports whether g's pending OpBubbleWait or OpBubbleEnd
// can proceed.
//
//go:norace
func (e *Exec) bubbleOpEnabled(g *G) bool {
	b := (*Bubble)(g.op.Obj)
	if g.op.Kind == OpBubbleWait {
		return e.bubbleIdle(b, g)
	}
	if b.live == 0 {
		return true
	}
	if !e.bubbleIdle(b, nil) {
		return false
	}
	return b.rootDone || !e.bubbleTimer(b, false)
}

// bubbleIdle reports whether every goroutine of b but skip has exited or
// is durably blocked, with no timer of b due.
//
//go:norace
func (e *Exec) bubbleIdle(b *Bubble, skip *G) bool {
	if e.bubbleTimer(b, true) {
		return false
	}
	for _, h := range e.gs[b.first:] {
		if h.bubble != b || h == skip || h.state == gDone {
			continue
		}
		if !e.durablyBlocked(h) {
			return false
		}
	}
	return true
}

// bubbleTimer reports whether a timer of b is pending (due now only, with
// due).
//
//go:norace
func (e *Exec) bubbleTimer(b *Bubble, due bool) bool {
	for _, t := range e.timers {
		if t.bubble == b && t.active && (!due || t.when <= e.now) {
			return true
		}
	}
	return false
}

// durablyBlocked reports whether g, parked, cannot proceed until another
// goroutine of its bubble acts: it waits on channels made in its bubble
// (having arrived, if it must), in a Cond.Wait not yet signalled, in a
// WaitGroup.Wait, in a time.Sleep not yet due, or in select {}. A lock,
// a channel made outside the bubble, or any operation that can proceed
// is not.
//
//go:norace
func (e *Exec) durablyBlocked(g *G) bool {
	op := &g.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect:
		if op.Dflt || g.committed >= 0 || (!g.arrived && e.mustArrive(op)) {
			return false
		}
		for _, c := range op.Cases {
			p := c.Chan()
			if p == nil {
				continue // a nil channel blocks forever
			}
			cs := e.chanOf(p)
			if cs.bubble != g.bubble || cs.closed {
				return false
			}
			if c.Cap() > 0 {
				if c.IsSend() && c.Len() < c.Cap() || !c.IsSend() && c.Len() > 0 {
					return false
				}
			} else if h, _ := e.partner(g, c); h != nil {
				return false
			}
		}
		return true
	case OpSleep:
		return op.Timer != nil && op.Timer.when > e.now
	case OpCondBlocked:
		return !g.signalled
	case OpWGWait:
		return e.wgCount(op.Obj) != 0
	case OpBlock:
		return true
	}
	return false
}

// Rebuilds returns how many passes of the enabled set rebuilt it whole,
// rather than recomputing the goroutines a step may have changed
// (enabledset.go): for tests.
//
//go:norace
func (e *Exec) Rebuilds() int { return e.rebuilds }
