package engine

import "unsafe"

// mutexState is the shadow state of a sync.Mutex.
type mutexState struct {
	// locked is set between a Lock (or successful TryLock) and its Unlock.
	locked bool
}

//go:norace
func (e *Exec) mutex(p unsafe.Pointer) *mutexState { return &e.objs.obtain(p).mu }

// MutexLock models Mutex.Lock: enabled while the mutex is unlocked.
//
//go:norace
func (e *Exec) MutexLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpLock, Obj: p})
	e.mutex(p).locked = true
	raceAcquire(p)
}

// MutexTryLock models Mutex.TryLock.
//
//go:norace
func (e *Exec) MutexTryLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpTryLock, Obj: p})
	m := e.mutex(p)
	if m.locked {
		e.poll(e.cur)
		return false
	}
	m.locked = true
	raceAcquire(p)
	return true
}

// MutexUnlock models Mutex.Unlock.
//
//go:norace
func (e *Exec) MutexUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpUnlock, Obj: p})
	m := e.mutex(p)
	if !m.locked {
		e.misuse("fatal error: sync: unlock of unlocked mutex")
		return
	}
	raceRelease(p)
	m.locked = false
}

// rwState is the shadow state of a sync.RWMutex.
type rwState struct {
	writer  bool // a writer holds the lock
	readers int  // readers holding the lock
	// waiting is the writer that claimed the lock and waits for the
	// readers to leave. While it waits, new readers block, as in Go.
	waiting *G
}

//go:norace
func (e *Exec) rw(p unsafe.Pointer) *rwState { return &e.objs.obtain(p).rw }

// RWLock models RWMutex.Lock in two steps: claim the writer slot (which
// blocks new readers), then wait for the readers to leave.
//
//go:norace
func (e *Exec) RWLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpWLock, Obj: p})
	rw := e.rw(p)
	if rw.readers > 0 {
		rw.waiting = e.cur
		e.yield(Op{Kind: OpWLockWait, Obj: p})
		rw.waiting = nil
	}
	rw.writer = true
	raceAcquire(p)
	raceAcquire(readerAddr(p))
}

// RWUnlock models RWMutex.Unlock.
//
//go:norace
func (e *Exec) RWUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpWUnlock, Obj: p})
	rw := e.rw(p)
	if !rw.writer {
		e.misuse("fatal error: sync: Unlock of unlocked RWMutex")
		return
	}
	raceRelease(p)
	rw.writer = false
}

// RWRLock models RWMutex.RLock.
//
//go:norace
func (e *Exec) RWRLock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpRLock, Obj: p})
	e.rw(p).readers++
	raceAcquire(p)
}

// RWRUnlock models RWMutex.RUnlock.
//
//go:norace
func (e *Exec) RWRUnlock(p unsafe.Pointer) {
	nilCheck(p)
	e.yield(Op{Kind: OpRUnlock, Obj: p})
	rw := e.rw(p)
	if rw.readers <= 0 {
		e.misuse("fatal error: sync: RUnlock of unlocked RWMutex")
		return
	}
	raceReleaseMerge(readerAddr(p))
	rw.readers--
}

// RWTryLock models RWMutex.TryLock.
//
//go:norace
func (e *Exec) RWTryLock(p unsafe.Pointer) bool {
	nilCheck(p)
	e.yield(Op{Kind: OpRWTryLock, Obj: p})
	rw := e.rw(p)
	if rw.writer || rw.readers > 0 || rw.waiting != nil {
		e.poll(e.cur)
		return false
	}
	rw.writer = true
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
	rw := e.rw(p)
	if rw.writer || rw.waiting != nil {
		e.poll(e.cur)
		return false
	}
	rw.readers++
	raceAcquire(p)
	return true
}

// readerAddr is a second synchronization address per RWMutex, on which
// readers release and writers acquire (as in sync.RWMutex's own race
// annotations).
//
//go:norace
func readerAddr(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, 1) }
