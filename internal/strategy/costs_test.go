package strategy_test

import (
	"sync/atomic"
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

// TestDelayChoicesMatchesFullPass checks, at every scheduling point of
// random, PCT and IDB runs of the differential corpus (spin loops, select
// cases, early timers, hundreds of goroutines), that the choices IDB's
// nodes keep, found without a pass over every choice, are those of the
// full pass for budgets 0 to 3: the same choices in the same order, with
// the same costs, and the same verdict on whether one was left out.
func TestDelayChoicesMatchesFullPass(t *testing.T) {
	progs := append(corpus(), corpusProgram{"many", 0, func(*outcome) {
		// 300 goroutines enabled at once, some spinning on a flag.
		var flag atomic.Int32
		done := rt.MakeChan[chan int](300)
		for i := 0; i < 300; i++ {
			i := i
			rt.Go(func() {
				if i%7 == 0 {
					for rt.AtomicW(&flag).Load() == 0 {
						rt.Gosched()
					}
				}
				if i%3 == 0 {
					rt.Sleep(time.Microsecond)
				}
				rt.Send(done, i)
			})
		}
		for i := 0; i < 300; i++ {
			if i == 100 {
				rt.AtomicW(&flag).Store(1)
			}
			rt.Recv(done)
		}
	}})
	points, full, kept := 0, 0, 0
	for _, p := range progs {
		for seed := int64(1); seed <= 3; seed++ {
			var s engine.Strategy = strategy.NewRandom(seed)
			switch seed {
			case 2:
				s = strategy.NewPCT(seed, 3)
			case 3:
				s = strategy.NewIDB(2)
			}
			c := &delayChecker{s: s}
			for run := 1; run <= 2 && c.Begin(run); run++ {
				c.End(engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000}, c, func() { p.body(&outcome{}) }))
				if c.err != nil {
					t.Fatalf("%s, seed %d, run %d: %v", p.name, seed, run, c.err)
				}
			}
			points, full, kept = points+c.points, full+c.full, kept+c.kept
		}
	}
	if full < 100000 {
		t.Errorf("%d choices at %d points, want the points of many goroutines", full, points)
	}
	t.Logf("%d scheduling points checked: %d choices in the full passes, %d kept over 4 budgets", points, full, kept)
}

type delayChecker struct {
	s                  engine.Strategy
	check              strategy.DelayChecker
	err                error
	points, full, kept int
}

func (c *delayChecker) Begin(run int) bool   { return c.s.Begin(run) }
func (c *delayChecker) End(r *engine.Result) { c.s.End(r) }
func (c *delayChecker) Choose(p *engine.Point) int {
	if c.err == nil {
		full, kept, err := c.check.Check(p, 3)
		c.err = err
		c.points, c.full, c.kept = c.points+1, c.full+full, c.kept+kept
	}
	return c.s.Choose(p)
}
