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
// done reports whether the real Once was done before the run: a Once kept
// across runs (a package variable) stays done, as it would natively.
//
//go:norace
func (e *Exec) OnceDo(p unsafe.Pointer, f func(), done bool) {
	e.yield(Op{Kind: OpOnce, Obj: p})
	o := e.once(p)
	if done && !o.running {
		o.done = true
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
		return
	}
	raceRelease(p)
	e.yield(Op{Kind: OpOnceDone, Obj: p})
	o.running = false
	o.done = true
}
