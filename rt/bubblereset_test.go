package rt_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestBubbleStoppedAfterFuncResetZero: in a bubble, an AfterFunc stopped
// and Reset(0) stays in Go's timer heap (stopped there, then reset): Go
// runs it in a pass over the bubble's timers, not at once in the goroutine
// that resets it. heddle ran it at once, and f's goroutine could run
// before the bubble blocked in every schedule.
//
// Before the bubble first blocks, that pass is the one synctest.Run makes
// once, concurrently with the bubble's goroutines, before its root first
// parks: natively f starts before the bubble blocks when the pass comes
// after the Reset (3 of 3,718 runs at GOMAXPROCS 2 and 4), and only once
// the bubble blocked when it came before. heddle said "before false" only,
// and every exhaustive strategy said it had explored every schedule.
func TestBubbleStoppedAfterFuncResetZero(t *testing.T) {
	body := func() string {
		var before, after bool
		msg := bubble(func() {
			var ran atomic.Bool
			tm := rt.AfterFunc(time.Hour, func() { ran.Store(true) })
			rt.TimerStop(tm)
			rt.TimerReset(tm, 0)
			for i := 0; i < 3; i++ {
				// Polls (spins): they must not force the pass to come.
				rt.Gosched()
			}
			before = ran.Load()
			rt.SynctestWait()
			after = ran.Load()
		})
		return fmt.Sprintf("%s before %v after %v", msg, before, after)
	}
	want := " before false after true |  before true after true"
	for name, mk := range exhaustiveStrategies {
		outcomes, bugs, runs := exhaustWith(t, mk(), body)
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("%s: outcomes %q, bugs %v in %d runs; want %q and none", name, keys(outcomes), bugs, runs, want)
		}
	}
}

// TestBubbleFirstPassOver: once the bubble blocked (here, Wait returned),
// its first pass is over, and the next pass comes only when it blocks
// again: an AfterFunc stopped and Reset(0) after that never runs before.
// Nor does one that had fired and was Reset(0) (it is not in Go's heap:
// it runs at once, in the goroutine that resets it).
func TestBubbleFirstPassOver(t *testing.T) {
	body := func() string {
		var before, after bool
		msg := bubble(func() {
			var ran atomic.Bool
			tm := rt.AfterFunc(time.Hour, func() { ran.Store(true) })
			rt.SynctestWait()
			rt.TimerStop(tm)
			rt.TimerReset(tm, 0)
			rt.Gosched()
			before = ran.Load()
			rt.SynctestWait()
			after = ran.Load()
		})
		return fmt.Sprintf("%s before %v after %v", msg, before, after)
	}
	want := " before false after true"
	for name, mk := range exhaustiveStrategies {
		outcomes, bugs, runs := exhaustWith(t, mk(), body)
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("%s: outcomes %q, bugs %v in %d runs; want %q and none", name, keys(outcomes), bugs, runs, want)
		}
	}
}

// TestBubbleFirstPassOnce: the bubble's first pass comes once: an active
// AfterFunc (in Go's heap) Reset(0) after the pass fired another one
// (whose goroutine ran before the Reset) waits for the bubble to block.
// Before, either may run first: the pass may come after both Resets, and
// fire both. (The second is not stopped: the pass would drop it from Go's
// heap, and its Reset(0) would run it at once.)
func TestBubbleFirstPassOnce(t *testing.T) {
	body := func() string {
		var first, second bool
		msg := bubble(func() {
			var ran1, ran2 atomic.Bool
			tm1 := rt.AfterFunc(time.Hour, func() { ran1.Store(true) })
			tm2 := rt.AfterFunc(time.Hour, func() { ran2.Store(true) })
			rt.TimerStop(tm1)
			rt.TimerReset(tm1, 0)
			rt.Gosched()
			first = ran1.Load()
			rt.TimerReset(tm2, 0)
			rt.Gosched()
			rt.Gosched()
			second = ran2.Load()
			rt.SynctestWait()
		})
		return fmt.Sprintf("%s%v %v", msg, first, second)
	}
	want := "false false | false true | true false"
	for name, mk := range exhaustiveStrategies {
		outcomes, bugs, runs := exhaustWith(t, mk(), body)
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("%s: outcomes %q, bugs %v in %d runs; want %q and none", name, keys(outcomes), bugs, runs, want)
		}
	}
}

// exhaustiveStrategies are the exhaustive strategies whose outcome sets
// must agree.
var exhaustiveStrategies = map[string]func() engine.Strategy{
	"dfs":   func() engine.Strategy { return strategy.NewDFS(0) },
	"sdpor": func() engine.Strategy { return strategy.NewSourceDPOR() },
	"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
}

// exhaustWith explores body's every schedule with s, and returns its
// outcomes, its bugs (kind: message) and the number of runs.
func exhaustWith(t *testing.T, s engine.Strategy, body func() string) (outcomes map[string]bool, bugs map[string]string, runs int) {
	t.Helper()
	outcomes, bugs = map[string]bool{}, map[string]string{}
	for run := 1; s.Begin(run); run++ {
		if run > 10000 {
			t.Fatal("not exhausted within 10000 runs")
		}
		runs = run
		var out string
		res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true}, s, func() { out = body() })
		s.End(res)
		if res.Internal != "" {
			t.Fatalf("run %d: internal error: %s", run, res.Internal)
		}
		if res.Bug != nil {
			bugs[res.Bug.Kind] = res.Bug.Message
			continue
		}
		outcomes[out] = true
	}
	return outcomes, bugs, runs
}

// TestBubbleWaitedTimerResetZero: the same for a timer a goroutine of the
// bubble waits on (Go adds its timer to the heap then): stopped and
// Reset(0), it fires once the bubble blocks, not at once.
func TestBubbleWaitedTimerResetZero(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var early bool
		msg := bubble(func() {
			tm := rt.NewTimer(time.Hour)
			got := rt.MakeChan[chan bool](1)
			rt.Go(func() {
				rt.Recv(tm.C)
				rt.Send(got, true)
			})
			rt.SynctestWait()
			rt.TimerStop(tm)
			rt.TimerReset(tm, 0)
			rt.Gosched()
			early = rt.Select(true, rt.RecvCase(got)) == 0
			if !early {
				rt.Recv(got)
			}
		})
		return fmt.Sprintf("%s early %v", msg, early)
	})
	want := " early false"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestBubbleTimerResetZeroPoll: a timer nobody waited on is not in Go's
// heap: Reset(0), stopped before or not, a poll of its channel finds the
// value (Go runs it at the receive).
func TestBubbleTimerResetZeroPoll(t *testing.T) {
	for _, stop := range []bool{false, true} {
		outcomes, bugs := exhaustControlled(t, func() string {
			var got bool
			msg := bubble(func() {
				tm := rt.NewTimer(time.Hour)
				if stop {
					rt.TimerStop(tm)
				}
				rt.TimerReset(tm, 0)
				got = rt.Select(true, rt.RecvCase(tm.C)) == 0
			})
			return fmt.Sprintf("%s got %v", msg, got)
		})
		want := " got true"
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("stop %v: outcomes %q, bugs %v; want %q and none", stop, keys(outcomes), bugs, want)
		}
	}
}
