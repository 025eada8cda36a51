package strategy

import (
	"fmt"
	"sync"
	"testing"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
)

// flatOnly hides a strategy's engine.GroupChooser: the engine offers it
// the flat list of firings.
type flatOnly struct{ engine.Strategy }

// groupCount counts the points a GroupChooser was offered a group at, and
// the groups it took.
type groupCount struct {
	*Random
	points, taken int
}

func (g *groupCount) Choose(p *engine.Point) int {
	i := g.Random.Choose(p)
	if p.Group >= 0 {
		g.points++
		if p.GroupN < 2 || p.Group >= len(p.Choices) || p.Choices[p.Group].Early <= 0 {
			panic(fmt.Sprintf("bad group %d of %d in %d choices", p.Group, p.GroupN, len(p.Choices)))
		}
		if i == p.Group {
			g.taken++
		}
	}
	return i
}

// sameInstantSleepers is a run with waves of sleepers due at one instant
// beside goroutines at work, some of which sleep to the same instants
// after a few steps (so that members join a group with different last
// steps), and a timer due with them.
func sameInstantSleepers(sleepers, workers int) func() {
	return func() {
		e := engine.Current()
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), 2*sleepers+workers)
		for range sleepers {
			e.Go(func() {
				e.Sleep(10 * time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
			e.Go(func() {
				e.Sleep(20 * time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		var fired int64
		e.AfterFunc(20*time.Millisecond, func() { e.Access(unsafe.Pointer(&fired), engine.OpAtomicWrite) })
		for w := range workers {
			var x int64
			e.Go(func() {
				for i := range 6 {
					e.Access(unsafe.Pointer(&x), engine.OpAtomicWrite)
					if i == w%3 {
						e.Sleep(time.Duration(10*(1+w%2)) * time.Millisecond)
					}
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	}
}

// alignedSleepers is a run whose goroutines work, then sleep to the next
// multiple of 4ms of the virtual clock, a few times: sleepers due at one
// instant that last ran at different instants, beside goroutines that can
// run (so that the set of starvation's earliest is now a member's sleeper,
// now another goroutine).
func alignedSleepers(workers int) func() {
	return func() {
		e := engine.Current()
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), workers)
		for w := range workers {
			var x int64
			e.Go(func() {
				for r := range 4 {
					for range 1 + (w+r)%4 {
						e.Access(unsafe.Pointer(&x), engine.OpAtomicWrite)
					}
					if (w+r)%3 == 0 {
						e.Sleep(time.Duration(1+w%3) * time.Millisecond)
					}
					now := e.Now().Sub(engine.Epoch)
					e.Sleep(4*time.Millisecond - now%(4*time.Millisecond))
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	}
}

// TestFiringGroupKeepsRandomRuns checks that Random offered the early
// firings due at one instant as one choice (engine.GroupChooser) makes
// the runs it makes from the flat list: the same choices, step for step,
// with the same Early, for every seed, at starvation bounds under which
// every firing is offered and under which some are not.
func TestFiringGroupKeepsRandomRuns(t *testing.T) {
	bodies := []struct {
		name string
		body func() func()
	}{
		{"sameInstant", func() func() { return sameInstantSleepers(8, 12) }},
		{"aligned", func() func() { return alignedSleepers(16) }},
	}
	for _, b := range bodies {
		for _, starve := range []time.Duration{100 * time.Millisecond, 12 * time.Millisecond, 5 * time.Millisecond, 3 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/%v", b.name, starve), func(t *testing.T) { checkFiringGroup(t, b.body, starve) })
		}
	}
}

func checkFiringGroup(t *testing.T, body func() func(), starve time.Duration) {
	{
		points, taken := 0, 0
		for seed := int64(1); seed <= 60; seed++ {
			cfg := engine.Config{Seed: uint64(seed), Trace: true, MaxStarve: starve}
			gr := &groupCount{Random: NewRandom(seed)}
			gr.Begin(1)
			rg := engine.Run(cfg, gr, body())
			fl := NewRandom(seed)
			fl.Begin(1)
			rf := engine.Run(cfg, flatOnly{fl}, body())
			if rg.Bug != nil || rf.Bug != nil || rg.Internal != "" || rf.Internal != "" {
				t.Fatalf("starve %v seed %d: unexpected end: %v %v %s %s", starve, seed, rg.Bug, rf.Bug, rg.Internal, rf.Internal)
			}
			if d := diffRuns(rg, rf); d != "" {
				t.Fatalf("starve %v seed %d: grouped run differs from the flat one: %s", starve, seed, d)
			}
			points += gr.points
			taken += gr.taken
		}
		t.Logf("%d points with a group, %d taken", points, taken)
		if starve >= 12*time.Millisecond && (points == 0 || taken == 0) {
			t.Fatalf("no group offered (%d) or taken (%d): the test checks nothing", points, taken)
		}
	}
}

// diffRuns describes the first difference between two runs' choices and
// steps, or returns "".
func diffRuns(a, b *engine.Result) string {
	if len(a.Choices) != len(b.Choices) {
		return fmt.Sprintf("%d choices against %d", len(a.Choices), len(b.Choices))
	}
	for i := range a.Choices {
		if ka, kb := a.Choices[i].Key(), b.Choices[i].Key(); ka != kb || a.Choices[i].Early != b.Choices[i].Early {
			return fmt.Sprintf("choice %d: %s (early %v) against %s (early %v)", i, ka, a.Choices[i].Early, kb, b.Choices[i].Early)
		}
	}
	if len(a.Trace) != len(b.Trace) {
		return fmt.Sprintf("%d steps against %d", len(a.Trace), len(b.Trace))
	}
	for i := range a.Trace {
		sa, sb := &a.Trace[i], &b.Trace[i]
		if sa.Kind != sb.Kind || sa.Early != sb.Early || sa.Timer != sb.Timer || (sa.G == nil) != (sb.G == nil) || (sa.G != nil && sa.G.ID != sb.G.ID) {
			return fmt.Sprintf("step %d: %v %v %s against %v %v %s", i, sa.Kind, sa.Early, sa.Timer, sb.Kind, sb.Early, sb.Timer)
		}
	}
	return ""
}
