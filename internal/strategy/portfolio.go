package strategy

import "heddle.dev/internal/engine"

// Portfolio is the default strategy: it interleaves several strategies,
// run by run, following a mix (DefaultMix). Systematic strategies first
// take their shallow schedules (the round-robin schedule and those with one
// delay or preemption find the shallow bugs, seed-004 §4.4: most SCTBench
// bugs need at most one delay), then the randomized strategies, which find
// deeper bugs with a probability that does not decay with the number of
// schedules, take turns.
//
// The mix is the whole policy; change the proportions there. A strategy
// that ends its exploration (IDB proved its bound, DFS exhausted) drops
// out of the rotation; when every member has dropped out the portfolio
// ends.
type Portfolio struct {
	entries  []*portfolioEntry
	rotation []*portfolioEntry // each member Weight times, in mix order
	cur      *portfolioEntry
	slot     int // the next run's place in rotation
}

// A PortfolioMember is one strategy of a portfolio's mix.
type PortfolioMember struct {
	Name   string
	Warmup int // runs given, in mix order, before the rotation starts
	Weight int // runs per rotation cycle
	New    func(seed int64) engine.Strategy
}

// DefaultMix returns the members of the default portfolio: phase 1 runs
// each member's warm-up runs in order; phase 2 cycles through the weights
// (one run per weight unit). Each randomized member has its own seed,
// derived from the exploration's.
func DefaultMix() []PortfolioMember {
	return []PortfolioMember{
		{"idb", 50, 1, func(int64) engine.Strategy { return NewIDB(2) }},
		{"pct3", 0, 3, func(s int64) engine.Strategy { return NewPCT(s, 3) }},
		{"pos", 0, 3, func(s int64) engine.Strategy { return NewPOS(s + 1) }},
		{"pct2", 0, 2, func(s int64) engine.Strategy { return NewPCT(s+2, 2) }},
		{"random", 0, 1, func(s int64) engine.Strategy { return NewRandom(s + 3) }},
	}
}

type portfolioEntry struct {
	name   string
	s      engine.Strategy
	warmup int
	runs   int
	over   bool
}

// NewPortfolio returns the default portfolio. The PCT depth (-pct-depth)
// is not used: the PCT members have their own depths.
func NewPortfolio(seed int64, _ int) *Portfolio { return NewPortfolioOf(DefaultMix(), seed) }

// NewPortfolioOf returns a portfolio of the given members.
func NewPortfolioOf(mix []PortfolioMember, seed int64) *Portfolio {
	p := &Portfolio{}
	for _, m := range mix {
		e := &portfolioEntry{name: m.Name, s: m.New(seed), warmup: m.Warmup}
		p.entries = append(p.entries, e)
		for i := 0; i < m.Weight; i++ {
			p.rotation = append(p.rotation, e)
		}
	}
	return p
}

// NeedsTrace implements TraceNeeder (POS reads the trace).
func (p *Portfolio) NeedsTrace() bool { return true }

// Current names the strategy running the current run.
func (p *Portfolio) Current() string {
	if p.cur == nil {
		return ""
	}
	return p.cur.name
}

// pick returns the member that makes the next run: the first member whose
// warm-up is not over, else the next live member of the rotation; nil when
// no member is left.
func (p *Portfolio) pick() *portfolioEntry {
	for _, e := range p.entries {
		if !e.over && e.runs < e.warmup {
			return e
		}
	}
	for i := 0; i < len(p.rotation); i++ {
		e := p.rotation[p.slot%len(p.rotation)]
		p.slot++
		if !e.over {
			return e
		}
	}
	return nil
}

// Begin implements engine.Strategy.
func (p *Portfolio) Begin(run int) bool {
	for {
		e := p.pick()
		if e == nil {
			return false
		}
		if e.s.Begin(e.runs + 1) {
			p.cur = e
			return true
		}
		e.over = true
	}
}

// Choose implements engine.Strategy.
func (p *Portfolio) Choose(pt *engine.Point) int { return p.cur.s.Choose(pt) }

// End implements engine.Strategy.
func (p *Portfolio) End(r *engine.Result) {
	p.cur.runs++
	p.cur.s.End(r)
}

// FixedRandom is implemented by strategies that decide run by run whether
// the program's random numbers (rewritten math/rand) must stay the same as
// in earlier runs: a systematic strategy replays prefixes of earlier runs,
// which needs them fixed. Exhaustive strategies (Prover) always need it.
type FixedRandom interface{ FixedRandom() bool }

// FixedRandom implements FixedRandom: the systematic entries keep the
// random numbers fixed, the randomized ones draw new ones each run.
func (p *Portfolio) FixedRandom() bool {
	if p.cur == nil {
		return false
	}
	_, ok := p.cur.s.(Prover)
	return ok
}
