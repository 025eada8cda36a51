package engine

import "testing"

// TestEndOfRunCameBack checks that a run in which nothing could run when
// the choices were made, but whose detached goroutine came back before the
// end of the run was decided, goes on rather than ending deadlocked: a
// detached goroutine sets g.back at any moment. rt's
// TestPipesBetweenControlledGoroutines under -race reported "deadlock: all
// goroutines are blocked" when a pipe's reader came back in between.
func TestEndOfRunCameBack(t *testing.T) {
	for _, back := range []bool{false, true} {
		e := &Exec{}
		main := &G{ID: "g0", Index: 0, state: gParked, op: Op{Kind: OpRecv}}
		reader := &G{ID: "g1", Index: 1, state: gParked, op: Op{Kind: OpNative}, detached: true, back: back}
		e.gs = []*G{main, reader}
		e.detachedGs = []*G{reader}
		e.nDetached.Store(1)
		e.cfg.DetachWait = 0
		again := e.endOfRun()
		if back {
			if !again || e.res.Bug != nil {
				t.Errorf("reader back: endOfRun = %v, bug %v; want the choices made again, no bug", again, e.res.Bug)
			}
			continue
		}
		// Still away after the wait for it: blocked outside heddle's
		// control, as before.
		if again || e.res.Bug == nil || e.res.Bug.Kind != KindBlocked {
			t.Errorf("reader away: endOfRun = %v, bug %v; want blocked", again, e.res.Bug)
		}
	}
}
