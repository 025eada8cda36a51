package engine

import "unsafe"

// condState is the shadow state of a sync.Cond.
type condState struct {
	// waiters are the goroutines in Wait that joined the wait list and
	// were not signalled yet, oldest first.
	waiters []*G
}

//go:norace
func (e *Exec) cond(p unsafe.Pointer) *condState { return &e.objs.obtain(p).cond }

// CondWait models Cond.Wait as Go implements it: take a ticket (join the
// wait list, in ticket order), unlock c.L, join the notify list and wait to
// be signalled, lock c.L. lockPtr is c.L's address when it is a sync mutex
// (a *sync.RWMutex if lockRW), to catch a Wait without the lock.
//
// Go joins the notify list after the unlock (sync.Cond.Wait,
// runtime.notifyListWait): a Signal in between takes the waiter's ticket
// and finds no goroutine to wake, and the waiter then does not park. Only
// the bubble check tells the two apart (a Signal from outside a synctest
// bubble is fatal only if it wakes a parked goroutine of the bubble), so
// that window is a step of its own only for a waiter in a bubble.
//
//go:norace
func (e *Exec) CondWait(p unsafe.Pointer, unlock, lock func(), lockPtr unsafe.Pointer, lockRW bool) {
	nilCheck(p)
	e.yield(Op{Kind: OpCondWait, Obj: p})
	if lockPtr != nil && !e.lockHeld(lockPtr, lockRW) {
		e.misuse("fatal error: sync: unlock of unlocked mutex (sync.Cond.Wait without holding c.L)")
		return
	}
	g := e.cur
	c := e.cond(p)
	g.signalled = false
	g.condQueued = g.bubble == nil
	c.waiters = append(c.waiters, g)
	unlock()
	if !g.condQueued {
		// The window: a step on the Cond, so that a Signal may come
		// before the waiter joins the notify list.
		e.yield(Op{Kind: OpCondWait, Obj: p})
		g.condQueued = true
		if g.signalled {
			// Signalled in the window: notifyListWait returns at once.
			g.signalled = false
			raceAcquire(p)
			lock()
			return
		}
	}
	e.yield(Op{Kind: OpCondBlocked, Obj: p})
	g.signalled = false
	raceAcquire(p)
	lock()
}

//go:norace
func (e *Exec) lockHeld(p unsafe.Pointer, rw bool) bool {
	if rw {
		e.rw(p)
		return rwClaimed(p) || rwReaders(p) > 0
	}
	return e.mutexLocked(p)
}

// CondSignal models Signal (all == false) and Broadcast.
//
//go:norace
func (e *Exec) CondSignal(p unsafe.Pointer, all bool) {
	nilCheck(p)
	kind := OpCondSignal
	if all {
		kind = OpCondBroadcast
	}
	e.yield(Op{Kind: kind, Obj: p})
	c := e.cond(p)
	raceReleaseMerge(p)
	for len(c.waiters) > 0 {
		g := c.waiters[0]
		if g.condQueued && g.bubble != nil && e.cur != nil && e.cur.bubble != g.bubble && !e.aborting {
			// Go's notifyList wakes no goroutine of a bubble from
			// outside it (runtime/sema.go); one that took its ticket
			// but has not joined the list yet is not woken, only
			// notified.
			e.misuse("fatal error: semaphore wake of synctest goroutine from outside bubble")
			return
		}
		c.waiters = c.waiters[1:]
		g.signalled = true
		if !all {
			break
		}
	}
}
