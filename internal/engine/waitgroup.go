package engine

import "unsafe"

// wgState is the shadow state of a sync.WaitGroup. The counter is kept in
// the WaitGroup itself (syncstate.go).
type wgState struct {
	// zeroAt is the announcement sequence number (Exec.seq) when a Done
	// last took the counter to zero: a Wait announced before it was
	// blocked, as it is in Go, until then.
	zeroAt uint64
	// waiters are the goroutines in Wait on it, in no order: looking
	// for a waiter at an Add from zero went through every goroutine of
	// the run (pond's TestPoolMetrics: 10,000 of them, at every start of
	// a worker).
	waiters []*G
	// bubble is the synctest bubble the WaitGroup is associated with, and
	// inBubble the bubble flag of its state, as Go's sync.WaitGroup has
	// them (wgBubbleAdd).
	bubble   *Bubble
	inBubble bool
}

//go:norace
func (e *Exec) wg(p unsafe.Pointer) *wgState { return &e.syncObj(p, syncWG).wg }

// wgCount returns the counter of the WaitGroup at p.
//
//go:norace
func (e *Exec) wgCount(p unsafe.Pointer) int {
	e.wg(p)
	return wgCount(p)
}

// WaitGroupAdd models WaitGroup.Add and Done.
//
// An Add with a positive delta while the counter is zero and a goroutine
// waits in Wait is a misuse, as Go's documentation says ("calls with a
// positive delta that occur when the counter is zero must happen before a
// Wait"): nothing can order the Add before a Wait that has not returned.
// If the waiter was blocked (the counter was positive after it called
// Wait), Go panics in Wait ("WaitGroup is reused before previous Wait has
// returned"); otherwise the Wait can run next, find the counter positive
// and block, and the race detector reports the Add and the Wait. The
// correct pattern, wg.Add(1); go f(); wg.Wait(), adds before anyone waits.
//
//go:norace
func (e *Exec) WaitGroupAdd(p unsafe.Pointer, delta int) {
	nilCheck(p)
	e.yield(Op{Kind: OpWGAdd, Obj: p})
	w := e.wg(p)
	count := wgCount(p)
	bubbled, bad := e.wgBubbleAdd(p, w, count)
	if bad {
		return
	}
	if delta > 0 && count == 0 {
		if g := e.wgWaiter(p); g != nil {
			if g.opSeq <= w.zeroAt {
				e.misuse("sync: WaitGroup is reused before previous Wait has returned (Add from zero while " + g.ID + " has not returned from Wait)")
			} else {
				e.misuse("sync: WaitGroup misuse: Add called concurrently with Wait (Add from zero while " + g.ID + " is in Wait: Add is not ordered before Wait, which the race detector reports)")
			}
			return
		}
	}
	if delta < 0 {
		raceReleaseMerge(p)
	}
	count += delta
	if w.inBubble && !bubbled && !e.aborting {
		e.misuse("fatal error: sync: WaitGroup.Add called from inside and outside synctest bubble")
		return
	}
	if count < 0 {
		setWGCount(p, 0)
		panic(plainError("sync: negative WaitGroup counter"))
	}
	setWGCount(p, count)
	if count == 0 && delta < 0 {
		w.zeroAt = e.seq
		if w.inBubble && e.wgWaiter(p) != nil {
			// Go's Add clears the state, and the association, when
			// it wakes the waiters.
			w.bubble, w.inBubble = nil, false
		}
	}
}

// wgBubbleAdd is the start of Go's WaitGroup.Add in a synctest bubble:
// an Add there associates the WaitGroup at p, if it is in the heap (a
// package variable never is), with the running goroutine's bubble and
// sets the bubble flag of its state. It reports whether it did
// (bubbled), and, as a misuse with Go's fatal error, whether the
// WaitGroup is another bubble's, or was in use outside any bubble (its
// counter not zero without the flag). Add checks the flag after (the
// flag set, an Add not bubbled is fatal too).
//
//go:norace
func (e *Exec) wgBubbleAdd(p unsafe.Pointer, w *wgState, count int) (bubbled, bad bool) {
	b := e.cur.bubble
	if b == nil || e.aborting || !heapObject(p) {
		return false, false
	}
	switch w.bubble {
	case nil:
		w.bubble = b
	case b:
	default:
		e.misuse("fatal error: sync: WaitGroup.Add called from multiple synctest bubbles")
		return false, true
	}
	if !w.inBubble && count != 0 {
		e.misuse("fatal error: sync: WaitGroup.Add called from inside and outside synctest bubble")
		return false, true
	}
	w.inBubble = true
	return true, false
}

// wgDurable reports whether g, in WaitGroup.Wait on the WaitGroup at p, is
// durably blocked there: g is in a synctest bubble, with which the
// WaitGroup is associated (an Add in the bubble made it its own). A Wait
// on a WaitGroup of no bubble (or a package variable) is not, as in Go.
//
//go:norace
func (e *Exec) wgDurable(g *G, p unsafe.Pointer) bool {
	w := e.wg(p)
	return w.inBubble && w.bubble != nil && w.bubble == g.bubble
}

// wgWaiter returns a goroutine that waits in Wait on the WaitGroup at p,
// or nil: the first in creation order, as a pass over e.gs finds.
//
//go:norace
func (e *Exec) wgWaiter(p unsafe.Pointer) *G {
	var first *G
	for _, g := range e.objs.obtain(p).wg.waiters {
		// One that was unwound in Wait stays on the list.
		if g.state == gParked && g.op.Kind == OpWGWait && g.op.Obj == p && (first == nil || g.Index < first.Index) {
			first = g
		}
	}
	return first
}

// dropWaiter takes g, back from Wait, off w's waiters.
//
//go:norace
func (w *wgState) dropWaiter(g *G) {
	n := len(w.waiters) - 1
	for i := n; i >= 0; i-- {
		if w.waiters[i] == g {
			w.waiters[i] = w.waiters[n]
			w.waiters[n] = nil
			w.waiters = w.waiters[:n]
			return
		}
	}
}

// WaitGroupWait models WaitGroup.Wait: enabled when the counter is zero.
//
//go:norace
func (e *Exec) WaitGroupWait(p unsafe.Pointer) {
	nilCheck(p)
	w, g := &e.objs.obtain(p).wg, e.cur
	w.waiters = append(w.waiters, g)
	e.yield(Op{Kind: OpWGWait, Obj: p})
	w.dropWaiter(g)
	if w := e.wg(p); w.inBubble && !e.aborting {
		// Go's Wait finds the counter zero with no waiter and the
		// bubble flag set: it clears them if the WaitGroup is its
		// bubble's. Outside any bubble, that check (isAssociated) reads
		// the bubble of a goroutine that has none: Go 1.26 faults.
		switch {
		case g.bubble == nil:
			var none *Bubble
			_ = none.now // the runtime's nil dereference, as Go's own
		case w.bubble == g.bubble:
			w.bubble, w.inBubble = nil, false
		}
	}
	raceAcquire(p)
}

// plainError is a panic value that prints like the runtime's own.
type plainError string

//go:norace
func (p plainError) Error() string { return string(p) }
