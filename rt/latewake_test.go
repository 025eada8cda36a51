package rt_test

import (
	"errors"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// exhaustLate is exhaust with late wakes on or off (engine.Config.LateWake).
func exhaustLate(t *testing.T, late bool, body func() string) (outcomes map[string]bool, bugs map[string]int, runs int) {
	t.Helper()
	return exhaustConfig(t, engine.Config{MaxStarve: 100 * time.Millisecond, LateWake: late}, 20000, body)
}

// go-retry's TestWithMaxDuration, benbjohnson/clock's TestClock_Timer: a
// goroutine waits on its only timer and then reads how long it waited.
// Natively it runs late on a loaded machine and sees more; before late
// wakes the clock moved only when a timer fired, so it always saw exactly
// the wait, and an exhaustive strategy said every schedule was explored.
func TestLateWakeAfterOnlyTimer(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait func()
	}{
		{"Sleep", func() { rt.Sleep(200 * time.Millisecond) }},
		{"Timer", func() { rt.Recv(rt.NewTimer(200 * time.Millisecond).C) }},
		{"After", func() { rt.Recv(rt.After(200 * time.Millisecond)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := func() string {
				start := rt.Now()
				tc.wait()
				if d := rt.Since(start); d > 250*time.Millisecond {
					return "late"
				} else if d < 200*time.Millisecond {
					return "early"
				}
				return "on time"
			}
			got, bugs, runs := exhaustLate(t, true, body)
			if !got["late"] || !got["on time"] || got["early"] || len(bugs) > 0 {
				t.Errorf("with late wakes: outcomes %s, bugs %v in %d runs; want late and on time", keys(got), bugs, runs)
			}
			got, bugs, _ = exhaustLate(t, false, body)
			if got["late"] || !got["on time"] || len(bugs) > 0 {
				t.Errorf("without late wakes: outcomes %s, bugs %v; want on time only", keys(got), bugs)
			}
		})
	}
}

var errTimeout = errors.New("timeout")

// fetchTwo waits for two results of a worker, and gives up after the first
// if it took longer than d, with no timer of its own: it forgets the
// worker, which then blocks forever on its second send.
func fetchTwo(d time.Duration) error {
	results := rt.MakeChan[chan int](0)
	start := rt.Now()
	rt.Go(func() {
		rt.Send(results, 1)
		rt.Send(results, 2)
	})
	rt.Recv(results)
	if rt.Since(start) > d {
		return errTimeout
	}
	rt.Recv(results)
	return nil
}

// The timeout path of code that reads the clock after a wait, with no timer
// of its own, is reachable only if the wait can take long: a late wake
// (the clock moving on while the worker waited to run) reaches it, and its
// leak. Before, the leak was a bug heddle could not find.
func TestLateWakeReachesTimeoutPath(t *testing.T) {
	body := func() string {
		if err := fetchTwo(50 * time.Millisecond); err != nil {
			return err.Error()
		}
		return "ok"
	}
	got, bugs, runs := exhaustLate(t, true, body)
	if bugs[engine.KindLeak] == 0 || !got["ok"] {
		t.Errorf("with late wakes: outcomes %s, bugs %v in %d runs; want ok and a leak", keys(got), bugs, runs)
	}
	got, bugs, _ = exhaustLate(t, false, body)
	if len(bugs) > 0 || !got["ok"] || len(got) != 1 {
		t.Errorf("without late wakes: outcomes %s, bugs %v; want ok only", keys(got), bugs)
	}
}

// A program that never reads the clock is offered no late wake: its runs,
// timers and all, are those of late wakes off.
func TestLateWakeNeedsAClockRead(t *testing.T) {
	body := func() string {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() {
			rt.Sleep(10 * time.Millisecond)
			rt.Send(ch, 1)
		})
		tm := rt.NewTimer(20 * time.Millisecond)
		rt.Recv(tm.C)
		return "timer"
	}
	on, bon, ron := exhaustLate(t, true, body)
	off, boff, roff := exhaustLate(t, false, body)
	if ron != roff || keys(on) != keys(off) || len(bon) != len(boff) {
		t.Errorf("late wakes on: %d runs, %s, %v; off: %d runs, %s, %v; want the same", ron, keys(on), bon, roff, keys(off), boff)
	}
}

// A late wake is a choice recorded like a timer's ("@late") and replayed
// exactly: the replay of a run that took one sees the same clock.
func TestLateWakeReplays(t *testing.T) {
	body := func(out *time.Duration) func() {
		return func() {
			start := rt.Now()
			rt.Sleep(200 * time.Millisecond)
			*out = rt.Since(start)
		}
	}
	dfs := strategy.NewDFS(0)
	cfg := engine.Config{MaxStarve: 100 * time.Millisecond, LateWake: true, Trace: true}
	for run := 1; dfs.Begin(run); run++ {
		var d time.Duration
		res := engine.Run(cfg, dfs, body(&d))
		dfs.End(res)
		var keys []string
		late := false
		for _, c := range res.Choices {
			keys = append(keys, c.Key())
			late = late || c.Key() == "@late"
		}
		if !late {
			continue
		}
		var d2 time.Duration
		rep := strategy.NewReplay(keys)
		rep.Begin(1)
		res2 := engine.Run(cfg, rep, body(&d2))
		rep.End(res2)
		if d2 != d || d <= 250*time.Millisecond {
			t.Errorf("run %d (%v) took %v, its replay %v; want the same, late", run, keys, d, d2)
		}
		return
	}
	t.Fatal("no run took a late wake")
}

