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

// Choose implements engine.Strategy.
func (r *Random) Choose(p *engine.Point) int {
	const normal, early = 4, 1
	total := 0
	for _, c := range p.Choices {
		if c.Early > 0 {
			total += early
		} else {
			total += normal
		}
	}
	x := r.rng.IntN(total)
	for i, c := range p.Choices {
		w := normal
		if c.Early > 0 {
			w = early
		}
		if x < w {
			return i
		}
		x -= w
	}
	return len(p.Choices) - 1
}

// End implements engine.Strategy.
func (r *Random) End(*engine.Result) {}
