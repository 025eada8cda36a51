package strategy_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// lateCfg is the configuration of the clock programs: late wakes on, as
// explore sets them.
var lateCfg = engine.Config{MaxStarve: 100 * time.Millisecond, LateWake: true, Trace: true, StepLimit: 5000}

// exploreLate runs prog under s, with cfg, until s ends the exploration
// (exploreProgram is it without late wakes).
func exploreLate(t testing.TB, cfg engine.Config, s engine.Strategy, limit int, prog func(*outcome)) *explored {
	t.Helper()
	cc := strategy.NewClassCounter(s)
	x := &explored{states: map[string]bool{}, lazyStates: map[string]bool{}, outcomes: map[string]bool{}, bugs: map[string]bool{}}
	var o *outcome
	body := func() {
		o = &outcome{}
		prog(o)
	}
	for run := 1; cc.Begin(run); run++ {
		if run > limit {
			t.Fatalf("exploration did not end within %d runs", limit)
		}
		r := engine.Run(cfg, cc, body)
		cc.End(r)
		x.runs++
		out := o.String() + bugKey(r.Bug)
		x.states[cc.Last+"\n=> "+out] = true
		x.lazyStates[cc.LastLazy+"\n=> "+out] = true
		x.outcomes[out] = true
		if r.Bug != nil {
			x.bugs[bugKey(r.Bug)] = true
		}
	}
	return x
}

// late logs 1 if at least d passed since start, 0 otherwise.
func late(o *outcome, g int, start time.Time, d time.Duration) {
	v := int32(0)
	if rt.Since(start) >= d {
		v = 1
	}
	o.log(g, v)
}

// clockPrograms read the clock (time.Now, Since, a timer's arming, a
// context's deadline) around steps that do not: late wakes (the clock
// moving on while a goroutine waits to run) are choices in them, which
// the DPORs order with the clock's readers only.
var clockPrograms = []corpusProgram{
	{"fetchTwo", 0, func(o *outcome) {
		// A worker's two results, given up on after the first if it
		// took 50ms: the worker then leaks.
		results := rt.MakeChan[chan int](0)
		start := rt.Now()
		rt.Go(func() {
			rt.Send(results, 1)
			rt.Send(results, 2)
		})
		rt.Recv(results)
		if rt.Since(start) > 50*time.Millisecond {
			o.log(0, -1)
			return
		}
		rt.Recv(results)
		o.log(0, 2)
	}},
	{"unrelatedBetweenReads", 0, func(o *outcome) {
		// Two goroutines that touch no clock run between reads of
		// main's.
		start := rt.Now()
		done := rt.MakeChan[chan bool](0)
		var x int32
		for i := int32(1); i <= 2; i++ {
			i := i
			rt.Go(func() {
				atomic.AddInt32(rt.AtomicW(&x), i)
				rt.Send(done, true)
			})
		}
		rt.Recv(done)
		late(o, 0, start, 100*time.Millisecond)
		rt.Recv(done)
		late(o, 0, start, 150*time.Millisecond)
		o.vars = append(o.vars, &x)
	}},
	{"twoReaders", 0, func(o *outcome) {
		// Each of two goroutines times a handoff.
		ch := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			start := rt.Now()
			rt.Send(ch, 1)
			late(o, 1, start, 100*time.Millisecond)
			rt.Send(done, true)
		})
		start := rt.Now()
		rt.Recv(ch)
		late(o, 0, start, 100*time.Millisecond)
		rt.Recv(done)
	}},
	{"sleepThenSince", 0, func(o *outcome) {
		// A sleeper's only timer, and a goroutine beside it that
		// reads no clock.
		start := rt.Now()
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Sleep(100 * time.Millisecond)
		late(o, 0, start, 150*time.Millisecond)
		rt.Recv(ch)
	}},
	{"armAfterRead", 0, func(o *outcome) {
		// A timer armed after the clock moved fires later: its firing
		// and another goroutine's send race.
		start := rt.Now()
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() {
			rt.Send(ch, 1)
		})
		tm := rt.NewTimer(30 * time.Millisecond)
		sel := rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(ch))
		o.log(0, int32(sel))
		late(o, 0, start, 100*time.Millisecond)
	}},
	{"mutexAndClock", 0, func(o *outcome) {
		// Lock contention, and a clock read in one of the critical
		// sections.
		var mu sync.Mutex
		start := rt.Now()
		done := rt.MakeChan[chan bool](0)
		for i := 1; i <= 2; i++ {
			i := i
			rt.Go(func() {
				rt.MutexLock(&mu)
				if i == 1 {
					late(o, i, start, 100*time.Millisecond)
				} else {
					o.log(i, 1)
				}
				rt.MutexUnlock(&mu)
				rt.Send(done, true)
			})
		}
		rt.Recv(done)
		rt.Recv(done)
	}},
	{"tickerBeside", 0, func(o *outcome) {
		// Two ticks of a ticker timed by their receiver, beside a
		// goroutine that reads no clock: whether the ticker's channel
		// is full decides whether its next tick's early firing or a
		// late wake moves the clock (addLateWake), so the receive that
		// empties it is ordered with late wakes.
		start := rt.Now()
		tk := rt.NewTicker(20 * time.Millisecond)
		done := rt.MakeChan[chan bool](0)
		var x int32
		rt.Go(func() {
			atomic.AddInt32(rt.AtomicW(&x), 1)
			rt.Send(done, true)
		})
		rt.Recv(tk.C)
		late(o, 0, start, 30*time.Millisecond)
		rt.Recv(tk.C)
		late(o, 0, start, 50*time.Millisecond)
		rt.Recv(done)
		rt.TickerStop(tk)
		o.vars = append(o.vars, &x)
	}},
	{"readAfterReturn", 0, func(o *outcome) {
		// A goroutine still running when the test returns reads the
		// clock: no late wake after the test's end.
		start := rt.Now()
		ch := rt.MakeChan[chan int](1)
		var x int32
		rt.Go(func() {
			rt.Send(ch, 1)
			if rt.Since(start) >= 100*time.Millisecond {
				atomic.AddInt32(rt.AtomicW(&x), 1)
			}
		})
		rt.Recv(ch)
		o.vars = append(o.vars, &x)
	}},
}

