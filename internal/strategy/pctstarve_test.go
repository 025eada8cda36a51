package strategy_test

import (
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// stopWhileBusy is workerpool's TestDoConcurrentStop in small, iters
// times: a submitter hands tasks to a worker over a channel until the
// goroutine that started them closes quit, then waits for the submitter.
// The submitter and the worker make progress at every step, so they are
// no spinners; if PCT gives both a higher priority than the root, only a
// bound on how long a goroutine that can run is passed over lets the root
// close quit.
func stopWhileBusy(iters int) func() {
	return func() {
		for range iters {
			tasks := rt.MakeChan[chan int](0)
			quit := rt.MakeChan[chan struct{}](0)
			done := rt.MakeChan[chan struct{}](0)
			rt.Go(func() {
				for rt.Select(false, rt.RecvCase(tasks), rt.RecvCase(quit)) == 0 {
				}
			})
			rt.Go(func() {
				defer rt.Close(done)
				for rt.Select(false, rt.SendCase(tasks, 1), rt.RecvCase(quit)) == 0 {
				}
			})
			rt.Close(quit)
			rt.Recv(done)
		}
	}
}

// TestPCTRunsAStarvedGoroutine: PCT passes over a goroutine that can run
// for a bounded number of scheduling points, after which the goroutine
// keeps the processor as the highest priority does. Without the bound,
// the runs in which the root had the lowest priority lasted until the
// fair scheduler took over at half the step bound (50,000 steps here,
// 500,000 by default); with it, no run is longer than the bound plus a
// normal run, although the root is starved again in each of the ten
// rounds unless it keeps its new priority.
func TestPCTRunsAStarvedGoroutine(t *testing.T) {
	const runs = 40
	s := strategy.NewPCT(5, 3)
	long, longest := 0, 0
	for run := 1; run <= runs && s.Begin(run); run++ {
		r := engine.Run(engine.Config{StepLimit: 100000}, s, stopWhileBusy(10))
		s.End(r)
		if r.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, r.Bug.Kind, r.Bug.Message)
		}
		if r.Steps > 2000 {
			long++
		}
		longest = max(longest, r.Steps)
	}
	if long == 0 {
		t.Fatalf("no run starved the root (longest %d steps): the test no longer tests the bound", longest)
	}
	// The bound is 1,000 points here (at least 1,000, and four
	// goroutines at most), plus the ten rounds' few hundred steps; ten
	// times the bound if the root lost its new priority.
	if longest > 5000 {
		t.Errorf("the longest of %d PCT runs took %d steps (%d runs over 2,000)", runs, longest, long)
	}
	t.Logf("%d of %d runs over 2,000 steps, the longest %d", long, runs, longest)
}

// TestPCTStarvationBoundPerBubble: stopWhileBusy's rounds each in a
// synctest bubble of its own, as workerpool's TestDoConcurrentStop runs a
// hundred. Each bubble's root draws a new priority, below its two busy
// goroutines' in about a third of the bubbles; there it waited the run's
// bound, at least starveMin = 1,000 points, every time (a run of thirty
// bubbles: 10,000 steps and more). A bubble's goroutines are passed over
// at most bubbleBound points: the longest bubble of the block that needed
// no promotion, at least starvePerG per goroutine of the most a bubble
// had (three here).
func TestPCTStarvationBoundPerBubble(t *testing.T) {
	const runs, bubbles = 20, 30
	s := strategy.NewPCT(5, 3)
	total, longest, shortest := 0, 0, 1<<30
	for run := 1; run <= runs && s.Begin(run); run++ {
		r := engine.Run(engine.Config{StepLimit: 200000}, s, func() {
			x := engine.Current()
			for range bubbles {
				b := x.GoBubble(stopWhileBusy(1))
				if msg := x.BubbleEnd(b); msg != "" {
					panic(msg)
				}
			}
		})
		s.End(r)
		if r.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, r.Bug.Kind, r.Bug.Message)
		}
		total += r.Steps
		longest, shortest = max(longest, r.Steps), min(shortest, r.Steps)
	}
	t.Logf("%d PCT runs of %d bubbles: %d steps a run, from %d to %d", runs, bubbles, total/runs, shortest, longest)
	if longest < 2*shortest {
		t.Fatalf("no run starved a root for long (%d to %d steps a run): the test no longer tests the bound", shortest, longest)
	}
	// Ten starved roots a run or so, each passed over some 300 points
	// (starvePerG for each of the three goroutines of a bubble, or the
	// longest bubble that needed no promotion): 3,000 steps a run, about
	// 9,300 when each waited the run's minimum of 1,000.
	if total/runs > 5000 {
		t.Errorf("%d PCT runs of %d bubbles took %d steps a run (the longest %d)", runs, bubbles, total/runs, longest)
	}
}
