package engine

import (
	"testing"
	"time"
)

// TestStarveSecond checks starveSecond, the earliest last step in the set
// of starvation but its top's, against a look at every entry, on heaps
// with dead entries anywhere (goroutines that ran, or ran and joined
// again, since their entries were pushed).
func TestStarveSecond(t *testing.T) {
	r := &randomish{x: 7}
	next := func(n int) int {
		r.x = r.x*6364136223846793005 + 1442695040888963407
		return int((r.x >> 33) % uint64(n))
	}
	for trial := 0; trial < 2000; trial++ {
		e := &Exec{}
		gs := make([]G, 1+next(40))
		for i := range gs {
			gs[i].Index = i
		}
		for k := next(3 * len(gs)); k > 0; k-- {
			g := &gs[next(len(gs))]
			if g.couldRun && next(2) == 0 {
				g.couldRun = false // it ran: its entry is dead
			}
			g.ranAt = time.Duration(next(20))
			e.couldRunAdd(g)
		}
		top := e.starveTop()
		if top == nil {
			continue
		}
		want := noRun
		for i := 1; i < len(e.starveHeap); i++ {
			if s := &e.starveHeap[i]; s.live() && s.g != top {
				want = min(want, s.at)
			}
		}
		if got := e.starveSecond(); got != want {
			t.Fatalf("trial %d: starveSecond %v, the earliest of the other live entries %v (heap %d entries)", trial, got, want, len(e.starveHeap))
		}
	}
}

// TestSleepersDueKeepHeap checks that the sleepers due at one instant,
// each an early choice with its starvation at every point, do not change
// the heap of starvation once they are in it: the earliest last step is
// kept through a pass, and the earliest of the others, for the sleeper
// that ran longest ago, is found without popping and pushing the top (it
// was, at every point, two changes of a heap of every goroutine).
func TestSleepersDueKeepHeap(t *testing.T) {
	const sleepers, workers, writes = 10, 20, 50
	var e0 *Exec
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, &notTimers{}, sleepersDue(sleepers, workers, writes, &e0))
	if res.Bug != nil || res.Internal != "" {
		t.Fatalf("unexpected end: %v %s", res.Bug, res.Internal)
	}
	if res.Steps < workers*writes {
		t.Fatalf("the run took %d steps, want at least %d", res.Steps, workers*writes)
	}
	// Every goroutine joins the set at most once per step it takes.
	t.Logf("ver %d steps %d", e0.starve.ver, res.Steps)
	if limit := uint64(2 * (res.Steps + sleepers + workers)); e0.starve.ver > limit {
		t.Fatalf("the heap of starvation changed %d times in %d steps, want at most %d", e0.starve.ver, res.Steps, limit)
	}
}
