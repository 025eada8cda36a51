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
func (e *Exec) Access(p unsafe.Pointer, kind OpKind) { e.AccessAt(p, kind, 0) }

// AccessAt is Access for a step whose position in the program is pc (a
// return address, as runtime.Callers gives), 0 for the first frame of the
// program above it: a failing testing.T call made in a function that
// called t.Helper is at the line that called the helper, as the call's
// message is (explore's failStep).
//
//go:norace
func (e *Exec) AccessAt(p unsafe.Pointer, kind OpKind, pc uintptr) {
	if !e.cfg.Record {
		pc = 0 // positions are recorded only then (yield)
	}
	e.yield(Op{Kind: kind, Obj: p, PC: pc})
	g := e.cur
	switch kind {
	case OpAtomicWrite, OpMapWrite, OpTestDone, OpTestRead, OpFSRead, OpFSWrite:
		// A failing testing.T call (OpTestRead) reads whether the test
		// completed and writes its failure.
		o := e.objs.obtain(p)
		o.writes++
		o.writer = g
	case OpAtomicLoad, OpMapRead, OpCtxErr:
		var v uint64
		var w *G
		if o := e.objs.get(p); o != nil {
			v, w = o.writes, o.writer
		}
		if g.load(p, v) {
			g.spins = 0
			if w != nil && w != g {
				// It sees what another goroutine wrote: the
				// state goroutines share changes (Bug.Long).
				e.progressed()
			}
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

// Alone reports whether the running goroutine is the run's only goroutine
// so far and no timer is armed: nothing else can take a step before its
// next one, and every goroutine started later is ordered after it. Only
// live is not enough: a goroutine left alone once the others ended
// (the test goroutine's among them) may do what one of their steps
// races with, and DPOR can reverse the two only if its access is a step
// (conform TestOsPipeReadEndClosedVsWrite: a pipe end closed by a
// goroutine that ran after the test ended, against the test's write). A
// model step of state no other goroutine could yet touch (the
// environment, a file) can then be left out: it would be a choice of
// one, and a test that reads the environment once, on its first run in a
// process only (a package variable caching it), would otherwise take a
// step more in that run than in the later ones and in the replay that
// builds its report.
//
//go:norace
func (e *Exec) Alone() bool { return e.maxLive == 1 && len(e.timers) == 0 }

// progressed notes a step that made progress the step bound's verdict
// counts (Bug.Long): a goroutine saw a value another one wrote (an atomic
// or a sync.Map it loads, a value received from a channel, not a timer's)
// or ended. It records the longest stretch of steps without one since half
// the step bound (Exec.progressGap).
//
//go:norace
func (e *Exec) progressed() {
	if gap := e.steps - e.progressAt; gap > e.progressGap {
		e.progressGap = gap
	}
	e.progressAt = e.steps
}

// progressParts is how many stretches without progress the second half of
// a run must at least be cut into, by steps that progressed, for the run
// to be long (Exec.long): at the default step bound, one every 31,250
// steps.
const progressParts = 16

// long reports whether a run at its step bound made progress over its
// second half, as a long computation does and a livelock does not
// (Bug.Long): no goroutine polled and no timer fired since half the bound,
// or, polls and all, a goroutine saw another's write, took a value another
// sent, or ended, at least once every 1/progressParts of the half. The
// goroutines of a lock-free map's stress test load values nobody changed
// (about a fifth of xsync's TestMapParallelStores's steps are polls) but
// keep storing new entries that the others load; goroutines spinning on
// flags nobody sets, or taking and releasing locks in turn (TryLock) with
// nothing changing, see no other goroutine's writes, and a ticker's ticks
// are not values a goroutine sent.
//
//go:norace
func (e *Exec) long() (long bool, waits, gap int) {
	waits = e.waits - e.waitsAtHalf
	gap = max(e.progressGap, e.steps-e.progressAt)
	half := e.cfg.StepLimit - e.cfg.StepLimit/2
	return waits == 0 || gap*progressParts <= half, waits, gap
}
