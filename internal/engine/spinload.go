package engine

import "unsafe"

// loadsSeen is how many objects a goroutine remembers having loaded (an
// atomic, a sync.Map, a context's Err) during its current streak of
// operations that may be polls: a load of one of them that sees no write
// made since the goroutine last loaded it makes no progress. One was
// remembered, the last loaded: a loop that polls two or three atomics in
// turn, such as ants' ReleaseContext waiting for its pool's workers, purge
// and ticktock goroutines to be done, made progress at every load, and a
// strategy that preferred it (PCT) ran it for half a million steps before
// the fair scheduler let the goroutine it waited for run. An operation
// that cannot be a poll (a lock, a send, a write) ends the streak: the
// goroutine then remembers only its last load, as before, so that
// straight-line code that reads a pool's state and capacity again at each
// call, between locks, is not taken for polling (each poll moves the
// clock).
const loadsSeen = 4

// loadSeen is a remembered load: the object and its writes then.
type loadSeen struct {
	p unsafe.Pointer
	v uint64
}

// seen reports whether g's last load of p saw v writes, among the loads g
// remembers.
//
//go:norace
func (g *G) seen(p unsafe.Pointer, v uint64) bool {
	for i := range g.loads {
		if g.loads[i].p == p {
			return g.loads[i].v == v
		}
	}
	return false
}

// load records that g loaded p after v writes and reports whether that
// made progress: p is not among the loads g remembers, or was written
// since.
//
//go:norace
func (g *G) load(p unsafe.Pointer, v uint64) (progress bool) {
	if g.newStreak {
		// The first load since the streak began: compared with the
		// last load before it, which it replaces.
		g.newStreak = false
		progress = g.loads[0].p != p || g.loads[0].v != v
		g.loads[0] = loadSeen{p, v}
		g.lastLoad, g.nextLoad = 0, 1
		return progress
	}
	for i := range g.loads {
		if g.loads[i].p == p {
			progress = g.loads[i].v != v
			g.loads[i].v = v
			g.lastLoad = i
			return progress
		}
	}
	g.lastLoad = g.nextLoad
	g.loads[g.nextLoad] = loadSeen{p, v}
	g.nextLoad = (g.nextLoad + 1) % loadsSeen
	return true
}

// endStreak forgets the loads g remembers but its last one, which the
// next load replaces: g performs an operation that cannot be a poll.
//
//go:norace
func (g *G) endStreak() {
	if g.newStreak {
		return
	}
	g.loads = [loadsSeen]loadSeen{g.loads[g.lastLoad]}
	g.lastLoad, g.nextLoad, g.newStreak = 0, 1, true
}

// forgetLoads drops the loads g remembers (g is done: they must not keep
// the objects reachable).
//
//go:norace
func (g *G) forgetLoads() {
	g.loads = [loadsSeen]loadSeen{}
	g.lastLoad, g.nextLoad = 0, 0
}

// closedRecv reports whether case i of g's pending operation receives
// from a closed channel with nothing left in its buffer: the zero value,
// again and again, which changes nothing. A loop around such a receive
// (the Done channel of a context that was cancelled, a channel closed to
// say "all done") is polling.
//
//go:norace
func (e *Exec) closedRecv(g *G, i int) bool {
	if i < 0 || i >= len(g.op.Cases) {
		return false
	}
	c := g.op.Cases[i]
	p := c.Chan()
	if p == nil || c.IsSend() {
		return false
	}
	o := e.objs.get(p)
	if o == nil || !o.ch.closed {
		return false
	}
	// A probe that performed the case found it closed: it received the
	// zero value (probe).
	return g.committed == i || c.Len() == 0
}

// ChoseNotPolled tells that the current goroutine's last step, a select
// over closed channels whose ready cases rt offers the search as a choice
// (rt's rangeAhead: whether a key stored during a walk over a map is
// ahead of the walk or behind it), was no poll: its streak of operations
// without progress is back to spins, what it was before the step. Counted
// as a poll, a walk that noticed two or three stored keys looked to the
// strategies' spin filter like a loop polling at one call site, and was
// left out (a drop that bounded the claim) though the walk moves on at
// every step.
//
//go:norace
func (e *Exec) ChoseNotPolled(spins int) {
	if g := e.cur; g != nil && g.spins > spins {
		g.spins = spins
	}
}
