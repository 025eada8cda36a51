package engine

// Support for exploration strategies (package strategy).

import "unsafe"

// ChoicePartner returns the goroutine whose waiting operation choice c
// would complete (an unbuffered rendezvous, or a buffered channel's
// handoff: chan.go), and its case index, or nil when there is none:
// choosing c runs both as one joint step.
//
//go:norace
func (e *Exec) ChoicePartner(c Choice) (*G, int) {
	if c.G == nil || c.Case < 0 || c.G.committed >= 0 || c.G.woken > 0 {
		return nil, -1
	}
	op := &c.G.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect:
	default:
		return nil, -1
	}
	if c.Case >= len(op.Cases) {
		return nil, -1
	}
	cc := op.Cases[c.Case]
	p := cc.Chan()
	if p == nil || e.chanOf(p).closed || !e.handsOff(cc) {
		return nil, -1
	}
	return e.partner(c.G, cc)
}

// LastStep is the number of the last step g took (0 before its first): a
// goroutine's pending operation was announced by that step, so two
// scheduling points that see the same LastStep see the same announcement.
func (g *G) LastStep() int { return g.lastStep }

// Arrived reports whether g's pending channel operation has arrived: g
// waits on its channels, where partners find it (chan.go).
//
//go:norace
func (g *G) Arrived() bool { return g.arrived }

// Bubble returns the testing/synctest bubble g belongs to, or nil: a
// bubble's goroutines are a run of their own inside the run (PCT learns
// its starvation bound per bubble).
//
//go:norace
func (g *G) Bubble() *Bubble { return g.bubble }

// InBubbles reports whether some synctest bubble of the run has goroutines
// left: if not, no goroutine is in one.
//
//go:norace
func (e *Exec) InBubbles() bool { return len(e.bubbles) > 0 }

// changeLog lists, for a strategy that asked (ChoiceChanges), the
// goroutines whose choices may have changed since it last asked.
type changeLog struct {
	on       bool // a strategy asked in this run
	full     bool // more changed than the log keeps, or unknown
	rebuilds int  // e.es.rebuilds when the strategy asked
	gs       []*G
}

// noteChoiceChanges logs the dirty goroutines, before a pass of enabled
// recomputes their choices (noteStarveDirty).
//
//go:norace
func (e *Exec) noteChoiceChanges() {
	l := &e.choiceLog
	if l.full {
		return
	}
	if len(l.gs)+len(e.dirty) > len(e.gch)+64 {
		l.full = true
		return
	}
	// One by one, not append(gs, dirty...): the runtime's copy reports
	// its writes to the race detector even from norace code.
	//lint:ignore S1011 one by one on purpose (above)
	for _, g := range e.dirty {
		l.gs = append(l.gs, g)
	}
}

// noteChoiceChanged logs g, whose choices a lock group's flip put into or
// took out of the kept set without marking it dirty (lockgroup.go).
//
//go:norace
func (e *Exec) noteChoiceChanged(g *G) {
	l := &e.choiceLog
	if !l.on || l.full {
		return
	}
	if len(l.gs) > len(e.gch)+64 {
		l.full = true
		return
	}
	l.gs = append(l.gs, g)
}

// ChoiceChanges returns the goroutines whose choices in the enabled set
// kept from point to point (KeptChoices) may have changed since the
// previous call in this run, possibly several times each, and true; or
// false when that is not known (the first call of a run, a pass that
// recomputed every goroutine's choices, or more changes than choices).
// A goroutine not listed has the same choices as at the previous call, at
// the same places relative to the others. buf is reused for the next
// call's list: the caller must not keep the one returned.
//
//go:norace
func (e *Exec) ChoiceChanges(buf []*G) ([]*G, bool) {
	l := &e.choiceLog
	ok := l.on && !l.full && l.rebuilds == e.es.rebuilds
	gs := l.gs
	l.on, l.full, l.rebuilds, l.gs = true, false, e.es.rebuilds, buf[:0]
	return gs, ok
}

// KeptChoices returns how many choices at the head of cs (a Point's
// Choices) are the goroutines' choices of the enabled set kept from point
// to point (those ChoiceChanges reports on, in creation order), or -1
// when cs does not start with them: the set is rebuilt at every step (a
// small run), or this point's choices are another list (spinners dropped,
// an overdue timer).
//
//go:norace
func (e *Exec) KeptChoices(cs []Choice) int {
	if !e.incr || len(e.gch) == 0 || len(cs) < len(e.gch) || unsafe.SliceData(cs) != unsafe.SliceData(e.gch) {
		return -1
	}
	return len(e.gch)
}

// Checking reports whether the run checks its incremental structures
// against full passes (HEDDLE_CHECKSET, CheckEnabledSet): a strategy's
// own incremental structures are checked then too.
//
//go:norace
func (e *Exec) Checking() bool { return checkSet.Load() }
