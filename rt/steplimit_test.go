package rt_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// longLockFree is a long test, not a livelock: two goroutines add 1,000
// times each to a counter by CAS retries while a third loads it (its
// loads of an unchanged value are polls), about 8,000 steps in all.
func longLockFree() {
	var n int64
	done := rt.MakeChan[chan bool](0)
	for w := 0; w < 2; w++ {
		rt.Go(func() {
			for i := 0; i < 1000; i++ {
				for {
					v := atomic.LoadInt64(rt.AtomicR(&n))
					if atomic.CompareAndSwapInt64(rt.AtomicW(&n), v, v+1) {
						break
					}
				}
			}
			rt.Send(done, true)
		})
	}
	rt.Go(func() {
		for i := 0; i < 2000; i++ {
			_ = atomic.LoadInt64(rt.AtomicR(&n))
		}
		rt.Send(done, true)
	})
	for i := 0; i < 3; i++ {
		rt.Recv(done)
	}
}

// TestStepBoundRaised checks what explore relies on when it raises a long
// test's step bound (explore/steplimit.go): a fair run from the first
// step ends; the run that passed the first bound, made again with its
// choices under a raised bound and fair scheduling from the step it had
// it, follows the same steps and ends; and it replays so.
func TestStepBoundRaised(t *testing.T) {
	const limit = 2000
	s := strategy.NewRandom(3)
	s.Begin(1)
	res := engine.Run(engine.Config{StepLimit: limit}, s, longLockFree)
	if res.Bug == nil || res.Bug.Kind != engine.KindStepLimit {
		t.Fatalf("run under a bound of %d: %v in %d steps, want steplimit", limit, res.Bug, res.Steps)
	}
	if want := "step bound exceeded: 2000 scheduling steps (livelock, or a loop that never blocks)"; res.Bug.Message != want {
		t.Errorf("message %q, want %q", res.Bug.Message, want)
	}
	fair := engine.Run(engine.Config{StepLimit: 10 * limit, FairAfter: 1}, first{}, longLockFree)
	if fair.Bug != nil {
		t.Fatalf("fair run: %v in %d steps", fair.Bug, fair.Steps)
	}
	raised := 4 * fair.Steps
	if raised <= limit {
		t.Fatalf("fair run of %d steps: not longer than a quarter of %d", fair.Steps, limit)
	}
	cfg := engine.Config{StepLimit: raised, FairAfter: limit / 2, PostMainMax: limit / 2, FairSteps: fair.Steps, Trace: true, TraceMax: limit}
	keys := keysOf(res.Choices)
	again := engine.Run(cfg, strategy.NewReplay(keys), longLockFree)
	if again.Bug != nil {
		t.Fatalf("made again under a bound of %d: %v in %d steps", raised, again.Bug, again.Steps)
	}
	if got := keysOf(again.Choices); strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Fatalf("made again, the strategy's %d choices differ from the run's %d", len(got), len(keys))
	}
	if len(again.Trace) != limit {
		t.Errorf("trace of a %d-step run bounded to %d steps has %d", again.Steps, limit, len(again.Trace))
	}
	for i := 0; i < 3; i++ {
		r := engine.Run(cfg, strategy.NewReplay(keys), longLockFree)
		if r.Bug != nil || r.Steps != again.Steps {
			t.Fatalf("replay %d: %v in %d steps, want no bug in %d", i, r.Bug, r.Steps, again.Steps)
		}
	}
}

// TestStepBoundMessageSaysFairRun checks that a run past the bound says
// what the fair run of its test did.
func TestStepBoundMessageSaysFairRun(t *testing.T) {
	spin := func() {
		var a atomic.Int32
		rt.Go(func() {
			for rt.AtomicR(&a).Load() == 0 {
			}
		})
		for rt.AtomicR(&a).Load() == 0 {
		}
	}
	for _, c := range []struct {
		fairSteps int
		want      string
	}{
		{-20000, "step bound exceeded: 2000 scheduling steps (livelock, or a loop that never blocks: a fair schedule of the test had not ended after 20000 steps either)"},
		{300, "step bound exceeded: 2000 scheduling steps, scheduled fairly from step 1000, while a fair schedule of the test ends in 300 steps (this schedule livelocks, or loops without blocking)"},
	} {
		res := engine.Run(engine.Config{StepLimit: 2000, FairSteps: c.fairSteps}, first{}, spin)
		if res.Bug == nil || res.Bug.Message != c.want {
			t.Errorf("FairSteps %d: %v, want %q", c.fairSteps, res.Bug, c.want)
		}
	}
}

