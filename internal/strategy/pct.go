package strategy

import (
	"heddle.dev/internal/engine"
)

// PCT is probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010)
// as defined in seed-004 §2.5: every goroutine gets a random priority above
// d, the highest-priority enabled goroutine always runs, and at d-1 random
// change points the goroutine about to run drops to priority i (< d).
//
// n (goroutines) and k (scheduling points per run) are learned: each run
// uses the maxima seen in earlier runs of its block of RunBlock runs,
// starting from small guesses at each block, so that a run's schedule is
// a function of the seed and its number alone (a unit of runs that starts
// a block explores exactly the runs of a sequential exploration). A
// goroutine that yields (Gosched, Sleep) drops below every other, as in
// Maple, so that spin loops do not starve the goroutine they wait for.
// Timers firing early get a priority like a goroutine in half of the runs
// and never fire early in the other half.
//
// A goroutine that can run is passed over at most starveBound scheduling
// points in a row (points at which it was a choice and another ran); at
// the next it gets the highest priority, as Go's scheduler gives a
// runnable goroutine a processor within a time slice. The bound is the
// longest run of the block in which it did not act (PCT's estimate of a
// run's length, as k, so that a run no longer than the runs before it
// is scheduled by priorities alone), and at least starveMin points, or
// starvePerG per goroutine of n if that is more. Without it, goroutines
// that keep making progress (a loop handing tasks to a worker over
// channels) starve the goroutine that would stop them until the fair
// scheduler takes over at half the step bound: 500,000 steps a run
// (workerpool's TestDoConcurrentStop). A goroutine of a testing/synctest
// bubble other than the run's first, a run of its own inside the run, has
// the bound of bubbles instead: the longest bubble of the block in which
// no goroutine was starved, and at least starvePerG per goroutine of the
// most a bubble had (bubbleBound); a test that runs a hundred bubbles one
// after the other waited the run's minimum in each whose root drew a low
// priority.
type PCT struct {
	seed int64
	d    int
	n, k int // learned bounds

	rng        *rng
	gs         []pctG             // by goroutine index
	tprio      map[string]float64 // timers' priorities, by choice key
	change     []int              // change points, in scheduling points
	points     int                // scheduling points so far in this run
	low        float64            // the next priority for a yielding goroutine
	earlyAllow bool

	m      int     // the longest run of the block in which no goroutine was starved
	top    float64 // the last priority given to a starved goroutine
	forced bool    // a starved goroutine was run in this run

	// Bubbles (testing/synctest): mb and nb are m and n of the block's
	// bubbles (the longest in points in which no goroutine was starved,
	// the most goroutines one had), bubs this run's.
	mb, nb  int
	bubs    map[*engine.Bubble]int32 // index in bubList, plus one
	bubList []pctBubble

	// The incremental pass (pctincr.go): incr says the heaps hold the
	// members; chg and fresh are buffers.
	incr    bool
	sh, bh  pctHeap
	members int
	chg     []*engine.G
	fresh   []int32
	// Tests: full makes every point take pass; incrPoints counts the
	// points passIncr answered.
	full       bool
	incrPoints int
}

// pctBubble is what PCT keeps of a bubble during a run: the points at
// which a goroutine of it could first and last run, its goroutines seen,
// whether one was starved, and whether it is the run's first bubble,
// whose goroutines have the run's bound (a test that is one bubble keeps
// the schedules it had) and whose length mb does not learn.
type pctBubble struct {
	first, last int
	gs          int
	forced      bool
	runs        bool
}

// pctG is what PCT keeps of a goroutine, in one place: Choose looks at
// every choice's at every point, and four arrays by goroutine index cost
// up to four cache misses a choice with thousands of goroutines enabled.
type pctG struct {
	prio   float64 // its priority, if set
	since  int32   // its LastStep when passed was counted from
	passed int32   // the points it was passed over since its step since
	// bub is its bubble's index in bubList plus one, -1 if it is in
	// none, 0 if not looked up yet in this run. (24 bytes in all: pass
	// reads one per choice at every point.)
	bub int32
	set bool // prio is set
	// Of the incremental pass (pctincr.go): while it is a member (in),
	// its count is passed + (points - from); sseq and bseq are the seq of
	// its live entries in the heaps by count and by priority.
	from       int32
	sseq, bseq uint32
	in         bool
}

// starveMin is the least number of scheduling points in a row that PCT
// may pass over a goroutine that can run, and starvePerG the least per
// goroutine of PCT's estimate n (a goroutine waits behind each of the
// others, as in a run queue).
const (
	starveMin  = 1000
	starvePerG = 100
)

