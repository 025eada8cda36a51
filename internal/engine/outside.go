package engine

import "unsafe"

// NoteOutside records that the run's result depended on something outside
// heddle's control whose timing the search cannot explore: a child
// process killed by a context cancelled while it ran (rt.ExecWait), whose
// exit status is up to the operating system's timing. It counts as a
// detach (Result.Detaches): the exploration then makes no claim that
// every schedule was explored.
//
//go:norace
func (e *Exec) NoteOutside() {
	e.detachMu.Lock()
	e.res.Detaches++
	e.detachMu.Unlock()
}

// MarkTestGoroutine marks the running goroutine as the one that runs the
// test's function and its cleanups, as package testing's tRunner does.
//
//go:norace
func (e *Exec) MarkTestGoroutine() {
	if e.cur != nil {
		e.cur.tRunner = true
	}
}

// panicWindow is called when a test goroutine (MarkTestGoroutine) panics
// while another goroutine, or a timer, could still act. Natively testing's
// tRunner recovers the panic, runs the remaining cleanups, flushes the
// test's output and only then panics again: meanwhile the others run, and
// one of them may crash the process first (a goroutine a cleanup released
// panics). So the panic ends the run at a step of its own, which the
// others' steps can precede. It reports false if the run ended before that
// step (another goroutine's bug): g has then exited.
//
//go:norace
func (e *Exec) panicWindow(g *G) (open bool) {
	if tp, ok := e.T.(TestPanicker); ok {
		tp.TestPanicked(g)
	}
	defer func() {
		if !open {
			e.exit(g) // unwound at the step: the run is over
		}
	}()
	// A write of the world (as a cancel's step is, to the strategies):
	// the step ends the run, so every other step is dependent with it.
	e.yield(Op{Kind: OpCancel, Obj: unsafe.Pointer(g)})
	return !e.aborting
}

// TestPanicker is implemented by a run's T (Exec.T) that must know when
// the goroutine of its test panics, before the panic ends the run
// (panicWindow): natively the test is not complete then, whatever its
// deferred calls recorded, and the others may still log and fail.
type TestPanicker interface {
	TestPanicked(g *G)
}

// othersLeft reports whether a goroutine other than g (not one of heddle's
// own) could still act: it can run, sleeps, or is not parked at a
// scheduling point (away in code heddle does not control), or a timer is
// pending. A goroutine blocked for good (a parent test waiting for the
// subtest that panicked) is not one: nothing left could wake it.
//
//go:norace
func (e *Exec) othersLeft(g *G) bool {
	if len(e.timers) > 0 {
		return true
	}
	for _, h := range e.gs {
		if h == g || h.state == gDone || h.System {
			continue
		}
		if h.state != gParked || h.op.Kind == OpSleep || e.canRun(h) {
			return true
		}
	}
	return false
}
