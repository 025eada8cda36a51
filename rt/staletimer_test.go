package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// kept is where a run leaves its timers for the next one, as a sync.Pool
// or a package variable of the program keeps them.
var kept struct {
	after *time.Timer
	timer *time.Timer
	tick  *time.Ticker
	fired int
}

// TestTimerOfEarlierRun: a Timer, an AfterFunc timer and a Ticker made by
// one run are Stopped and Reset by the next, as go-deadlock Resets the
// AfterFunc timer of a pooled lock entry: the later run adopts them (Go's
// own Reset panicked on them: "Reset called on uninitialized Timer"), and
// they fire on its virtual clock, the AfterFunc calling its function.
func TestTimerOfEarlierRun(t *testing.T) {
	kept.after, kept.timer, kept.tick, kept.fired = nil, nil, nil, 0
	for run := 1; run <= 3; run++ {
		s := strategy.NewRandom(1)
		s.Begin(run)
		res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, func() {
			if kept.after == nil {
				kept.after = rt.AfterFunc(time.Hour, func() { kept.fired++ })
				kept.timer = rt.NewTimer(time.Hour)
				kept.tick = rt.NewTicker(time.Hour)
				rt.TimerStop(kept.after)
				rt.TimerStop(kept.timer)
				rt.TickerStop(kept.tick)
				return
			}
			if rt.TimerStop(kept.after) || rt.TimerStop(kept.timer) {
				panic("a stopped timer of an earlier run is not active in this one")
			}
			rt.TimerReset(kept.after, time.Millisecond)
			rt.TimerReset(kept.timer, 2*time.Millisecond)
			rt.TickerReset(kept.tick, 3*time.Millisecond)
			rt.Recv(kept.timer.C)
			rt.Recv(kept.tick.C)
			rt.TickerStop(kept.tick)
			rt.Sleep(time.Millisecond) // the AfterFunc's goroutine runs
			if !rt.TimerStop(kept.timer) && rt.TimerReset(kept.timer, time.Hour) {
				panic("a fired timer is active")
			}
			rt.TimerStop(kept.timer)
		})
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s\n%s", run, res.Bug.Kind, res.Bug.Message, res.Bug.Stack)
		}
		if res.Internal != "" {
			t.Fatalf("run %d: internal error: %s", run, res.Internal)
		}
	}
	if kept.fired != 2 {
		t.Fatalf("the AfterFunc function ran %d times in runs 2 and 3, want 2", kept.fired)
	}
}

// TestTimerResetToNever: a timer Reset to the largest duration, as
// go-quartz's scheduler loop does when its queue is empty, never fires;
// the clock's instant d from now overflowed, and the timer fired at once,
// again and again, so that the loop spun and the test's own sleep came
// after the goroutine's thousands of spurious ticks.
func TestTimerResetToNever(t *testing.T) {
	const never = time.Duration(1<<63 - 1)
	s := strategy.NewRandom(1)
	s.Begin(1)
	ticks := 0
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, s, func() {
		stop := rt.MakeChan[chan bool](0)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Sleep(time.Millisecond) // the clock is past the epoch
			tm := rt.NewTimer(never)
			for {
				rt.TimerReset(tm, never)
				if rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase((<-chan bool)(stop))) == 1 {
					rt.Send(done, true)
					return
				}
				ticks++
			}
		})
		rt.Sleep(time.Second)
		rt.Close(stop)
		rt.Recv(done)
		tk := rt.NewTicker(never / 2)
		rt.TickerReset(tk, never)
		rt.TickerStop(tk)
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s\n%s", res.Bug.Kind, res.Bug.Message, res.Bug.Stack)
	}
	if ticks != 0 {
		t.Fatalf("a timer reset to %v ticked %d times within a second", never, ticks)
	}
}
