package strategy

import "heddle.dev/internal/engine"

// Replay makes the choices of a recorded schedule, once. When a recorded
// choice is not enabled, or the run needs more choices than were recorded,
// the run has diverged: the program is not the one that was recorded, or it
// is nondeterministic.
type Replay struct {
	choices []string
	next    int
}

// NewReplay returns a strategy that replays choices.
func NewReplay(choices []string) *Replay { return &Replay{choices: choices} }

// Begin implements engine.Strategy.
func (r *Replay) Begin(run int) bool {
	r.next = 0
	return run == 1
}

// Choose implements engine.Strategy.
func (r *Replay) Choose(p *engine.Point) int {
	if r.next >= len(r.choices) {
		return engine.Diverged
	}
	want := r.choices[r.next]
	r.next++
	for i, c := range p.Choices {
		if c.Key() == want {
			return i
		}
	}
	return engine.Diverged
}

// End implements engine.Strategy.
func (r *Replay) End(*engine.Result) {}

// Consumed reports whether the run used every recorded choice.
func (r *Replay) Consumed() bool { return r.next == len(r.choices) }
