package rt_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// bubbleClockProg runs, beside goroutines outside any bubble that poll the
// clock, spin and sleep, two bubbles at once whose goroutines measure
// durations on their bubble's clock, and returns what they measured.
func bubbleClockProg() string {
	var stop atomic.Bool
	// Outside any bubble: a goroutine that polls the clock (each read,
	// and each Gosched, moves the run's virtual clock), and one that
	// sleeps in a loop (its wake-ups move it too).
	rt.Go(func() {
		start := rt.Now()
		for !stop.Load() && rt.Since(start) < time.Second {
			rt.Gosched()
		}
	})
	rt.Go(func() {
		for i := 0; i < 30 && !stop.Load(); i++ {
			rt.Sleep(time.Millisecond)
			_ = rt.Now()
		}
	})
	// Another bubble at the same time, whose timers advance its clock
	// only.
	other := rt.MakeChan[chan string](1)
	rt.Go(func() {
		var got string
		msg := bubble(func() {
			start := rt.Now()
			for i := 0; i < 3; i++ {
				rt.Sleep(7 * time.Millisecond)
			}
			got = rt.Since(start).String()
		})
		rt.Send(other, msg+got)
	})
	var sleep, timer, handoff, wake time.Duration
	var year int
	msg := bubble(func() {
		// A Sleep of 25ms takes 25ms.
		start := rt.Now()
		year = start.Year()
		rt.Sleep(25 * time.Millisecond)
		sleep = rt.Since(start)

		// A receive released by a timer of the bubble takes as long as
		// the timer.
		start = rt.Now()
		rt.Recv(rt.After(25 * time.Millisecond))
		timer = rt.Since(start)

		// Goroutines of the bubble that hand values over, all while
		// the clock stands still.
		c := rt.MakeChan[chan int](0)
		rt.Go(func() {
			for i := 0; i < 3; i++ {
				rt.Send(c, i)
			}
		})
		start = rt.Now()
		for i := 0; i < 3; i++ {
			rt.Recv(c)
		}
		handoff = rt.Since(start)

		// A goroutine of the bubble woken by another's sleep.
		done := rt.MakeChan[chan time.Time](0)
		rt.Go(func() {
			rt.Sleep(10 * time.Millisecond)
			rt.Send(done, rt.Now())
		})
		start = rt.Now()
		wake = rt.Recv(done).Sub(start)
	})
	stop.Store(true)
	return fmt.Sprintf("%q sleep=%v timer=%v handoff=%v wake=%v year=%d other=%s", msg, sleep, timer, handoff, wake, year, rt.Recv(other))
}

// A synctest bubble has a clock of its own: it advances only to the
// bubble's timers, when every goroutine of the bubble is blocked, and
// never while goroutines outside the bubble poll the clock, spin or
// sleep, or another bubble's timers fire. In every schedule a goroutine of
// the bubble measures the durations natively always measured: a Sleep of
// 25ms takes exactly 25ms (it took 25.002ms in workerpool's pacer tests,
// run in parallel, when the bubble's clock was the run's).
func TestBubbleOwnClock(t *testing.T) {
	const want = `"" sleep=25ms timer=25ms handoff=0s wake=10ms year=2000 other=21ms`
	seen := map[string]bool{}
	for seed := int64(1); seed <= 30; seed++ {
		for _, s := range []engine.Strategy{strategy.NewRandom(seed), strategy.NewPCT(seed, 3), strategy.NewPOS(seed)} {
			for run := 1; run <= 3; run++ {
				s.Begin(run)
				var out string
				res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, func() { out = bubbleClockProg() })
				s.End(res)
				if res.Bug != nil {
					t.Fatalf("seed %d, %T, run %d: %s: %s", seed, s, run, res.Bug.Kind, res.Bug.Message)
				}
				seen[out] = true
			}
		}
	}
	if got := keys(seen); got != want {
		t.Errorf("measured %s\nwant %s", got, want)
	}
}

// A timer of a bubble set to fire now fires at once, in the goroutine that
// sets it, as Go's runtime runs it: time.After(0) has its value when the
// select that follows polls it, and so has a Timer Reset to 0 after it
// fired. One that comes due later fires only once every goroutine of the
// bubble is blocked: a goroutine that can still run finishes first.
func TestBubbleTimerDueNow(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var after, reset, funcRan bool
		var order string
		bubble(func() {
			after = rt.Select(true, rt.RecvCase(rt.After(0))) == 0
			tm := rt.NewTimer(time.Millisecond)
			rt.Recv(tm.C)
			rt.TimerReset(tm, 0)
			reset = rt.Select(true, rt.RecvCase(tm.C)) == 0
			ran := rt.MakeChan[chan bool](1)
			rt.AfterFunc(0, func() { rt.Send(ran, true) })
			funcRan = rt.Recv(ran)

			// Two goroutines: one that sleeps, one that runs a while
			// (it yields, but is never blocked) and then blocks.
			c := rt.MakeChan[chan string](2)
			rt.Go(func() {
				rt.Sleep(time.Millisecond)
				rt.Send(c, "sleeper")
			})
			rt.Go(func() {
				for i := 0; i < 3; i++ {
					rt.Gosched()
				}
				rt.Send(c, "runner")
			})
			order = rt.Recv(c) + "," + rt.Recv(c)
		})
		return fmt.Sprintf("%v %v %v %s", after, reset, funcRan, order)
	})
	if want := "true true true runner,sleeper"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// Under the fair scheduler of long runs, a timer of a bubble fires as soon
// as the bubble's goroutines are all blocked, as natively, even while a
// goroutine outside the bubble, which waits for the bubble and locks a
// mutex in its loop (no spin heddle would drop), can run: it never did,
// and the run hit the step bound.
func TestBubbleTimerFair(t *testing.T) {
	var loops int
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 20000, FairAfter: 1}, s, func() {
		var done atomic.Bool
		var mu sync.Mutex
		rt.Go(func() {
			for !done.Load() {
				rt.MutexLock(&mu)
				loops++
				rt.MutexUnlock(&mu)
			}
		})
		bubble(func() {
			rt.Recv(rt.After(time.Millisecond))
			done.Store(true)
		})
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s (the goroutine outside the bubble looped %d times)", res.Bug.Kind, res.Bug.Message, loops)
	}
}
