package strategy

import "heddle.dev/internal/engine"

// spinLimit is the fairness threshold: a goroutine whose last Spins()
// operations made no progress is not chosen while another choice exists.
const spinLimit = 2

// allowed returns the indices of p's choices an exhaustive strategy may
// take, in p's order: every choice, except that goroutines spinning
// (Spins() >= spinLimit: Gosched, select default, failed TryLock, stale
// atomic load, sleep in a loop) are dropped while some other choice exists.
// This is the fairness that lets DFS and DPOR terminate on programs that
// terminate under fair scheduling: a spinning goroutine only runs when
// nothing else can.
func allowed(p *engine.Point) []int {
	out := make([]int, 0, len(p.Choices))
	for i, c := range p.Choices {
		if c.G != nil && c.G.Spins() >= spinLimit {
			continue
		}
		out = append(out, i)
	}
	if len(out) == 0 {
		for i := range p.Choices {
			out = append(out, i)
		}
	}
	return out
}

// isTimerChoice reports whether c fires a timer or wakes a sleeper early:
// it comes after every goroutine in round-robin order.
func isTimerChoice(c engine.Choice) bool { return c.G == nil || c.Early > 0 }

// rrStart returns the creation index round-robin starts from: the goroutine
// that ran the previous step (seed-004 §2.1: "starting with the most
// recently executed thread").
func rrStart(p *engine.Point) int {
	if cur := p.Exec.Cur(); cur != nil {
		return cur.Index
	}
	return 0
}

// rrOrder orders the choices idx of p round-robin: goroutines in creation
// order starting from the one that ran last and wrapping round (a select's
// ready cases in case order), then timers. The first element is what a
// non-preemptive round-robin scheduler runs, so the first schedule of DFS,
// IPB and IDB is the same.
func rrOrder(p *engine.Point, idx []int) []int {
	start := rrStart(p)
	ngs := len(p.Exec.Gs())
	if ngs == 0 {
		ngs = 1
	}
	dist := func(i int) int {
		c := p.Choices[i]
		if isTimerChoice(c) {
			return 1 << 30
		}
		return ((c.G.Index-start)%ngs + ngs) % ngs
	}
	out := append([]int(nil), idx...)
	// Insertion sort: stable, and the lists are short.
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && dist(out[b]) < dist(out[b-1]); b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// preemptionCost is seed-004 §2.2 (Maple's IsPreemptiveChoice): choosing i
// costs 1 when the goroutine that ran the previous step is still enabled
// (and not deprioritized as spinning) and i is not one of its choices.
func preemptionCost(p *engine.Point, ok []int, i int) int {
	if p.Prev < 0 {
		return 0
	}
	prev := p.Choices[p.Prev].G
	in := false
	for _, j := range ok {
		if j == p.Prev {
			in = true
		}
	}
	if !in {
		return 0
	}
	c := p.Choices[i]
	if c.G == prev && c.Early == 0 {
		return 0
	}
	return 1
}

// delayCost is seed-004 §2.3 (Maple's DbGetDelayCost): start at the
// goroutine that ran the previous step, advance for free to the first
// enabled goroutine at or after it, then count every enabled goroutine
// passed before reaching the chosen one. A timer comes after every
// goroutine. Choosing the k-th ready case of a select costs k more delays
// (the deterministic scheduler takes the first).
func delayCost(p *engine.Point, ok []int, i int) int {
	order := rrOrder(p, ok)
	cost := 0
	var lastG *engine.G
	for _, j := range order {
		c := p.Choices[j]
		if j == i {
			return cost
		}
		if isTimerChoice(c) {
			cost++
			continue
		}
		if c.G == p.Choices[i].G && !isTimerChoice(p.Choices[i]) {
			cost++ // an earlier case of the chosen select
			continue
		}
		if c.G != lastG {
			cost++
			lastG = c.G
		}
	}
	return cost
}
