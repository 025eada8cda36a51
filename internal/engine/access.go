package engine

import "unsafe"

// Access is the scheduling point of an atomic operation or a sync.Map
// method: kind is OpAtomicLoad, OpAtomicWrite, OpMapRead or OpMapWrite (or
// OpCtxErr, a read of a context's cancellation, which its cancel writes;
// OpTestRead and OpTestDone, a failing testing.T call and the test's
// end, on the run's T).
// The caller performs the real operation right after, in the same step.
//
//go:norace
func (e *Exec) Access(p unsafe.Pointer, kind OpKind) {
	e.yield(Op{Kind: kind, Obj: p})
	g := e.cur
	switch kind {
	case OpAtomicWrite, OpMapWrite, OpTestDone, OpTestRead:
		// A failing testing.T call (OpTestRead) reads whether the test
		// completed and writes its failure.
		e.objs.obtain(p).writes++
	case OpAtomicLoad, OpMapRead, OpCtxErr:
		var v uint64
		if o := e.objs.get(p); o != nil {
			v = o.writes
		}
		if g.load(p, v) {
			g.spins = 0
		} else {
			e.poll(g)
		}
	}
}

// AccessWalk is Access(p, OpMapRead) for a step of a walk over the object
// at p that reads another part of it at each step: a sync.Map's Range
// loading its next entry. Such a step is no poll (the walk moves on), so
// it does not count towards dropping the goroutine as a spinner: a Range
// over three entries or more, whose steps saw no write, was taken for a
// busy-wait after three of them and made to let another goroutine run
// first (a Clear after the Range was never explored). It is no progress
// either: a loop that Ranges until something changes still polls, at the
// Range's first and last steps.
//
//go:norace
func (e *Exec) AccessWalk(p unsafe.Pointer) {
	e.yield(Op{Kind: OpMapRead, Obj: p})
	var v uint64
	if o := e.objs.get(p); o != nil {
		v = o.writes
	}
	e.cur.load(p, v)
}

// Writes returns how many write steps (Access with OpAtomicWrite or
// OpMapWrite, or a racy write) the run has made to the object at p so far:
// a caller that saw the same count at an earlier step knows that no
// controlled goroutine has written the object since.
//
//go:norace
func (e *Exec) Writes(p unsafe.Pointer) uint64 {
	if o := e.objs.get(p); o != nil {
		return o.writes
	}
	return 0
}

// Alone reports whether the running goroutine is the run's only live
// goroutine and no timer is armed: nothing else can take a step before
// its next one, and every goroutine started later is ordered after it. A
// model step of state no other goroutine could yet touch (the
// environment, a file) can then be left out: it would be a choice of
// one, and a test that reads the environment once, on its first run in a
// process only (a package variable caching it), would otherwise take a
// step more in that run than in the later ones and in the replay that
// builds its report.
//
//go:norace
func (e *Exec) Alone() bool { return e.live == 1 && len(e.timers) == 0 }
