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
func (r *Random) Choose(p *engine.Point) int {
	const normal, early = 4, 1
	n := len(p.Choices)
	k := 0 // the early choices, at the end
	for k < n && p.Choices[n-1-k].Early > 0 {
		k++
	}
	total := normal*(n-k) + early*k
	x := r.rng.IntN(total)
	if x < normal*(n-k) {
		return x / normal
	}
	return n - k + (x-normal*(n-k))/early
}

// End implements engine.Strategy.
func (r *Random) End(*engine.Result) {}
