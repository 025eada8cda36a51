package strategy_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// inBubble runs f in a synctest bubble of its own and panics with what
// the bubble's end reports (a goroutine left blocked in it).
func inBubble(f func()) {
	x := engine.Current()
	if msg := x.BubbleEnd(x.GoBubble(f)); msg != "" {
		panic(msg)
	}
}

func bit(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// timerPrograms race a timer's firing (its value handed to a waiter, or
// put in its channel's buffer with nobody waiting, or dropped by a ticker
// whose buffer is full) with Stop, Reset and receives, in a synctest
// bubble (the firing at an instant the bubble's clock reaches) and
// outside one. The firing is a step of heddle's model like any other:
// DPOR must order it with every step it races with (the receive that
// takes its value, the Stop or Reset that drains or disarms it), or it
// loses the classes DFS reaches (conform TestSynctestTickerHeldThenStop,
// reported as dfs 'tick'+'quit', odpor 'tick' only at 337389e).
var timerPrograms = []corpusProgram{
	{"bubble-ticker-held-then-stop", 0, func(o *outcome) {
		// conform TestSynctestTickerHeldThenStop.
		inBubble(func() {
			tk := rt.NewTicker(time.Second)
			quit := rt.MakeChan[chan int](0)
			done := rt.MakeChan[chan int32](1)
			rt.Go(func() {
				i := rt.Select(false, rt.RecvCase(tk.C), rt.RecvCase(quit))
				rt.Send(done, int32(i))
			})
			rt.SynctestWait()
			rt.Sleep(time.Second)
			rt.TickerStop(tk)
			rt.Close(quit)
			o.log(0, rt.Recv(done))
		})
	}},
	{"bubble-timer-buffered-stop", 0, func(o *outcome) {
		// Nobody waits on the timer's channel when it fires: its value
		// goes to the buffer, which a Stop at the same instant drains.
		inBubble(func() {
			tm := rt.NewTimer(time.Second)
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				rt.Sleep(time.Second)
				o.log(1, bit(rt.TimerStop(tm)))
				rt.Send(done, true)
			})
			rt.Sleep(time.Second)
			o.log(0, int32(rt.Select(true, rt.RecvCase(tm.C))))
			rt.Recv(done)
		})
	}},
	{"bubble-timer-buffered-reset", 0, func(o *outcome) {
		// The same with Reset: the buffered value is drained, the timer
		// fires again a second later.
		inBubble(func() {
			tm := rt.NewTimer(time.Second)
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				rt.Sleep(time.Second)
				o.log(1, bit(rt.TimerReset(tm, time.Second)))
				rt.Send(done, true)
			})
			rt.Sleep(time.Second)
			o.log(0, int32(rt.Select(true, rt.RecvCase(tm.C))))
			rt.Recv(done)
			rt.TimerStop(tm)
		})
	}},
	{"bubble-plain-receiver-stop", 0, func(o *outcome) {
		// A plain receive (no select: no arrival step) of a timer's
		// value, and a Stop at the instant it fires; if the Stop won,
		// a Reset lets the receiver have the value a second later.
		inBubble(func() {
			start := rt.Now()
			tm := rt.NewTimer(time.Second)
			done := rt.MakeChan[chan int32](1)
			rt.Go(func() {
				rt.Sleep(time.Second)
				v := rt.Recv(tm.C)
				rt.Send(done, int32(v.Sub(start)/time.Second))
			})
			rt.Sleep(time.Second)
			stopped := rt.TimerStop(tm)
			o.log(0, bit(stopped))
			if stopped {
				rt.TimerReset(tm, time.Second)
			}
			o.log(0, rt.Recv(done))
		})
	}},
	{"bubble-ticker-drop", 0, func(o *outcome) {
		// A ticker fires three times while its receiver sleeps: its
		// buffer holds one tick, the others are dropped; a Stop at the
		// instant of the last tick races with it.
		inBubble(func() {
			tk := rt.NewTicker(time.Second)
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				rt.Sleep(3 * time.Second)
				rt.TickerStop(tk)
				rt.Send(done, true)
			})
			rt.Sleep(3 * time.Second)
			n := int32(0)
			for rt.Select(true, rt.RecvCase(tk.C)) == 0 {
				n++
			}
			o.log(0, n)
			rt.Recv(done)
		})
	}},
	{"timer-arrive-vs-poll", 0, func(o *outcome) {
		// A select that arrives on a timer's channel is handed the value
		// when the timer fires; had the timer fired before it arrived,
		// a poll of the channel by another goroutine could take the
		// value first, and the select the other case.
		tm := rt.NewTimer(time.Millisecond)
		quit := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](2)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(quit))))
			rt.Send(done, true)
		})
		rt.Go(func() {
			o.log(2, int32(rt.Select(true, rt.RecvCase(tm.C))))
			rt.Send(done, true)
		})
		rt.Recv(done)
		rt.Close(quit)
		rt.Recv(done)
	}},
	{"timer-poll-vs-arrive", 0, func(o *outcome) {
		// The same with the poller started first.
		tm := rt.NewTimer(time.Millisecond)
		quit := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](2)
		rt.Go(func() {
			o.log(2, int32(rt.Select(true, rt.RecvCase(tm.C))))
			rt.Send(done, true)
		})
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(quit))))
			rt.Send(done, true)
		})
		rt.Recv(done)
		rt.Close(quit)
		rt.Recv(done)
	}},
	{"timer-arrive-vs-stop", 0, func(o *outcome) {
		// A select arrives on a timer's channel; a Stop after the
		// firing but before the select ran takes the value back.
		tm := rt.NewTimer(time.Millisecond)
		quit := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](1)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(quit))))
			rt.Send(done, true)
		})
		o.log(0, bit(rt.TimerStop(tm)))
		rt.Close(quit)
		rt.Recv(done)
	}},
	{"timer-arrive-vs-stop-clock", 0, func(o *outcome) {
		// timer-arrive-vs-stop, and the clock read after the Stop: a
		// Stop that took the fired value back came after the firing.
		start := rt.Now()
		tm := rt.NewTimer(time.Millisecond)
		quit := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](1)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(quit))))
			rt.Send(done, true)
		})
		o.log(0, bit(rt.TimerStop(tm)))
		late(o, 0, start, time.Millisecond)
		rt.Close(quit)
		rt.Recv(done)
	}},
	{"deadline-arrive-vs-send", 0, func(o *outcome) {
		// A context's deadline (a timer with no channel: it closes the
		// Done channel) and a send race for a select, which may have
		// arrived before either.
		ctx, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
		ch := rt.MakeChan[chan int](1)
		done := rt.MakeChan[chan bool](1)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(ctx.Done()), rt.RecvCase(ch))))
			rt.Send(done, true)
		})
		rt.Send(ch, 1)
		rt.Recv(done)
		cancel()
	}},
	{"cancel-arrive-vs-send", 0, func(o *outcome) {
		// The same with a cancel by another goroutine.
		ctx, cancel := rt.WithCancel(context.Background())
		ch := rt.MakeChan[chan int](1)
		done := rt.MakeChan[chan bool](1)
		rt.Go(func() {
			o.log(1, int32(rt.Select(false, rt.RecvCase(ctx.Done()), rt.RecvCase(ch))))
			rt.Send(done, true)
		})
		rt.Go(cancel)
		rt.Send(ch, 1)
		rt.Recv(done)
	}},
	{"timer-buffered-stop-poll", 0, func(o *outcome) {
		// Outside a bubble: the firing (into the buffer, nobody waits),
		// a Stop and two polls of the channel in any order.
		var x0 int32
		o.vars = []*int32{&x0}
		tm := rt.NewTimer(time.Millisecond)
		rt.Go(func() {
			o.log(1, bit(rt.TimerStop(tm)))
			atomic.StoreInt32(rt.AtomicW(&x0), 1)
		})
		o.log(0, int32(rt.Select(true, rt.RecvCase(tm.C))))
		o.log(0, int32(rt.Select(true, rt.RecvCase(tm.C))))
	}},
	{"ticker-reset-poll", 0, func(o *outcome) {
		// A ticker's ticks into its buffer, a Reset and polls.
		tk := rt.NewTicker(time.Millisecond)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.TickerReset(tk, 2*time.Millisecond)
			rt.Send(done, true)
		})
		o.log(0, int32(rt.Select(true, rt.RecvCase(tk.C))))
		rt.Recv(done)
		o.log(0, int32(rt.Select(true, rt.RecvCase(tk.C))))
		rt.TickerStop(tk)
	}},
}

