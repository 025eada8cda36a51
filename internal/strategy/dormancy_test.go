package strategy_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestDormancyChangesNoChoice runs every program of the differential
// corpus under random and PCT schedules twice, with and without the
// engine's skipping of dormant goroutines (from the first goroutine on,
// not only in large runs): every scheduling point must
// offer the same choices, and the runs must end the same way.
func TestDormancyChangesNoChoice(t *testing.T) {
	progs := corpus()
	for _, p := range progs {
		for seed := int64(1); seed <= 4; seed++ {
			var runs [2]string
			for i, from := range []int{1, -1} {
				var s engine.Strategy = strategy.NewRandom(seed)
				if seed%2 == 0 {
					s = strategy.NewPCT(seed, 3)
				}
				rec := &choiceRecorder{s: s}
				rec.Begin(1)
				body := func() { p.body(&outcome{}) }
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000, DormantFrom: from}, rec, body)
				runs[i] = rec.log + " => " + bugKey(r.Bug)
			}
			if runs[0] != runs[1] {
				t.Fatalf("%s, seed %d: the choices differ\nwith dormancy:    %s\nwithout dormancy: %s", p.name, seed, runs[0], runs[1])
			}
		}
	}
}

// choiceRecorder logs the choices offered at every scheduling point.
type choiceRecorder struct {
	s   engine.Strategy
	log string
}

func (c *choiceRecorder) Begin(run int) bool   { return c.s.Begin(run) }
func (c *choiceRecorder) End(r *engine.Result) { c.s.End(r) }
func (c *choiceRecorder) Choose(p *engine.Point) int {
	c.log += "["
	for _, ch := range p.Choices {
		c.log += " " + ch.Key()
	}
	i := c.s.Choose(p)
	c.log += " ] "
	return i
}
