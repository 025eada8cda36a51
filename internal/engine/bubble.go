package engine

import (
	"math"
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
// goroutines of the run, and the bubble has a clock of its own (now),
// apart from the run's virtual clock, as each bubble has natively:
//
//   - It starts at 2000-01-01 00:00 UTC, and moves only when a timer of
//     the bubble fires (a Sleep, a Timer, a Ticker, an AfterFunc, a
//     context deadline), to that timer's instant. The steps, polls and
//     clock reads of goroutines outside the bubble, the run's timers and
//     other bubbles' never move it, and those of its own goroutines
//     neither: it stands still while they run.
//   - The bubble's timers are a heap of their own, ordered on its clock
//     (timers). They fire only once every goroutine of the bubble has
//     exited or is durably blocked (durablyBlocked): those due then, or
//     else those of the bubble's next instant, to which its clock
//     advances. Their firings are then choices beside the steps of
//     goroutines outside the bubble, whatever those do, and beside the
//     goroutines the first of them wake (addBubbleTimerChoices). After
//     the bubble's root goroutine exited, its clock stops.
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

// Bubble is a synctest bubble of a run. Exec.bubbles lists the bubbles
// with goroutines left, in creation order; Exec.bubbleDue is
// bubbleTimersAt's result.
type Bubble struct {
	now      time.Duration // the bubble's clock: the time since 2000-01-01 00:00 UTC, when the bubble began
	timers   []*Timer      // the active timers of the bubble: a heap on its clock, as Exec.timers on the run's
	gs       []*G          // the bubble's goroutines, with some that exited (joined, exited)
	root     *G
	live     int  // goroutines of the bubble that have not exited
	rootDone bool // the root goroutine exited: the bubble's clock stops
	waiting  *G   // the goroutine in Wait
	// The timers released to fire (releaseTimers): those due at relWhen
	// or before that were active when it was set (Timer.act <= relAct).
	relWhen time.Duration
	relAct  uint64
	// nRel counts the releases: Go's timer heap of the bubble drops the
	// timers stopped in it (Timer.zombie) when its timers run.
	nRel uint64
	// passed: the bubble's first timer pass is over (addFirstPass). early:
	// before it, a timer in Go's heap was reset to fire at once
	// (noteHeapedDue), which that pass may fire before the bubble blocks.
	passed, early bool
}

// clockAt is what a clock read in bubble b (nil: outside any bubble)
// shows: the run's virtual clock, from its Epoch; or the bubble's own,
// which starts at 2000-01-01 00:00 UTC when the bubble does, as Go's
// synctest clock does.
//
//go:norace
func (e *Exec) clockAt(b *Bubble) time.Time {
	if b != nil {
		return Epoch.Add(b.now)
	}
	return e.cfg.Epoch.Add(e.now)
}

// ClockStart returns the instant at which the clock the running goroutine
// reads started, the run's Epoch, and false if that goroutine is in a
// synctest bubble (its clock is its own).
//
//go:norace
func (e *Exec) ClockStart() (time.Time, bool) {
	if e.cur != nil && e.cur.bubble != nil {
		return time.Time{}, false
	}
	return e.cfg.Epoch, true
}

// nowIn is the current instant of the clock of bubble b, or of the run's
// virtual clock if b is nil: the clock timers made in b are set on.
//
//go:norace
func (e *Exec) nowIn(b *Bubble) time.Duration {
	if b != nil {
		return b.now
	}
	return e.now
}

// GoBubble starts f in a controlled goroutine, the root of a new bubble,
// and returns the bubble.
//
//go:norace
func (e *Exec) GoBubble(f func()) *Bubble {
	b := &Bubble{}
	g := e.newG(e.cur, f)
	if e.cfg.Record {
		g.GoPC = userPC()
	}
	b.joined(g)
	b.root = g
	e.bubbles = append(e.bubbles, b)
	e.start(g)
	return b
}

// joined is called when g, a new goroutine, joins b.
//
//go:norace
func (b *Bubble) joined(g *G) {
	g.bubble = b
	b.live++
	b.gs = append(b.gs, g)
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
	if len(b.gs) >= 2*b.live+16 {
		// Drop the goroutines that exited, now and then, from the
		// list that bubbleBlocked scans.
		n := 0
		for _, h := range b.gs {
			if h.state != gDone && h != g {
				b.gs[n] = h
				n++
			}
		}
		clear(b.gs[n:])
		b.gs = b.gs[:n]
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
	b.passed = true // the bubble blocked (addFirstPass)
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
	if b.rootDone {
		// The clock stopped: the timers left never fire, but those
		// released before (they fire in the pass that woke the root).
		return e.bubbleBlocked(b, nil) && !e.bubbleReleased(b)
	}
	return !e.bubbleTimer(b, false) && e.bubbleBlocked(b, nil)
}

// bubbleIdle reports whether every goroutine of b but skip has exited or
// is durably blocked, with no timer of b due.
//
//go:norace
func (e *Exec) bubbleIdle(b *Bubble, skip *G) bool {
	return !e.bubbleTimer(b, true) && e.bubbleBlocked(b, skip)
}

// bubbleBlocked reports whether every goroutine of b but skip has exited
// or is durably blocked. The running goroutine, the likeliest to be
// neither, is looked at first.
//
//go:norace
func (e *Exec) bubbleBlocked(b *Bubble, skip *G) bool {
	if g := e.cur; g != nil && g.bubble == b && g != skip && g.state != gDone && !e.durablyBlocked(g) {
		return false
	}
	for _, h := range b.gs {
		if h == skip || h.state == gDone {
			continue
		}
		if !e.durablyBlocked(h) {
			return false
		}
	}
	return true
}

// bubbleTimer reports whether a timer of b is pending (due now on the
// bubble's clock only, with due).
//
//go:norace
func (e *Exec) bubbleTimer(b *Bubble, due bool) bool {
	return len(b.timers) > 0 && (!due || b.timers[0].when <= b.now)
}

// addBubbleTimerChoices adds the firings of the bubbles' timers to
// e.choices. As in Go's runtime, a bubble's timers fire only once every
// goroutine of the bubble (but one in Wait) has exited or is durably
// blocked: those due on its clock then, or, if none is, those of its
// next instant, to which its clock advances (releaseTimers). The timers
// so released fire together, in any order, and interleaved with the
// goroutines they wake (Go fires them all in one pass, and the goroutines
// they wake may run at once): each stays a choice until it fired. None
// is early: a bubble's clock is its own, so no goroutine outside it is
// starved by it, and those inside are all blocked; their firing is a
// choice beside the steps of goroutines outside the bubble, whatever
// those do. Bubbles whose goroutines all exited leave e.bubbles: their
// timers never fire.
//
//go:norace
func (e *Exec) addBubbleTimerChoices() {
	n := 0
	for _, b := range e.bubbles {
		if b.live == 0 {
			continue
		}
		e.bubbles[n] = b
		n++
		if len(b.timers) == 0 {
			continue
		}
		if e.bubbleBlocked(b, b.waiting) {
			e.releaseTimers(b)
		} else if b.early && !b.passed {
			e.addFirstPass(b)
			continue // nothing was released before the first pass
		}
		if b.relAct == 0 {
			continue
		}
		for _, t := range e.bubbleTimersAt(b, b.relWhen) {
			if !b.fires(t) {
				continue
			}
			if t.sleeper != nil {
				e.choices = append(e.choices, Choice{G: t.sleeper, Case: -1})
			} else {
				e.choices = append(e.choices, Choice{Timer: t, Case: -1})
			}
		}
	}
	clear(e.bubbles[n:])
	e.bubbles = e.bubbles[:n]
}

// releaseTimers is called when every goroutine of b (but one in Wait) has
// exited or is durably blocked: it releases the timers of b active now
// and due on its clock, or, if none is, those of its next instant, so
// that they fire (addBubbleTimerChoices). The clock does not advance
// while a goroutine of the bubble is in Wait (Wait returns first), for a
// ticker whose channel is full (its tick would be dropped: see
// nextTimer; it fires once due, and skips the ticks it missed), nor for a
// timer set for never. Once the root has exited, no timer is released:
// time stops, as in Go.
//
//go:norace
func (e *Exec) releaseTimers(b *Bubble) {
	b.passed = true // the bubble blocked: its first pass is over (addFirstPass)
	if b.rootDone {
		return
	}
	w := b.now
	if b.timers[0].when > b.now {
		if b.waiting != nil {
			return
		}
		w = -1
		for _, t := range b.timers {
			if !fullTicker(t) && t.when != math.MaxInt64 && (w < 0 || t.when < w) {
				w = t.when
			}
		}
		if w < 0 {
			return
		}
	}
	if b.relWhen != w || b.relAct != e.nAct {
		b.nRel++
	}
	b.relWhen, b.relAct = w, e.nAct
}

// addFirstPass adds the firings of the timers of b due now, while b's
// first timer pass may still come and b is not blocked: Go's synctest.Run,
// once it started the bubble's main goroutine, runs the bubble's due
// timers once (timers.check) before it first parks, concurrently with the
// bubble's goroutines, and the bubble cannot block before (its active
// count). Only a timer in Go's heap can be due then, one Reset to fire at
// once (noteHeapedDue: Go runs any other at once in the goroutine that
// sets it): `AfterFunc(time.Hour, f); Stop(); Reset(0)` starts f before
// the bubble blocks if that pass comes after the Reset (3 of 3,718 native
// runs at GOMAXPROCS 2 and 4; f's goroutine then has no creator, as one
// started by the pass). The first firing is the pass (firstPass): it
// releases the timers due with it, which fire in any order, as at a
// release when the bubble blocks. Not firing any of them until the bubble
// blocks is the pass that came before the Reset: they fire then. Once the
// bubble blocked, or Wait returned, the pass is over.
//
//go:norace
func (e *Exec) addFirstPass(b *Bubble) {
	for _, t := range e.bubbleTimersAt(b, b.now) {
		if t.sleeper == nil && !fullTicker(t) {
			e.choices = append(e.choices, Choice{Timer: t, Case: -1})
		}
	}
}

// firstPass is the firing of a timer of b before b's first timer pass is
// over: that pass fires it (addFirstPass), and releases the other timers
// due now, as releaseTimers does, and drops those stopped in Go's heap
// (Timer.zombie), as a release does.
//
//go:norace
func (e *Exec) firstPass(b *Bubble) {
	b.passed = true
	b.nRel++
	b.relWhen, b.relAct = b.now, e.nAct
}

// noteHeapedDue is called when t, a timer of b in Go's heap (inGoHeap),
// was reset: due now, before b's first timer pass, that pass may fire it
// before the bubble blocks (addFirstPass).
//
//go:norace
func (b *Bubble) noteHeapedDue(t *Timer) {
	if !b.passed && t.active && t.when <= b.now {
		b.early = true
	}
}

// fires reports whether t, an active timer of b due at b.relWhen or
// before, is released (releaseTimers): it was active then, and it is not
// a ticker whose tick would be dropped, of an instant still to come.
//
//go:norace
func (b *Bubble) fires(t *Timer) bool {
	return t.act <= b.relAct && !(t.when > b.now && fullTicker(t))
}

// bubbleReleased reports whether a timer of b released to fire has not fired.
//
//go:norace
func (e *Exec) bubbleReleased(b *Bubble) bool {
	if b.relAct == 0 || len(b.timers) == 0 {
		return false
	}
	for _, t := range e.bubbleTimersAt(b, b.relWhen) {
		if b.fires(t) {
			return true
		}
	}
	return false
}

// bubbleFireNow fires t at once, in the running goroutine, if it is a
// timer of the goroutine's bubble just set (NewTimer, AfterFunc, Reset)
// to fire at or before the bubble's now, and was not in Go's timer heap
// before (a Reset of a timer there, active or stopped, leaves it in the
// heap: Timer.inGoHeap): Go's runtime runs such a timer in the goroutine
// that sets it rather than when the bubble next blocks, so that
// time.After(0) in a bubble has its value at once.
//
//go:norace
func (e *Exec) bubbleFireNow(t *Timer, heaped bool) {
	b := t.bubble
	if b == nil || heaped || !t.active || t.when > b.now || e.cur == nil || e.cur.bubble != b || e.aborting {
		return
	}
	e.noteFire(t)
	e.fireEffect(t)
}

// fullTicker reports whether t is a ticker whose channel holds a tick not
// received: firing it would drop its tick.
//
//go:norace
func fullTicker(t *Timer) bool { return t.period > 0 && t.ch != nil && len(t.ch) == cap(t.ch) }

// bubbleTimersAt returns the active timers of b due at w or before, in
// the order they became active (the heap's nodes due then, sorted; see
// timersAt). The slice is the Exec's, valid until the next call.
//
//go:norace
func (e *Exec) bubbleTimersAt(b *Bubble, w time.Duration) []*Timer {
	out := e.bubbleDue[:0]
	stack := e.timerStack[:0]
	if len(b.timers) > 0 {
		stack = append(stack, 0)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(b.timers) || b.timers[i].when > w {
			continue
		}
		out = append(out, b.timers[i])
		stack = append(stack, 2*i+1, 2*i+2)
	}
	sortByAct(out)
	e.bubbleDue, e.timerStack = out, stack
	return out
}

// The bubble's heap of timers, as the run's (time.go).

//go:norace
func (b *Bubble) pushTimer(t *Timer) {
	t.hi = len(b.timers)
	b.timers = append(b.timers, t)
	timerUp(b.timers, t.hi)
}

//go:norace
func (b *Bubble) removeTimer(t *Timer) {
	if i := t.hi; i < 0 || i >= len(b.timers) || b.timers[i] != t {
		return
	}
	b.timers = timerRemove(b.timers, t)
}

//go:norace
func (b *Bubble) fixTimer(t *Timer) {
	if i := t.hi; i >= 0 && i < len(b.timers) && b.timers[i] == t && !timerUp(b.timers, i) {
		timerDown(b.timers, i)
	}
}

// chanTimer returns the active timer, of the run or of a bubble, whose
// channel is at p, or nil.
//
//go:norace
func (e *Exec) chanTimer(p unsafe.Pointer) *Timer {
	for _, t := range e.timers {
		if t.ch != nil && chanAddr(t.ch) == p {
			return t
		}
	}
	for _, b := range e.bubbles {
		for _, t := range b.timers {
			if t.ch != nil && chanAddr(t.ch) == p {
				return t
			}
		}
	}
	return nil
}

// durablyBlocked reports whether g, parked, cannot proceed until another
// goroutine of its bubble acts: it waits on channels made in its bubble
// (having arrived, if it must), in a Cond.Wait not yet signalled, in a
// WaitGroup.Wait on a WaitGroup of its bubble (wgDurable), in a time.Sleep
// (until its timer fires), or in select {}. A lock,
// a channel made outside the bubble, or any operation that can proceed
// is not.
//
//go:norace
func (e *Exec) durablyBlocked(g *G) bool {
	op := &g.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect:
		if op.Dflt || g.committed >= 0 || g.woken > 0 || (!g.arrived && e.mustArrive(op)) {
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
		return op.Timer != nil // until its timer fires, due or not
	case OpCondBlocked:
		return !g.signalled
	case OpWGWait:
		return e.wgCount(op.Obj) != 0 && e.wgDurable(g, op.Obj)
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
