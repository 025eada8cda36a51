package strategy

import "heddle.dev/internal/engine"

// Portfolio is the default strategy: it interleaves several strategies,
// run by run, following a mix (DefaultMix): each member may first get
// warm-up runs, then the members take turns in a rotation, in proportion
// to their weights.
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
// (one run per weight unit, in mix order). Each randomized member has its
// own seed, derived from the exploration's.
//
// The mix was chosen by measurement (docs/strategies.md, "Why the
// portfolio is built this way"): on the GoKer kernels and the examples,
// random finds most bugs in its first run, so it goes first and gets the
// largest share, and a systematic warm-up only delays it (50 IDB runs
// first, the mix before: 6.4 runs to the first bug on average, against
// 2.3, at 8e23467 on 68 programs). POS, PCT and IDB keep a share each for
// the bugs random finds slowly or never (IDB finds Kubernetes13135 at its
// first run, random at its 15th on average; POS and PCT find Serving2137
// in 3–5 runs, random in 19; PCT and IDB find Kubernetes58107, random
// does not).
// Mixes within noise of this one were as good; this one keeps a member of
// each kind.
func DefaultMix() []PortfolioMember {
	return []PortfolioMember{
		{"random", 0, 3, func(s int64) engine.Strategy { return NewRandom(s) }},
		{"pos", 0, 2, func(s int64) engine.Strategy { return NewPOS(s + 1) }},
		{"pct3", 0, 1, func(s int64) engine.Strategy { return NewPCT(s+2, 3) }},
		{"idb", 0, 1, func(int64) engine.Strategy { return NewIDB(2) }},
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

// NeedsTrace implements TraceNeeder: the run about to start needs a trace
// when its member does (POS does; random, PCT and IDB do not, and their
// runs are faster without one).
func (p *Portfolio) NeedsTrace() bool {
	if p.cur == nil {
		return true
	}
	tn, ok := p.cur.s.(TraceNeeder)
	return ok && tn.NeedsTrace()
}

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
