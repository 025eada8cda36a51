package engine

// Support for exploration strategies (package strategy).

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
