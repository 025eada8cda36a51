package strategy_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestOrderAndCostsMatchDefinitions checks, at every scheduling point of
// random and PCT runs of the differential corpus, that the round-robin
// order and the preemption and delay costs of every choice, computed in
// one pass, are those of their definitions (seed-004 §2.1–2.3) applied
// choice by choice.
func TestOrderAndCostsMatchDefinitions(t *testing.T) {
	points := 0
	progs := append(corpus(), corpusProgram{"sleepers", 0, func(*outcome) {
		// Several sleepers may fire early at once: points with several
		// timer choices, besides several goroutines and select cases.
		ch := rt.MakeChan[chan int](4)
		for i := 0; i < 4; i++ {
			d := time.Duration(i+1) * time.Microsecond
			rt.Go(func() { rt.Sleep(d); rt.Send(ch, 1) })
		}
		other := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(other, 2) })
		for i := 0; i < 5; i++ {
			rt.Select(false, rt.RecvCase(ch), rt.RecvCase(other))
		}
	}})
	for _, p := range progs {
		for seed := int64(1); seed <= 3; seed++ {
			var s engine.Strategy = strategy.NewRandom(seed)
			if seed == 2 {
				s = strategy.NewPCT(seed, 3)
			}
			c := &costChecker{s: s}
			c.Begin(1)
			engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000}, c, func() { p.body(&outcome{}) })
			if c.err != nil {
				t.Fatalf("%s, seed %d: %v", p.name, seed, c.err)
			}
			points += c.points
		}
	}
	t.Logf("%d scheduling points checked", points)
}

type costChecker struct {
	s      engine.Strategy
	err    error
	points int
}

func (c *costChecker) Begin(run int) bool   { return c.s.Begin(run) }
func (c *costChecker) End(r *engine.Result) { c.s.End(r) }
func (c *costChecker) Choose(p *engine.Point) int {
	if c.err == nil {
		c.err = strategy.CheckOrderAndCosts(p)
		c.points++
	}
	return c.s.Choose(p)
}