// NewPCT returns a PCT strategy of depth d.
func NewPCT(seed int64, d int) *PCT {
	if d < 1 {
		d = 3
	}
	return &PCT{seed: seed, d: d, n: 2, k: 16}
}

// Begin implements engine.Strategy.
func (s *PCT) Begin(run int) bool {
	if (run-1)%RunBlock == 0 {
		s.n, s.k, s.m = 2, 16, 0 // NewPCT's guesses
		s.mb, s.nb = 0, 2
	}
	s.rng = runRNG(s.seed, run)
	for i := range s.gs {
		g := &s.gs[i]
		g.set, g.since, g.bub = false, -1, 0
		g.in = false
	}
	s.sh.e, s.bh.e, s.incr, s.members = s.sh.e[:0], s.bh.e[:0], false, 0
	s.bh.prio = true
	clear(s.bubs)
	s.bubList = s.bubList[:0]
	s.top = float64(s.d + s.n)
	s.forced = false
	s.tprio = map[string]float64{}
	s.change = s.change[:0]
	for i := 1; i < s.d; i++ {
		s.change = append(s.change, 1+s.rng.IntN(s.k))
	}
	s.points = 0
	s.low = 0
	s.earlyAllow = s.rng.IntN(2) == 0
	return true
}

func id(c engine.Choice) string {
	if c.Timer != nil {
		return "@" + c.Timer.ID()
	}
	return c.G.ID
}

func (s *PCT) priority(c engine.Choice) float64 {
	if c.G == nil {
		key := id(c)
		p, ok := s.tprio[key]
		if !ok {
			p = s.draw()
			s.tprio[key] = p
		}
		return p
	}
	if i := c.G.Index; i < len(s.gs) && s.gs[i].set {
		return s.gs[i].prio
	}
	p := s.draw()
	s.setPriority(c, p)
	return p
}

// draw is a new goroutine's priority: distinct random priorities in
// (d, d+n) make a new goroutine land at a uniformly random rank among the
// existing ones.
func (s *PCT) draw() float64 { return float64(s.d) + s.rng.Float64()*float64(s.n) }

// prioOf returns pg's priority, drawn at the goroutine's first pass.
func (s *PCT) prioOf(pg *pctG) float64 {
	if !pg.set {
		pg.prio, pg.set = s.draw(), true
	}
	return pg.prio
}

// setPriority sets the priority of c's goroutine or timer. Goroutines'
// priorities are kept by index: with thousands of goroutines, Choose looks
// at every enabled one, and a map keyed by id cost most of a step.
func (s *PCT) setPriority(c engine.Choice, p float64) {
	if c.G == nil {
		s.tprio[id(c)] = p
		return
	}
	g := s.goroutine(c.G.Index)
	g.prio, g.set = p, true
	if g.in {
		s.prioChanged(int32(c.G.Index))
	}
}

// goroutine returns what PCT keeps of the goroutine of index i.
func (s *PCT) goroutine(i int) *pctG {
	for len(s.gs) <= i {
		s.gs = append(s.gs, pctG{since: -1})
	}
	return &s.gs[i]
}

// Choose implements engine.Strategy.
func (s *PCT) Choose(p *engine.Point) int {
	s.points++
	best, starved := s.choose(p)
	for {
		if best < 0 {
			best = 0
		}
		demoted := false
		for i, k := range s.change {
			if k == s.points {
				s.change[i] = -1
				s.setPriority(p.Choices[best], float64(i+1))
				demoted = true
			}
		}
		if demoted {
			best = s.best(p)
			continue
		}
		if starved >= 0 && p.Choices[starved].G != p.Choices[best].G {
			// Passed over for too long: it gets the processor, and keeps
			// it as the highest priority does.
			s.top++
			s.setPriority(p.Choices[starved], s.top)
			s.forced = true
			if g := p.Choices[starved].G; g != nil {
				if b := s.gs[g.Index].bub; b > 0 {
					s.bubList[b-1].forced = true
				}
			}
			best = starved
		}
		c := p.Choices[best]
		if c.G != nil {
			switch c.G.PendingKind() {
			case engine.OpYield, engine.OpSleep:
				s.low--
				s.setPriority(engine.Choice{G: c.G}, s.low)
			}
		}
		return best
	}
}

// starveBound is how many scheduling points in a row a goroutine that can
// run may be passed over: the longest run of the block that passed over
// none for that long, and at least starveMin, or starvePerG per goroutine.
func (s *PCT) starveBound() int { return max(s.m, starveMin, starvePerG*s.n) }

