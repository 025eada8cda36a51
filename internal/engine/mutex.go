package engine

import "unsafe"

// mutexLocked reports whether the sync.Mutex at p is locked: between a Lock
// (or successful TryLock) and its Unlock. The state is the Mutex's own
// (syncstate.go).
//
//go:norace
func (e *Exec) mutexLocked(p unsafe.Pointer) bool {
	if p != e.lastMutex {
		// A thousand goroutines waiting on one mutex ask at every
		// rebuild of the enabled set: one lookup, not a thousand.
		e.syncObj(p, syncMutex)
		e.lastMutex = p
	}
	return mutexLocked(p)
}

// MutexLock models Mutex.Lock: enabled while the mutex is unlocked.
//
//go:norace
func (e *Exec) MutexLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpLock, Obj: p})
	e.syncObj(p, syncMutex)
	setMutexLocked(p, true)
	raceAcquire(p)
}

// MutexTryLock models Mutex.TryLock.
//
//go:norace
func (e *Exec) MutexTryLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpTryLock, Obj: p})
	if e.mutexLocked(p) {
		e.poll(e.cur)
		return false
	}
	setMutexLocked(p, true)
	raceAcquire(p)
	return true
}

// MutexUnlock models Mutex.Unlock.
//
//go:norace
func (e *Exec) MutexUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpUnlock, Obj: p})
	if !e.mutexLocked(p) {
		e.misuse("fatal error: sync: unlock of unlocked mutex")
		return
	}
	raceRelease(p)
	setMutexLocked(p, false)
}

// rwState is the shadow state of a sync.RWMutex. Whether a writer holds or
// claimed the lock, and how many readers hold it, is kept in the RWMutex
// itself (syncstate.go).
type rwState struct {
	// waiting is the writer that claimed the lock and waits for the
	// readers to leave. While it waits, new readers block, as in Go.
	waiting *G
}

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
	rwRelease(p)
}

// RWRLock models RWMutex.RLock.
//
//go:norace
func (e *Exec) RWRLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpRLock, Obj: p})
	e.rw(p)
	rwAddReaders(p, 1)
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
	if rwClaimed(p) || rwReaders(p) > 0 {
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