// TestDifferentialTimers: on timerPrograms, source and optimal DPOR
// (sequential, and optimal DPOR split over 2 and 3 workers) reach the
// terminal states (happens-before class and outcome) and bugs of DFS.
func TestDifferentialTimers(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0
	for _, p := range timerPrograms {
		t.Run(p.name, func(t *testing.T) {
			dfs := exploreProgram(t, strategy.NewDFS(0), 60000, p.body)
			for _, s := range []struct {
				name string
				s    engine.Strategy
			}{{"sdpor", strategy.NewSourceDPOR()}, {"odpor", strategy.NewOptimalDPOR()}} {
				x := exploreProgram(t, s.s, 20000, p.body)
				sameSet(t, p.name, "outcomes", s.name, dfs.outcomes, x.outcomes)
				sameSet(t, p.name, "terminal states", s.name, dfs.states, x.states)
				sameSet(t, p.name, "bugs", s.name, dfs.bugs, x.bugs)
				t.Logf("%s: %s %d runs", p.name, s.name, x.runs)
			}
			for _, w := range []int{2, 3} {
				name := fmt.Sprintf("odpor on %d workers", w)
				x, finished, _, _ := parallelRun(t, strategy.RootUnit("odpor", 0), w, 3, p.body)
				if !finished {
					t.Errorf("%s: not every unit finished", name)
				}
				sameSet(t, p.name, "outcomes", name, dfs.outcomes, x.outcomes)
				sameSet(t, p.name, "terminal states", name, dfs.states, x.states)
				sameSet(t, p.name, "bugs", name, dfs.bugs, x.bugs)
			}
			t.Logf("%s: dfs %d runs, %d states, outcomes %v", p.name, dfs.runs, len(dfs.states), dfs.outcomes)
		})
	}
}