// lateFirst takes a late wake whenever one is offered (the last choice),
// and the first choice otherwise; late counts the late wakes it took.
type lateFirst struct{ late int }

func (*lateFirst) Begin(int) bool { return true }
func (s *lateFirst) Choose(p *engine.Point) int {
	if n := len(p.Choices); n > 0 && p.Choices[n-1].Timer.Late() {
		s.late++
		return n - 1
	}
	return 0
}
func (*lateFirst) End(*engine.Result) {}

// TestLateWakesAreNotTimeBound: a computation that reads the clock at each
// of its steps takes a late wake at each, a schedule as legitimate as
// any, but the time they add is no timer's deadline: the time bound
// (Config.TimeLimit: natively the schedule takes at least as long) must
// not count it. bigcache's TestCacheDelRandomly (800,000 cache operations
// in three goroutines, each reading the clock) reached the 10-minute
// bound on 6,074 late wakes of 100ms, a false "time bound exceeded".
func TestLateWakesAreNotTimeBound(t *testing.T) {
	const n = 300 // 300 late wakes of 100ms: 30s of virtual time
	body := func() {
		ping := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for i := 0; i < n; i++ {
				rt.Now()
				rt.Recv(ping)
			}
			rt.Send(done, true)
		})
		for i := 0; i < n; i++ {
			rt.Now()
			rt.Send(ping, i)
		}
		rt.Recv(done)
	}
	cfg := engine.Config{MaxStarve: 100 * time.Millisecond, LateWake: true, TimeLimit: time.Second, NoLeaks: true}
	s := &lateFirst{}
	res := engine.Run(cfg, s, body)
	late := s.late
	if res.Bug != nil {
		t.Fatalf("%d late wakes under a time bound of 1s: %v", late, res.Bug)
	}
	if late < n/2 {
		t.Errorf("%d late wakes in %d steps, want at least %d: the test no longer tests the bound", late, res.Steps, n/2)
	}
}

// benbjohnson/clock's TestClock_Tick: two ticks of a 20ms ticker, then the
// time since the start must be under 50ms. Natively the goroutine woken by
// a tick runs late on a loaded machine (74ms). A late wake was never
// offered: the ticker's next tick is always due within -max-starve, and
// its early firing, which the late wake leaves to, is never offered either
// while the tick would be dropped (its channel full).
func TestLateWakeBesideFullTicker(t *testing.T) {
	body := func() string {
		start := rt.Now()
		c := rt.Tick(20 * time.Millisecond)
		rt.Recv(c)
		rt.Recv(c)
		if d := rt.Since(start); d > 50*time.Millisecond {
			return "late"
		}
		return "on time"
	}
	got, bugs, runs := exhaustLate(t, true, body)
	if !got["late"] || !got["on time"] || len(bugs) > 0 {
		t.Errorf("with late wakes: outcomes %s, bugs %v in %d runs; want late and on time", keys(got), bugs, runs)
	}
	got, bugs, _ = exhaustLate(t, false, body)
	if got["late"] || !got["on time"] || len(bugs) > 0 {
		t.Errorf("without late wakes: outcomes %s, bugs %v; want on time only", keys(got), bugs)
	}
}

// Workiva go-datastructures' TestRingPoll: a lone goroutine polls with
// runtime.Gosched until time.Since says its 5ms are up, and the test
// asserts the poll took under 15ms. Natively the goroutine, yielding on a
// loaded machine, comes back late (26ms). A late wake needed a goroutine
// that did not take the last step: the lone poller always took it.
func TestLateWakeAtGosched(t *testing.T) {
	body := func() string {
		start := rt.Now()
		for rt.Since(start) < 5*time.Millisecond {
			rt.Gosched()
		}
		if d := rt.Since(start); d > 15*time.Millisecond {
			return "late"
		}
		return "on time"
	}
	got, bugs, runs := exhaustLate(t, true, body)
	t.Logf("%d runs with late wakes", runs)
	if !got["late"] || !got["on time"] || len(bugs) > 0 {
		t.Errorf("with late wakes: outcomes %s, bugs %v in %d runs; want late and on time", keys(got), bugs, runs)
	}
	got, bugs, _ = exhaustLate(t, false, body)
	if got["late"] || !got["on time"] || len(bugs) > 0 {
		t.Errorf("without late wakes: outcomes %s, bugs %v; want on time only", keys(got), bugs)
	}
}
