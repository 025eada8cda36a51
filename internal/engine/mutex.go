package engine

import (
	"time"
	"unsafe"
)

// mutexLocked reports whether the sync.Mutex at p is locked: between a Lock
// (or successful TryLock) and its Unlock. The state is the Mutex's own
// (syncstate.go).
//
//go:norace
func (e *Exec) mutexLocked(p unsafe.Pointer) bool {
	e.mutexObj(p)
	return mutexLocked(p)
}

// mutexObj returns the shadow object of the Mutex at p, saving its state
// if the run had not touched it yet (syncstate.go).
//
//go:norace
func (e *Exec) mutexObj(p unsafe.Pointer) *object {
	if p != e.lastMutex {
		// A thousand goroutines waiting on one mutex ask at every
		// rebuild of the enabled set: one lookup, not a thousand.
		e.lastMutexObj = e.syncObj(p, syncMutex)
		e.lastMutex = p
	}
	return e.lastMutexObj
}

// MutexLock models Mutex.Lock: enabled while the mutex is unlocked.
//
//go:norace
func (e *Exec) MutexLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpLock, Obj: p})
	o := e.mutexObj(p)
	for !tryLockWord(p) {
		if e.aborting {
			forceLockWord(p)
			break
		}
		// A goroutine heddle does not control took the mutex since
		// the choice (syncstate.go): wait for it as for any holder.
		e.yield(Op{Kind: OpLock, Obj: p})
		o = e.mutexObj(p)
	}
	o.held = true
	e.acquired(p)
	raceAcquire(p)
}

// MutexTryLock models Mutex.TryLock.
//
//go:norace
func (e *Exec) MutexTryLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpTryLock, Obj: p})
	if e.mutexLocked(p) || e.starving(p) || !tryLockWord(p) {
		e.poll(e.cur)
		return false
	}
	e.mutexObj(p).held = true
	raceAcquire(p)
	return true
}

// MutexUnlock models Mutex.Unlock.
//
//go:norace
func (e *Exec) MutexUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpUnlock, Obj: p})
	o := e.mutexObj(p)
	if *word32(p, mutexStateOff)&mutexLockedBit == 0 {
		e.misuse("fatal error: sync: unlock of unlocked mutex")
		return
	}
	raceRelease(p)
	o.held = false
	unlockWord(p)
	e.released(p)
}

// rwState is the shadow state of a sync.RWMutex. Whether a writer holds or
// claimed the lock, and how many readers hold it, is kept in the RWMutex
// itself (syncstate.go).
type rwState struct {
	// waiting is the writer that claimed the lock and waits for the
	// readers to leave. While it waits, new readers block, as in Go.
	waiting *G
	// queue holds the goroutines queued on a Mutex, or on an RWMutex's
	// writer slot, in the order they joined (mutex queue, below).
	queue []*G
	// disordered is set when a goroutine took the lock ahead of the
	// queue: the queue's order is no longer known (see acquired).
	disordered bool
	// Starvation mode (see the comment on the mutex queue): starving is
	// set when a queued goroutine that lost the lock to a barger has
	// certainly seen that it waited over 1 ms; lost when a barger took
	// the lock ahead of a queue whose goroutines had waited over 1 ms at
	// the Unlock before it (unlockAt).
	starving, lost bool
	unlockAt       time.Duration
	// readers are the goroutines blocked in RLock on an RWMutex that
	// counted themselves as readers, to be admitted by the writer's
	// Unlock.
	readers []*G
}

// lookHook, if set (by tests), is called each time a pass of enabled
// looks at the state of the lock at p for a goroutine blocked on it
// (lockEnabled, or a lockView made).
var lookHook func(p unsafe.Pointer)

//go:norace
func (e *Exec) rw(p unsafe.Pointer) *rwState { return &e.syncObj(p, syncRW).rw }

// rwWriter reports whether a writer holds the RWMutex at p (it claimed it
// and does not wait for readers).
//
//go:norace
func (e *Exec) rwWriter(p unsafe.Pointer) bool { return rwClaimed(p) && e.rw(p).waiting == nil }

// RWLock models RWMutex.Lock in two steps: claim the writer slot (which
// blocks new readers), then wait for the readers to leave.
//
//go:norace
func (e *Exec) RWLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpWLock, Obj: p})
	rw := e.rw(p)
	e.acquired(p)
	rwClaim(p)
	if rwReaders(p) > 0 {
		rw.waiting = e.cur
		e.yield(Op{Kind: OpWLockWait, Obj: p})
		rw.waiting = nil
	}
	raceAcquire(p)
	raceAcquire(readerAddr(p))
}

