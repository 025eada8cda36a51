package strategy

import "heddle.dev/internal/engine"

// Portfolio is the default strategy: it interleaves several strategies,
// run by run, following portfolioMix. Systematic strategies first take
// their shallow schedules (the round-robin schedule and those with one
// delay or preemption find the shallow bugs, seed-004 §4.4: most SCTBench
// bugs need at most one delay), then the randomized strategies (PCT of
// depths 1–3, POS, random), which find deeper bugs with a probability
// that does not decay with the number of schedules, take turns.
//
// The table below is the whole policy; change the proportions there. A
// strategy that ends its exploration (IDB proved its bound, DFS
// exhausted) drops out of the rotation; when every entry has dropped out
// the portfolio ends.
type Portfolio struct {
	entries []*portfolioEntry
	cur     *portfolioEntry
	slot    int
}

// portfolioMix: phase 1 runs each entry's first runs in order (warm-up);
// phase 2 cycles through the weights (one run per weight unit).
var portfolioMix = []struct {
	name   string
	warmup int // runs given before the rotation starts
	weight int // runs per rotation cycle
	make   func(seed int64, d int) engine.Strategy
}{
	{"idb", 50, 1, func(int64, int) engine.Strategy { return NewIDB(2) }},
	{"pct3", 0, 3, func(s int64, d int) engine.Strategy { return NewPCT(s, 3) }},
	{"pos", 0, 3, func(s int64, d int) engine.Strategy { return NewPOS(s + 1) }},
	{"pct2", 0, 2, func(s int64, d int) engine.Strategy { return NewPCT(s+2, 2) }},
	{"random", 0, 1, func(s int64, d int) engine.Strategy { return NewRandom(s + 3) }},
}

type portfolioEntry struct {
	name   string
	s      engine.Strategy
	warmup int
	weight int
	runs   int
	over   bool
}

// NewPortfolio returns the default portfolio.
func NewPortfolio(seed int64, d int) *Portfolio {
	p := &Portfolio{}
	for _, m := range portfolioMix {
		p.entries = append(p.entries, &portfolioEntry{name: m.name, s: m.make(seed, d), warmup: m.warmup, weight: m.weight})
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

func (p *Portfolio) next() []*portfolioEntry {
	var order []*portfolioEntry
	for _, e := range p.entries {
		if !e.over && e.runs < e.warmup {
			return []*portfolioEntry{e}
		}
	}
	for _, e := range p.entries {
		for i := 0; i < e.weight; i++ {
			order = append(order, e)
		}
	}
	return order
}

// Begin implements engine.Strategy.
func (p *Portfolio) Begin(run int) bool {
	for tries := 0; tries < 64; tries++ {
		order := p.next()
		live := false
		for _, e := range order {
			if !e.over {
				live = true
			}
		}
		if !live {
			return false
		}
		e := order[p.slot%len(order)]
		p.slot++
		if e.over {
			continue
		}
		if e.s.Begin(e.runs + 1) {
			p.cur = e
			return true
		}
		e.over = true
	}
	return false
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
