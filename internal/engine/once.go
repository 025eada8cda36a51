package engine

import "unsafe"

// onceState is the shadow state of a sync.Once.
type onceState struct {
	done    bool // f returned (or panicked)
	running bool // f is running; other Do calls wait
}

//go:norace
func (e *Exec) once(p unsafe.Pointer) *onceState { return &e.objs.obtain(p).once }

// OnceDo models Once.Do: the first call runs f, later calls wait until it
// returned.
//
// done, what the caller read of the real Once when it announced the call,
// is superseded by what the real Once says at the step (realOnceDone).
//
//go:norace
func (e *Exec) OnceDo(p unsafe.Pointer, f func(), done bool) {
	e.yield(Op{Kind: OpOnce, Obj: p})
	o := e.once(p)
	if !o.running {
		// The real Once is the truth between calls (f marks it done when
		// it returns): read it now, at the step, not when the call was
		// announced. A Once kept across runs (a package variable) stays
		// done; one assigned a fresh value (once = sync.Once{}) is armed
		// again, as in Go.
		o.done = realOnceDone(p)
	}
	if o.done {
		raceAcquire(p)
		return
	}
	o.running = true
	defer e.onceDone(p, o)
	f()
}

// onceDone is the completion of the f of a Once.Do: a step of its own, which
// enables the Do calls that wait for f.
//
//go:norace
func (e *Exec) onceDone(p unsafe.Pointer, o *onceState) {
	if e.aborting {
		o.running = false
		o.done = true
		return
	}
	raceRelease(p)
	e.yield(Op{Kind: OpOnceDone, Obj: p})
	o.running = false
	o.done = true
}

// realOnceDone reads the done flag of the sync.Once at p: its first word
// in every Go release since 1.21 (rt's tests check the layout). A plain
// read: the engine's memory accesses are invisible to the race detector,
// and an atomic load would be a synchronization it sees.
//
//go:norace
func realOnceDone(p unsafe.Pointer) bool {
	return *(*uint32)(p) != 0
}