// RWUnlock models RWMutex.Unlock.
//
//go:norace
func (e *Exec) RWUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpWUnlock, Obj: p})
	if !e.rwWriter(p) {
		e.misuse("fatal error: sync: Unlock of unlocked RWMutex")
		return
	}
	raceRelease(p)
	e.admitReaders(p)
	rwRelease(p)
	e.released(p)
}

// RWRLock models RWMutex.RLock.
//
//go:norace
func (e *Exec) RWRLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpRLock, Obj: p})
	e.rw(p)
	if g := e.cur; g.sq.on(g, p) && g.sq.admitted {
		g.sq = queued{} // counted by the writer's Unlock that admitted it
	} else {
		rwAddReaders(p, 1)
	}
	raceAcquire(p)
}

// RWRUnlock models RWMutex.RUnlock.
//
//go:norace
func (e *Exec) RWRUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpRUnlock, Obj: p})
	e.rw(p)
	if rwReaders(p) <= 0 {
		e.misuse("fatal error: sync: RUnlock of unlocked RWMutex")
		return
	}
	raceReleaseMerge(readerAddr(p))
	rwAddReaders(p, -1)
}

// RWTryLock models RWMutex.TryLock.
//
//go:norace
func (e *Exec) RWTryLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpRWTryLock, Obj: p})
	e.rw(p)
	if rwClaimed(p) || rwReaders(p) > 0 || e.starving(p) {
		e.poll(e.cur)
		return false
	}
	rwClaim(p)
	raceAcquire(p)
	raceAcquire(readerAddr(p))
	return true
}

// RWTryRLock models RWMutex.TryRLock.
//
//go:norace
func (e *Exec) RWTryRLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpRWTryRLock, Obj: p})
	e.rw(p)
	if rwClaimed(p) {
		e.poll(e.cur)
		return false
	}
	rwAddReaders(p, 1)
	raceAcquire(p)
	return true
}

// readerAddr is a second synchronization address per RWMutex, on which
// readers release and writers acquire (as in sync.RWMutex's own race
// annotations).
//
//go:norace
func readerAddr(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, 1) }

// The mutex queue.
//
// In Go a goroutine that finds a Mutex locked spins briefly, then sleeps on
// the mutex's semaphore, in a FIFO queue. Unlock wakes the oldest sleeper
// only, and that one competes for the lock with goroutines that have not
// slept yet (they barge in); one that sleeps behind it cannot take the lock
// before it (internal/sync/mutex.go, runtime/sema.go). An RWMutex's writers
// queue the same way on its writer Mutex, and a reader blocked by a writer
// has already counted itself a reader: the writer's Unlock admits it, so a
// writer that queued after it waits for it to leave.
//
// When a goroutine reaches the queue is not observable in Go, and a
// goroutine blocked on a lock may in principle not have reached it yet, so
// heddle orders only what Go orders for certain: a goroutine blocked on a
// Lock (or on an RWMutex's Lock or RLock) when the virtual clock advances
// because no goroutine can run (an idle advance: a sleep or timer fires)
// joins the queue then; those that join at the same advance are in any
// order among themselves (a batch). While the lock is free, a goroutine not
// in the queue may take it, and so may those of the queue's first batch;
// the later batches wait. A blocked reader joins the RWMutex's readers at
// an idle advance and is admitted (counted as holding a read lock) by the
// writer's Unlock.
//
// Go's queue is not strictly FIFO when goroutines barge in: a woken waiter
// that loses to a barger goes back to the front, but one whose semaphore
// wake-up a goroutine entering the queue stole goes to the back. heddle
// does not follow which happened: once a goroutine outside the queue takes
// the lock ahead of a non-empty queue, the queue is one batch (any order)
// until it empties.
//
// Starvation mode: a woken waiter that loses to a barger after waiting over
// 1 ms switches the mutex to starvation mode, where Unlock hands the lock
// to the queue's head and new goroutines queue instead of barging in (and
// TryLock fails) until a waiter that waited less than 1 ms, or the last
// one, takes it. On the virtual clock: a queued goroutine waited from the
// advance at which it joined at the latest, and the head that lost has
// certainly run (and seen how long it waited, as of the Unlock that woke
// it) by the next idle advance, which is when heddle enters starvation
// mode. heddle leaves it when Go may: when a goroutine that may have waited
// 1 ms or less takes the lock, or the queue empties.

// queued is a goroutine's place in a lock's queue.
type queued struct {
	obj      unsafe.Pointer // the Mutex or RWMutex
	seq      uint64         // the goroutine's opSeq when it joined: its pending Lock or RLock
	batch    int            // Exec.steps at the idle advance when it joined
	since    time.Duration  // the virtual time before that advance: it had queued by then
	admitted bool           // a reader admitted by the writer's Unlock
	listed   uint64         // the opSeq for which the goroutine is in Exec.lockers
}

