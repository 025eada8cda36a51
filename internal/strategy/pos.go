package strategy

import (
	"heddle.dev/internal/engine"
)

// POS is partial order sampling (Yuan, Yang and Gu, CAV 2018): every
// pending event gets a random priority; the enabled event of highest
// priority runs; after an event runs, the events that race with it (the
// pending events of other goroutines that are dependent with it) get
// fresh random priorities. Unlike random walk, POS samples partial orders
// nearly uniformly instead of favouring those with many linearizations.
//
// Events are identified by choice key and the goroutine's pending
// operation; dependence is that of heddle.md §4. Timers firing early get
// a quarter of the priority range, as in Random.
type POS struct {
	seed int64
	rng  *rng
	prio map[string]float64
	ops  map[string]engine.OpKind // the operation each priority was drawn for
	re   *runEvents
	seen int
}

// NewPOS returns a partial order sampling strategy.
func NewPOS(seed int64) *POS { return &POS{seed: seed} }

// NeedsTrace implements TraceNeeder: POS reads the steps taken between
// its choices to reset the priorities of racing events.
func (s *POS) NeedsTrace() bool { return true }

// Begin implements engine.Strategy.
func (s *POS) Begin(run int) bool {
	s.rng = runRNG(s.seed, run)
	s.prio = map[string]float64{}
	s.ops = map[string]engine.OpKind{}
	s.re = newRunEvents()
	s.seen = 0
	return true
}

// Choose implements engine.Strategy.
func (s *POS) Choose(p *engine.Point) int {
	s.re.consume(p.Exec.Trace())
	pend := make([]*event, len(p.Choices))
	for i, c := range p.Choices {
		pend[i] = pendingEvent(p, c)
	}
	// Reset the priorities of the pending events that race with the
	// steps taken since the last choice.
	for ; s.seen < len(s.re.ev); s.seen++ {
		e := s.re.ev[s.seen]
		for i, c := range p.Choices {
			if !shareG(e, pend[i]) && dependent(e, pend[i], false) {
				delete(s.prio, c.Key())
			}
		}
	}
	best, bestP := 0, -1.0
	for i, c := range p.Choices {
		k := c.Key()
		op := c.Op().Kind
		pr, ok := s.prio[k]
		if !ok || s.ops[k] != op {
			// A new event: a goroutine's next operation, or a new timer.
			pr = s.rng.Float64()
			if c.Early > 0 {
				pr /= 4
			}
			s.prio[k], s.ops[k] = pr, op
		}
		if pr > bestP {
			best, bestP = i, pr
		}
	}
	// The event taken is done: its goroutine's next event is new.
	delete(s.prio, p.Choices[best].Key())
	return best
}

// End implements engine.Strategy.
func (s *POS) End(*engine.Result) {}
