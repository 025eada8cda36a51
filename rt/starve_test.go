package rt_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// greedyEarly fires a timer early whenever it may, and otherwise runs the
// last goroutine that can run: g0, created first, runs only when nothing
// else can.
type greedyEarly struct{}

func (greedyEarly) Begin(run int) bool { return run == 1 }
func (greedyEarly) End(*engine.Result) {}
func (greedyEarly) Choose(p *engine.Point) int {
	for i, c := range p.Choices {
		if c.Early > 0 {
			return i
		}
	}
	return len(p.Choices) - 1
}

// TestStarvationPerGoroutine checks that -max-starve bounds how long the
// goroutine that could run is starved, not the time since any goroutine
// last ran: a goroutine that sleeps 50ms and yields in a loop, woken early
// each time, used to starve the runnable g0 for as long as it looped.
func TestStarvationPerGoroutine(t *testing.T) {
	const maxStarve = 100 * time.Millisecond
	var g0Steps []time.Time
	res := engine.Run(engine.Config{MaxStarve: maxStarve, Record: true}, greedyEarly{}, func() {
		var stop atomic.Bool // not a scheduling point: rt's tests are not rewritten
		rt.Go(func() {
			for i := 0; i < 20; i++ {
				rt.Sleep(50 * time.Millisecond)
				rt.Gosched()
			}
			stop.Store(true)
		})
		for {
			g0Steps = append(g0Steps, rt.Now())
			if stop.Load() {
				break
			}
			rt.Gosched()
		}
	})
	if res.Bug != nil {
		t.Fatalf("bug: %v", res.Bug.Message)
	}
	early := 0
	for _, s := range res.Trace {
		if s.Early > 0 {
			early++
			if s.Early > maxStarve {
				t.Errorf("step %d: a wake-up reported to starve the others for %v, more than %v", s.N, s.Early, maxStarve)
			}
		}
	}
	if early == 0 {
		t.Fatal("no timer fired early: the test shows nothing")
	}
	for i := 1; i < len(g0Steps); i++ {
		if gap := g0Steps[i].Sub(g0Steps[i-1]); gap > maxStarve {
			t.Errorf("g0, runnable throughout, did not run for %v of virtual time (step %d), more than -max-starve %v", gap, i, maxStarve)
		}
	}
}

// TestDeadlineEndsRun checks that a run still going at Config.Deadline is
// ended (at the next check, every few dozen steps) with OverTime, so
// that a time budget holds even when one run is long.
func TestDeadlineEndsRun(t *testing.T) {
	res := engine.Run(engine.Config{Deadline: time.Now().Add(-time.Second)}, greedyEarly{}, func() {
		for i := 0; i < 100000; i++ {
			rt.Gosched()
		}
	})
	if !res.OverTime || res.Bug != nil {
		t.Fatalf("OverTime %v, bug %v; want the run ended at its deadline", res.OverTime, res.Bug)
	}
	if res.Steps >= 100000 {
		t.Fatalf("the run took %d steps: it was not ended", res.Steps)
	}
}

// TestStarvationWhileBlockedByTheRunner checks that a goroutine that could
// run, and did not, stays starved when the goroutine run instead blocks it
// again (go-cache's TestCacheTimes): a janitor takes the cache's lock at
// every tick of a 1 ms ticker, and the test goroutine, which waits for
// that lock, could run between two ticks. Timers firing early only while
// the test goroutine was blocked on the lock were not counted as starving
// it: the ticks fired early without bound (250 s of them), and the test
// got the lock when the fair scheduler took over.
func TestStarvationWhileBlockedByTheRunner(t *testing.T) {
	const maxStarve = 100 * time.Millisecond
	var waited time.Duration
	res := engine.Run(engine.Config{MaxStarve: maxStarve, StepLimit: 200000}, greedyEarly{}, func() {
		var mu sync.Mutex
		var done atomic.Bool
		rt.Go(func() {
			tick := rt.NewTicker(time.Millisecond)
			defer rt.TickerStop(tick)
			for !done.Load() {
				rt.Recv(tick.C)
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
			}
		})
		rt.Sleep(25 * time.Millisecond)
		start := rt.Now()
		rt.MutexLock(&mu)
		waited = rt.Since(start)
		done.Store(true)
		rt.MutexUnlock(&mu)
	})
	if res.Bug != nil {
		t.Fatalf("bug: %s: %v", res.Bug.Kind, res.Bug.Message)
	}
	if waited > maxStarve+10*time.Millisecond {
		t.Errorf("the test goroutine waited %v for the lock, starved past -max-starve %v", waited, maxStarve)
	}
}