// on reports whether q, g's, is a place on p for g's pending operation.
//
//go:norace
func (q *queued) on(g *G, p unsafe.Pointer) bool {
	return q.obj == p && q.seq == g.opSeq && q.obj != nil
}

// lockEnabled reports whether g's pending Lock, RWMutex Lock or RLock can
// proceed.
//
//go:norace
func (e *Exec) lockEnabled(g *G) bool {
	p := g.op.Obj
	if lookHook != nil {
		lookHook(p)
	}
	switch g.op.Kind {
	case OpLock:
		if e.mutexLocked(p) {
			e.blocked(g)
			return false
		}
	case OpRLock:
		e.rw(p)
		if !rwClaimed(p) || g.sq.on(g, p) && g.sq.admitted {
			return true
		}
		e.blocked(g)
		return false
	case OpWLock:
		e.rw(p)
		if rwClaimed(p) {
			e.blocked(g)
			return false
		}
	}
	h := e.queueHead(p)
	if !g.sq.on(g, p) {
		// Not queued: it may barge in, unless the mutex is in
		// starvation mode, where it goes to the back of the queue.
		return h == nil || !e.objs.get(p).rw.starving
	}
	return h == nil || h.sq.batch == g.sq.batch
}

// lockView is what decides, in one pass of enabled, whether a goroutine
// blocked in Lock on a Mutex (or in Lock or RLock on an RWMutex), and not
// in its queue, may take it: the same for all of them. A thousand
// goroutines waiting on one mutex all change at its every Lock and
// Unlock (merge); looking the mutex up for each of them was a fifth of a
// step's time (golang-lru's expirable TestLRUConcurrency).
type lockView struct {
	p unsafe.Pointer
	// held: a goroutine holds the lock (an RWMutex: a writer holds or
	// claimed it). barge, when known: it is not held, and a goroutine
	// that is not queued may take it.
	held, barge, known bool
}

// waiterEnabled is lockEnabled for g, pending in Lock on a Mutex or Lock
// or RLock on an RWMutex, with v caching the state of the lock for the
// current pass of enabled only (no step may run between two calls with
// the same v). ok is false when it does not apply (g is not in one of
// those operations, or is queued on the lock): lockEnabled must be asked.
// It does what lockEnabled does, in the same cases.
//
//go:norace
func (e *Exec) waiterEnabled(g *G, v *lockView) (enabled, ok bool) {
	p, k := g.op.Obj, g.op.Kind
	if p == nil || (k != OpLock && k != OpWLock && k != OpRLock) {
		return false, false
	}
	if p != v.p {
		// One address is one kind of lock: a Mutex, or an RWMutex.
		*v = lockView{p: p}
		if lookHook != nil {
			lookHook(p)
		}
		if k == OpLock {
			v.held = e.mutexLocked(p)
		} else {
			e.rw(p)
			v.held = rwClaimed(p)
		}
	}
	if g.sq.on(g, p) {
		return false, false // queued, or a reader the writer admitted
	}
	if v.held {
		e.blocked(g)
		return false, true
	}
	if k == OpRLock {
		return true, true
	}
	if !v.known {
		// As lockEnabled does, and only when it does: queueHead drops
		// the goroutines that left.
		v.barge, v.known = e.queueHead(p) == nil || !e.objs.get(p).rw.starving, true
	}
	return v.barge, true
}

// blocked notes g, found blocked on a lock, for the next idle advance.
//
//go:norace
func (e *Exec) blocked(g *G) {
	if g.sq.listed != g.opSeq {
		g.sq.listed = g.opSeq
		e.lockers = append(e.lockers, g)
	}
}

// starving reports whether the Mutex (or RWMutex writer slot) at p is in
// starvation mode.
//
//go:norace
func (e *Exec) starving(p unsafe.Pointer) bool {
	o := e.objs.get(p)
	return o != nil && o.rw.starving && e.queueHead(p) != nil
}

// released is the Unlock of the Mutex (or RWMutex writer slot) at p.
//
//go:norace
func (e *Exec) released(p unsafe.Pointer) {
	if o := e.objs.get(p); o != nil && len(o.rw.queue) > 0 {
		e.markClock(e.cur) // starvation mode reads the clock
		o.rw.unlockAt = e.now
	}
}