// TestDifferentialClock: on programs that read the clock, with late wakes,
// source and optimal DPOR reach the outcomes and bugs of DFS, and only
// terminal states of DFS (up to happens-before, the late wakes ordered
// with the clock's readers only). They do not reach all of its states: a
// late wake that nothing after it sees (the test's end comes next, with
// no goroutine left) is a happens-before class of its own for DFS, which
// the DPORs, ordering it with no step, do not explore. (Before late wakes
// were ordered this way, the DPORs missed no outcome either, but missed
// happens-before classes with late wakes that were seen.)
func TestDifferentialClock(t *testing.T) {
	for _, p := range clockPrograms {
		t.Run(p.name, func(t *testing.T) {
			dfs := exploreLate(t, lateCfg, strategy.NewDFS(0), 60000, p.body)
			for _, s := range []struct {
				name string
				s    engine.Strategy
			}{{"sdpor", strategy.NewSourceDPOR()}, {"odpor", strategy.NewOptimalDPOR()}} {
				x := exploreLate(t, lateCfg, s.s, 20000, p.body)
				sameSet(t, p.name, "outcomes", s.name, dfs.outcomes, x.outcomes)
				sameSet(t, p.name, "bugs", s.name, dfs.bugs, x.bugs)
				if m := missing(x.states, dfs.states); len(m) > 0 {
					t.Errorf("%s: %s reaches %d terminal states DFS does not, e.g.\n%s", p.name, s.name, len(m), m[0])
				}
				t.Logf("%s: %s %d runs", p.name, s.name, x.runs)
			}
			t.Logf("%s: dfs %d runs, %d states, %d outcomes %v", p.name, dfs.runs, len(dfs.states), len(dfs.outcomes), dfs.outcomes)
		})
	}
}

// TestLateWakeCommutes: a late wake is ordered with the steps that read
// the clock or touch timers, not with the others. Between three reads of
// the clock, two goroutines that read none run: optimal DPOR explores
// their interleavings with late wakes at most four times as often as
// without (the clock moved before the second read or not, before the
// third or not). When a late wake was a write of virtual time, which
// every step reads, it was ordered with each of their steps, and the runs
// multiplied (694 runs against 20, of an earlier version of the program).
func TestLateWakeCommutes(t *testing.T) {
	var p corpusProgram
	for _, c := range clockPrograms {
		if c.name == "unrelatedBetweenReads" {
			p = c
		}
	}
	off := lateCfg
	off.LateWake = false
	without := exploreLate(t, off, strategy.NewOptimalDPOR(), 20000, p.body)
	with := exploreLate(t, lateCfg, strategy.NewOptimalDPOR(), 20000, p.body)
	if with.runs > 4*without.runs {
		t.Errorf("optimal DPOR: %d runs with late wakes, %d without; want at most 4 times as many", with.runs, without.runs)
	}
	t.Logf("optimal DPOR: %d runs with late wakes, %d without", with.runs, without.runs)
}
