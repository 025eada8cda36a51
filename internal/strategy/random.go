package strategy

import (
	"heddle.dev/internal/engine"
)

// Random is controlled random scheduling: at each point it picks one enabled
// choice uniformly, except that timers firing early (while goroutines could
// run) are picked with a quarter of the weight, since they stand for a
// goroutine starved of the processor.
type Random struct {
	seed int64
	rng  *rng
	// member is the firing of a point's group (engine.Point.Group) that
	// Choose drew, for Member.
	member int
}

// NewRandom returns a random strategy.
func NewRandom(seed int64) *Random { return &Random{seed: seed} }

// Begin implements engine.Strategy.
func (r *Random) Begin(run int) bool {
	r.rng = runRNG(r.seed, run)
	return true
}

// Choose implements engine.Strategy. Only timer choices, which come last,
// can fire early (engine.Point), so the choice is found without looking
// at the goroutines' choices: with thousands enabled, that was most of
// the cost of a step.
//
// A group of firings (p.Group) weighs as the GroupN early choices it
// stands for: the draw is made over the flat list, and mapped back to the
// group's entry (Member gives which of its firings the draw fell on), so
// a run draws the same choices as with the flat list.
func (r *Random) Choose(p *engine.Point) int {
	const normal, early = 4, 1
	n := len(p.Choices)
	k := 0 // the early choices, at the end
	for k < n && p.Choices[n-1-k].Early > 0 {
		k++
	}
	extra := 0 // the firings of the group but its entry
	if p.Group >= 0 {
		extra = p.GroupN - 1
	}
	total := normal*(n-k) + early*(k+extra)
	x := r.rng.IntN(total)
	if x < normal*(n-k) {
		return x / normal
	}
	f := n - k + (x-normal*(n-k))/early // the index in the flat list
	if p.Group >= 0 && f >= p.Group {
		if f < p.Group+p.GroupN {
			r.member = f - p.Group
			return p.Group
		}
		return f - extra
	}
	return f
}

// GroupsFirings implements engine.GroupChooser: the draw is over the flat
// list (Choose).
func (r *Random) GroupsFirings() bool { return true }

// Member implements engine.GroupChooser.
func (r *Random) Member(*engine.Point) int { return r.member }

// End implements engine.Strategy.
func (r *Random) End(*engine.Result) {}