// bubbleBound is starveBound for a goroutine of a synctest bubble other
// than the run's first: the longest such bubble of the block that passed
// over none for that long, and at least starvePerG per goroutine of the
// most a bubble had. A bubble is a run inside the run (its goroutines
// wait only for each other), and mb PCT's estimate of a bubble's length
// as m is of a run's; the run's minimum made workerpool's
// TestDoConcurrentStop, whose hundred bubbles a run each have a new root,
// wait 1,000 points in each of the thirty or so whose root drew a
// priority below the loop it stops.
func (s *PCT) bubbleBound() int { return max(s.mb, starvePerG*s.nb) }

// lookBubble sets pg.bub, g's bubble in this run.
func (s *PCT) lookBubble(pg *pctG, g *engine.G) {
	b := g.Bubble()
	if b == nil {
		pg.bub = -1
		return
	}
	i := s.bubs[b]
	if i == 0 {
		if s.bubs == nil {
			s.bubs = map[*engine.Bubble]int32{}
		}
		s.bubList = append(s.bubList, pctBubble{first: s.points, runs: len(s.bubList) == 0})
		i = int32(len(s.bubList))
		s.bubs[b] = i
	}
	s.bubList[i-1].gs++
	pg.bub = i
}

// best returns the index of the choice of highest priority (the first,
// among equals), drawing the priorities not drawn yet in choice order, or
// -1 when no choice may be taken (early firings only, not allowed in this
// run).
func (s *PCT) best(p *engine.Point) int {
	best, bestP := -1, 0.0
	for i, c := range p.Choices {
		if c.Early > 0 && !s.earlyAllow {
			continue
		}
		if pr := s.priority(c); best < 0 || pr > bestP {
			best, bestP = i, pr
		}
	}
	return best
}

// pass returns best, and the index of the first choice of the goroutine
// passed over longest if that is starveBound points or more, else -1,
// in one pass over the choices: it counts, for every goroutine that can
// run at p, one more point at which it could run since its last step.
// Timers, and sleepers that would wake early, are not counted: they wait
// for time to pass, not for a processor. With thousands of goroutines
// enabled, two passes (and four arrays by goroutine) were most of a PCT
// run (pond's TestResultPoolMetrics). The priorities are drawn in the
// order best draws them: the count draws nothing. Choose calls it through
// choose (pctincr.go), which answers most points of large runs from what
// changed since the previous one instead.
func (s *PCT) pass(p *engine.Point) (best, starved int) {
	bound := int32(min(s.starveBound(), 1<<30))
	bbound := int32(min(s.bubbleBound(), 1<<30))
	// Without bubbles (most tests), no look at them per choice: it cost
	// a tenth of a PCT run of golang-lru's TestLRUConcurrency.
	bubbles := p.Exec.InBubbles()
	best, starved = -1, -1
	bestP, most := 0.0, int32(0)
	var prev *engine.G
	for i, c := range p.Choices {
		g := c.G
		if g != nil && c.Early == 0 && g != prev {
			// starved's count (a goroutine's next select case is not
			// counted again).
			prev = g
			pg := s.goroutine(g.Index)
			if ls := int32(g.LastStep()); pg.since != ls {
				pg.since, pg.passed = ls, 0 // it ran since: count again
			}
			b := bound
			if bubbles {
				if pg.bub == 0 {
					s.lookBubble(pg, g)
				}
				if pg.bub > 0 {
					pb := &s.bubList[pg.bub-1]
					pb.last = s.points
					if !pb.runs {
						b = bbound
					}
				}
			}
			if n := pg.passed; n >= b && n > most {
				starved, most = i, n
			}
			pg.passed++ // if it runs now, its LastStep changes: reset above
			pr := s.prioOf(pg)
			if best < 0 || pr > bestP {
				best, bestP = i, pr
			}
			continue
		}
		if c.Early > 0 && !s.earlyAllow {
			continue
		}
		if pr := s.priority(c); best < 0 || pr > bestP {
			best, bestP = i, pr
		}
	}
	return best, starved
}

// End implements engine.Strategy.
func (s *PCT) End(r *engine.Result) {
	if r.MaxGs > s.n {
		s.n = r.MaxGs
	}
	for _, b := range s.bubList {
		s.nb = max(s.nb, b.gs)
	}
	if r.Bug != nil && r.Bug.Kind == engine.KindStepLimit {
		return
	}
	for _, b := range s.bubList {
		if !b.forced && !b.runs {
			s.mb = max(s.mb, b.last-b.first+1)
		}
	}
	if s.points > s.k {
		s.k = s.points
	}
	if !s.forced && s.points > s.m {
		s.m = s.points
	}
}

// Bounds returns the current estimates of n (goroutines) and k
// (scheduling points per run) that the next run's priorities and change
// points are drawn with.
func (s *PCT) Bounds() (n, k int) { return s.n, s.k }
