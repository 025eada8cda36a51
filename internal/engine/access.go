package engine

import "unsafe"

// Access is the scheduling point of an atomic operation or a sync.Map
// method: kind is OpAtomicLoad, OpAtomicWrite, OpMapRead or OpMapWrite (or
// OpCtxErr, a read of a context's cancellation, which its cancel writes;
// OpTestRead and OpTestDone, a failing testing.T call and the test's
// end, on the run's T; OpFSRead and OpFSWrite, a file-system step on a
// file's object, which also reads or writes the names of the file tree:
// the strategies add that access, rt/file.go).
// The caller performs the real operation right after, in the same step.
//
//go:norace
func (e *Exec) Access(p unsafe.Pointer, kind OpKind) {
	e.yield(Op{Kind: kind, Obj: p})
	g := e.cur
	switch kind {
	case OpAtomicWrite, OpMapWrite, OpTestDone, OpTestRead, OpFSRead, OpFSWrite:
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