// TestTimeBoundEndsTickerLivelock checks Config.TimeLimit: a test goroutine
// waiting forever beside a ticker goroutine (ants' Tune losing its wakeup
// while the pool's tickers run) ends once the virtual clock has passed the
// bound, a few steps per tick, not at the step bound; a test that returns
// within it, or a wait whose clock only polls move, is not ended by it;
// and goroutines left ticking after the test returned are the leak
// horizon's business, not the bound's.
func TestTimeBoundEndsTickerLivelock(t *testing.T) {
	const limit = 10 * time.Minute
	ticker := func() {
		for {
			rt.Sleep(time.Second)
		}
	}
	lost := func() {
		never := rt.MakeChan[chan bool](0)
		rt.Go(ticker)
		rt.Recv(never)
	}
	res := engine.Run(engine.Config{StepLimit: 1000000, TimeLimit: limit, NoLeaks: true}, first{}, lost)
	if res.Bug == nil || res.Bug.Kind != engine.KindStepLimit || !res.Bug.Clock {
		t.Fatalf("lost wakeup beside a ticker: %v in %d steps, want a steplimit bug of the time bound", res.Bug, res.Steps)
	}
	// Two steps a tick (the wake-up, the next Sleep's), a tick a second.
	if res.Steps > 2*int(limit/time.Second)+100 {
		t.Errorf("ended after %d steps, want about %d", res.Steps, 2*int(limit/time.Second))
	}
	if want := engine.TimeLimitMessage(limit, res.Steps); res.Bug.Message != want {
		t.Errorf("message %q, want %q", res.Bug.Message, want)
	}
	if res := engine.Run(engine.Config{StepLimit: 20000, NoLeaks: true}, first{}, lost); res.Bug == nil || res.Bug.Clock || res.Steps <= 20000 {
		t.Errorf("without a time bound: %v in %d steps, want the step bound", res.Bug, res.Steps)
	}

	// Nine minutes of ticks, then the test returns: no bug.
	short := func() {
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for i := 0; i < 9*60; i++ {
				rt.Sleep(time.Second)
			}
			rt.Send(done, true)
		})
		rt.Recv(done)
	}
	if res := engine.Run(engine.Config{TimeLimit: limit, NoLeaks: true}, first{}, short); res.Bug != nil {
		t.Errorf("a test of 9 minutes under a bound of 10: %v in %d steps", res.Bug, res.Steps)
	}

	// A busy-wait of an hour moves the clock by its polls only: the bound
	// does not count them (natively, a poll may take less than the time
	// heddle gives it).
	busy := func() {
		start := rt.Now()
		for rt.Now().Sub(start) < time.Hour {
			rt.Gosched()
		}
	}
	if res := engine.Run(engine.Config{TimeLimit: limit, NoLeaks: true}, first{}, busy); res.Bug != nil {
		t.Errorf("a busy-wait of an hour: %v in %d steps", res.Bug, res.Steps)
	}

	// The test returns at once; its ticker goes on after it.
	left := func() { rt.Go(ticker) }
	if res := engine.Run(engine.Config{TimeLimit: time.Second, NoLeaks: true}, first{}, left); res.Bug != nil && res.Bug.Clock {
		t.Errorf("a ticker left after the test returned: %v in %d steps", res.Bug, res.Steps)
	}
}

// TestSleepLoopIsNotLong checks that a run past the step bound whose only
// goroutine left running sleeps in a loop is not taken for a long
// computation (Bug.Long: no poll, no timer fired, no sleep ended over its
// second half): a sleep's end is a wait, as a timer's firing is. It was
// not counted, and such a livelock was "too long to explore", not a bug.
func TestSleepLoopIsNotLong(t *testing.T) {
	lost := func() {
		never := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for {
				rt.Sleep(time.Microsecond)
			}
		})
		rt.Recv(never)
	}
	res := engine.Run(engine.Config{StepLimit: 2000, NoLeaks: true}, first{}, lost)
	if res.Bug == nil || res.Bug.Kind != engine.KindStepLimit || res.Bug.Long {
		t.Fatalf("a sleep loop beside a lost wakeup: %+v in %d steps, want a steplimit bug that is not Long", res.Bug, res.Steps)
	}
}
