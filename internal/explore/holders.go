package explore

import (
	"fmt"
	"slices"
	"strings"

	"heddle.dev/internal/engine"
)

// A goroutine blocked forever on a lock is blocked by whoever holds it. A
// report names them ("held by g0.6, locked at clock.go:348"), found in the
// run's trace: the deadlocks of lock cycles, a lock a goroutine returned
// without unlocking, read locks a writer waits on, read at a glance.

// lockHold is one holding of a lock: the goroutine and its step.
type lockHold struct {
	g  *engine.G
	pc uintptr
}

// lockState is what holds one lock at the end of a run: the writer (or the
// goroutine that claimed the writer slot of an RWMutex) and the readers.
type lockState struct {
	writer  *lockHold
	readers []lockHold
}

// lockHolders replays the lock steps of a run's trace and returns what
// holds each lock at its end, by the lock's address; nil when the trace
// does not reach the end of the run (a bounded trace).
func lockHolders(trace []engine.Step, steps int) map[uintptr]*lockState {
	if len(trace) == 0 || trace[len(trace)-1].N < steps {
		return nil
	}
	locks := map[uintptr]*lockState{}
	get := func(obj uintptr) *lockState {
		l := locks[obj]
		if l == nil {
			l = &lockState{}
			locks[obj] = l
		}
		return l
	}
	for _, s := range trace {
		if s.G == nil || s.Obj == 0 {
			continue
		}
		switch s.Kind {
		case engine.OpLock, engine.OpWLock:
			// A Lock's step is its acquisition (it is enabled only when
			// the mutex is free); an RWMutex's first phase claims the
			// writer slot, which blocks readers and other writers.
			get(s.Obj).writer = &lockHold{s.G, s.PC}
		case engine.OpTryLock, engine.OpRWTryLock:
			if l := get(s.Obj); l.writer == nil && (s.Kind == engine.OpTryLock || len(l.readers) == 0) {
				l.writer = &lockHold{s.G, s.PC}
			}
		case engine.OpUnlock, engine.OpWUnlock:
			get(s.Obj).writer = nil
		case engine.OpRLock:
			l := get(s.Obj)
			l.readers = append(l.readers, lockHold{s.G, s.PC})
		case engine.OpRWTryRLock:
			if l := get(s.Obj); l.writer == nil {
				l.readers = append(l.readers, lockHold{s.G, s.PC})
			}
		case engine.OpRUnlock:
			l := get(s.Obj)
			if i := slices.IndexFunc(l.readers, func(h lockHold) bool { return h.g == s.G }); i >= 0 {
				l.readers = slices.Delete(l.readers, i, i+1)
			}
		}
	}
	return locks
}

// heldBy is what a goroutine g blocked at op waits for, when op is a lock
// (", held by g0.6, locked at f.go:12"), or "".
func (x *explorer) heldBy(locks map[uintptr]*lockState, g *engine.G, op engine.Op) string {
	l := locks[uintptr(op.Obj)]
	if l == nil {
		return ""
	}
	var hs []lockHold
	verb := "locked"
	switch op.Kind {
	case engine.OpLock, engine.OpWLock, engine.OpRLock:
		if l.writer != nil {
			hs = []lockHold{*l.writer}
		}
	case engine.OpWLockWait:
		hs, verb = l.readers, "read-locked"
	}
	if len(hs) == 0 {
		return ""
	}
	var parts []string
	for _, h := range hs {
		s := h.g.ID
		if h.g == g {
			s = "itself"
		}
		s += ", " + verb + x.at(h.pc)
		if h.g.Done() && !h.g.Unwound() {
			s += ", which returned without unlocking it"
		}
		parts = append(parts, s)
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return ", held by " + strings.Join(parts, "; ")
}

// systemOrigin is what the report says of a system goroutine, the one
// heddle runs as package context does to pass on the cancellation of a
// context the program implemented itself (engine.watch).
const systemOrigin = "started by package context, to pass on the cancellation of a context the program implemented itself"