// queueHead returns the first goroutine still queued on p, dropping those
// that left (the run unwound them).
//
//go:norace
func (e *Exec) queueHead(p unsafe.Pointer) *G {
	q := &e.objs.get(p).rw
	for len(q.queue) > 0 {
		h := q.queue[0]
		if h.state == gParked && h.sq.on(h, p) {
			return h
		}
		q.queue[0] = nil
		q.queue = q.queue[1:]
	}
	q.disordered, q.starving, q.lost = false, false, false
	return nil
}

// acquired is the current goroutine's taking of the Mutex (or RWMutex
// writer slot) at p: it leaves the queue, and if it was not in it while
// the queue was not empty, it barged in (see the comment above).
//
//go:norace
func (e *Exec) acquired(p unsafe.Pointer) {
	g := e.cur
	o := e.objs.get(p)
	if o == nil || len(o.rw.queue) == 0 {
		g.sq = queued{}
		return
	}
	q := &o.rw
	if g.sq.on(g, p) {
		e.markClock(g) // starvation mode reads the clock
		if q.starving && e.now-g.sq.since <= starvationThreshold {
			// Handed the lock in starvation mode, it may have waited
			// less than 1 ms (it queued by g.sq.since): Go may leave
			// starvation mode, and heddle does, which only lets more
			// happen (the last waiter leaving it is queueHead's).
			q.starving = false
		}
		q.lost = false
		g.sq = queued{}
		for i, h := range q.queue {
			if h == g {
				// Not copy: its runtime code reports its writes to the
				// race detector even from norace code (see moveChoices).
				for j := i; j < len(q.queue)-1; j++ {
					q.queue[j] = q.queue[j+1]
				}
				q.queue[len(q.queue)-1] = nil
				q.queue = q.queue[:len(q.queue)-1]
				break
			}
		}
		e.queueHead(p)
		return
	}
	if h := e.queueHead(p); h != nil {
		// The woken head lost: once it runs, it sees whether it waited
		// over 1 ms, as of the Unlock that woke it at the latest.
		oldest := true
		for _, x := range q.queue {
			if x.sq.batch == h.sq.batch && q.unlockAt-x.sq.since <= starvationThreshold {
				oldest = false
			}
		}
		q.lost = q.lost || oldest
		q.disordered = true
		for _, x := range q.queue {
			x.sq.batch = h.sq.batch
		}
	}
}

// starvationThreshold is sync's starvationThresholdNs.
const starvationThreshold = time.Millisecond

// idleAdvance is called when the virtual clock advances because no
// goroutine could run: every goroutine blocked on a Mutex or an RWMutex
// joins its queue, or its readers (see the comment above).
//
//go:norace
func (e *Exec) idleAdvance() {
	kept := e.lockers[:0]
	for _, g := range e.lockers {
		if g.state != gParked || g.sq.listed != g.opSeq {
			continue // it moved on
		}
		kept = append(kept, g)
		p := g.op.Obj
		if g.sq.on(g, p) && !g.sq.admitted {
			// The head that lost to a barger has run since, and
			// switched the mutex to starvation mode.
			if q := &e.objs.obtain(p).rw; q.lost {
				q.lost = false
				q.starving = true
			}
		}
		switch g.op.Kind {
		case OpLock:
			if !mutexLocked(p) || g.sq.on(g, p) {
				continue
			}
		case OpWLock:
			if !rwClaimed(p) || g.sq.on(g, p) {
				continue
			}
		case OpRLock:
			if rwClaimed(p) && !g.sq.on(g, p) {
				g.sq = queued{obj: p, seq: g.opSeq, listed: g.sq.listed}
				q := &e.objs.obtain(p).rw
				q.readers = append(q.readers, g)
			}
			continue
		default:
			continue
		}
		q := &e.objs.obtain(p).rw
		batch := e.steps
		if h := e.queueHead(p); h != nil && q.disordered {
			batch = h.sq.batch
		}
		e.markClock(g) // since: starvation mode reads the clock
		g.sq = queued{obj: p, seq: g.opSeq, batch: batch, since: e.now, listed: g.sq.listed}
		q.queue = append(q.queue, g)
		// Its mutex's plain waiters now depend on the queue (lockgroup.go).
		e.dissolve(p)
	}
	clear(e.lockers[len(kept):])
	e.lockers = kept
}

// admitReaders is the writer's Unlock of the RWMutex at p admitting the
// readers that blocked on it and counted themselves: they hold a read lock
// from now on, and will return from RLock.
//
//go:norace
func (e *Exec) admitReaders(p unsafe.Pointer) {
	q := e.rw(p)
	for _, g := range q.readers {
		if g.state == gParked && g.op.Kind == OpRLock && g.sq.on(g, p) {
			g.sq.admitted = true
			rwAddReaders(p, 1)
		}
	}
	clear(q.readers)
	q.readers = q.readers[:0]
}
