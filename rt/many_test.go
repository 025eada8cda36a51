package rt_test

import (
	"hash/fnv"
	"strconv"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// copiesWithTimers is manyEnabled with selects, sleeps and a buffered
// channel: the operations whose choices the engine's enabled set must
// keep up to date across steps.
func copiesWithTimers(copies int) func() {
	return func() {
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 3*copies)
		for i := 0; i < copies; i++ {
			var mu sync.Mutex
			ch := rt.MakeChan[chan int](0)
			stop := rt.MakeChan[chan int](1)
			for j := 0; j < 2; j++ {
				send := j == 0
				rt.Go(func() {
					defer rt.WaitGroupDone(&wg)
					for k := 0; k < 3; k++ {
						rt.MutexLock(&mu)
						rt.MutexUnlock(&mu)
					}
					if send {
						rt.Send(ch, 1)
					} else {
						rt.Select(false, rt.RecvCase(ch), rt.RecvCase(stop))
					}
				})
			}
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for k := 0; k < 3; k++ {
					rt.Gosched()
					rt.Sleep(time.Microsecond)
				}
				rt.Select(true, rt.SendCase(stop, 1))
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// choiceHash hashes the choices offered at every scheduling point.
type choiceHash struct {
	s engine.Strategy
	h uint64
	n int
}

func (c *choiceHash) Begin(run int) bool   { return c.s.Begin(run) }
func (c *choiceHash) End(r *engine.Result) { c.s.End(r) }
func (c *choiceHash) Choose(p *engine.Point) int {
	f := fnv.New64a()
	f.Write([]byte(strconv.FormatUint(c.h, 16)))
	for _, ch := range p.Choices {
		f.Write([]byte(ch.Key()))
		f.Write([]byte{' '})
	}
	i := c.s.Choose(p)
	f.Write([]byte(strconv.Itoa(i) + "/" + strconv.Itoa(p.Prev)))
	c.h = f.Sum64()
	c.n++
	return i
}

// TestManyGoroutinesSameChoices runs programs with many goroutines with
// the engine's enabled set kept from step to step (the default for runs
// of 32 goroutines or more) and rebuilt at every step: every scheduling
// point must offer the same choices.
func TestManyGoroutinesSameChoices(t *testing.T) {
	progs := map[string]func(){"manyEnabled": manyEnabled(40), "copiesWithTimers": copiesWithTimers(40)}
	for name, prog := range progs {
		for seed := int64(1); seed <= 4; seed++ {
			var got [2]string
			for i, from := range []int{0, -1} {
				var s engine.Strategy = strategy.NewRandom(seed)
				if seed%2 == 0 {
					s = strategy.NewPCT(seed, 3)
				}
				rec := &choiceHash{s: s}
				rec.Begin(1)
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, DormantFrom: from}, rec, prog)
				got[i] = strconv.FormatUint(rec.h, 16) + " " + strconv.Itoa(rec.n) + " points, " + strconv.Itoa(r.Steps) + " steps"
				if r.Bug != nil {
					got[i] += " " + r.Bug.Kind
				}
			}
			t.Logf("%s seed %d: %s", name, seed, got[0])
			if got[0] != got[1] {
				t.Errorf("%s, seed %d: kept: %s; rebuilt: %s", name, seed, got[0], got[1])
			}
		}
	}
}

// keyLogger records the keys of the choices offered at every point.
type keyLogger struct {
	s    engine.Strategy
	keys map[int]string // by step number
}

func (c *keyLogger) Begin(run int) bool   { return c.s.Begin(run) }
func (c *keyLogger) End(r *engine.Result) { c.s.End(r) }
func (c *keyLogger) Choose(p *engine.Point) int {
	k := ""
	for _, ch := range p.Choices {
		k += ch.Key() + " "
	}
	c.keys[p.Step+1] = k
	return c.s.Choose(p)
}

// TestRecordedEnabledSets checks the enabled sets a recorded run keeps
// for its report (shared between steps in large runs) against the
// choices the strategy was offered.
func TestRecordedEnabledSets(t *testing.T) {
	for _, from := range []int{0, -1} {
		rec := &keyLogger{s: strategy.NewRandom(3), keys: map[int]string{}}
		rec.Begin(1)
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, DormantFrom: from, Record: true}, rec, copiesWithTimers(40))
		seen := map[int]bool{}
		checked := 0
		for _, s := range r.Trace {
			if seen[s.N] || s.Kind == engine.OpExit {
				continue
			}
			seen[s.N] = true
			want, ok := rec.keys[s.N]
			if !ok {
				if s.Enabled.Len() > 1 {
					t.Fatalf("DormantFrom %d, step %d: %d choices recorded, none offered", from, s.N, s.Enabled.Len())
				}
				continue
			}
			got := ""
			for _, k := range s.Enabled.Strings() {
				got += k + " "
			}
			if got != want || s.Enabled.Len() != len(s.Enabled.Strings()) {
				t.Fatalf("DormantFrom %d, step %d: recorded %q, offered %q", from, s.N, got, want)
			}
			checked++
		}
		if checked < 100 {
			t.Fatalf("DormantFrom %d: only %d steps checked", from, checked)
		}
	}
}

// TestSparseVC checks the sparse vector clocks of recorded runs against
// dense ones, on random ticks and joins.
func TestSparseVC(t *testing.T) {
	const n, clocks = 12, 5
	var sparse [clocks]engine.VC
	var dense [clocks][n]uint32
	seed := uint64(1)
	rnd := func(k int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % k
	}
	for step := 0; step < 5000; step++ {
		a, b := rnd(clocks), rnd(clocks)
		old := sparse[b]
		oldDense := dense[b]
		if rnd(2) == 0 {
			i := rnd(n)
			sparse[a].Tick(i)
			dense[a][i]++
		} else {
			sparse[a].Join(sparse[b])
			for i := range dense[a] {
				dense[a][i] = max(dense[a][i], dense[b][i])
			}
		}
		if a != b {
			for i := 0; i < n; i++ {
				if old.Get(i) != oldDense[i] {
					t.Fatalf("step %d: a clock was changed in place", step)
				}
			}
		}
		for i := 0; i < n; i++ {
			if sparse[a].Get(i) != dense[a][i] {
				t.Fatalf("step %d: component %d is %d, want %d", step, i, sparse[a].Get(i), dense[a][i])
			}
		}
		leq := true
		for i := 0; i < n; i++ {
			if dense[a][i] > dense[b][i] {
				leq = false
			}
		}
		if sparse[a].Leq(sparse[b]) != leq {
			t.Fatalf("step %d: Leq is %v, want %v", step, !leq, leq)
		}
	}
}

// blockedWhileTimersStop is a program whose goroutines (n of them) all
// stay blocked while the test goroutine stops iters timers, a step that
// recomputes every goroutine's choices.
func blockedWhileTimersStop(n, iters int) func() {
	return func() {
		never := rt.MakeChan[chan int](0)
		for range n {
			rt.Go(func() { rt.Recv(never) })
		}
		for range iters {
			rt.TimerStop(rt.NewTimer(time.Hour))
		}
	}
}

// TestRecordedEnabledSetsShareUnchanged: a step that recomputes every
// goroutine copies the recorded chunks of the goroutines whose choices
// changed only. It once copied them all, and a recorded run of GoKer's
// Grpc3017 (10,000 goroutines, a Timer.Stop per iteration) grew by 67 KB
// a step, past 2 GB.
func TestRecordedEnabledSetsShareUnchanged(t *testing.T) {
	rec := &keyLogger{s: strategy.NewRandom(1), keys: map[int]string{}}
	rec.Begin(1)
	// 96 goroutines are 3 chunks of about 800 bytes: 6000 steps that
	// copied them all would allocate 15 MB. The bound drops the sets of
	// the steps before the last 4096 only.
	r := engine.Run(engine.Config{Record: true, EnabledBound: 4 << 20}, rec, blockedWhileTimersStop(96, 6000))
	if r.Steps < 6000 {
		t.Fatalf("%d steps", r.Steps)
	}
	if r.EnabledFrom != 0 {
		t.Errorf("the enabled sets of the first %d of %d steps were dropped: unchanged goroutines' choices are copied", r.EnabledFrom, r.Steps)
	}
}

// TestRecordedEnabledSetsBounded: past Config.EnabledBound, a recorded
// run keeps the enabled sets of its last steps only, and those are still
// the choices offered.
func TestRecordedEnabledSetsBounded(t *testing.T) {
	rec := &keyLogger{s: strategy.NewRandom(3), keys: map[int]string{}}
	rec.Begin(1)
	r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Record: true, EnabledBound: 16 << 10}, rec, copiesWithTimers(150))
	if r.EnabledFrom == 0 || r.EnabledFrom >= len(r.Trace) {
		t.Fatalf("EnabledFrom %d of %d steps: want some dropped, some kept", r.EnabledFrom, len(r.Trace))
	}
	checked := 0
	seen := map[int]bool{}
	for i, s := range r.Trace {
		if i < r.EnabledFrom {
			if s.Enabled.Len() != 0 {
				t.Fatalf("step %d, before EnabledFrom %d, kept %d choices", s.N, r.EnabledFrom, s.Enabled.Len())
			}
			seen[s.N] = true
			continue
		}
		if seen[s.N] || s.Kind == engine.OpExit {
			continue
		}
		seen[s.N] = true
		want, ok := rec.keys[s.N]
		if !ok {
			continue
		}
		got := ""
		for _, k := range s.Enabled.Strings() {
			got += k + " "
		}
		if got != want {
			t.Fatalf("step %d: recorded %q, offered %q", s.N, got, want)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d steps checked", checked)
	}
}

// hasKeyChecker checks Choice.HasKey against Choice.Key at every point.
type hasKeyChecker struct {
	engine.Strategy
	t      *testing.T
	points int
}

func (c *hasKeyChecker) Choose(p *engine.Point) int {
	c.points++
	for i, a := range p.Choices {
		for j, b := range p.Choices {
			if got := a.HasKey(b.Key()); got != (i == j) {
				c.t.Fatalf("step %d: %q.HasKey(%q) = %v", p.Step, a.Key(), b.Key(), got)
			}
		}
		k := a.Key()
		for _, bad := range []string{k + "0", k + "#", k + "#01", "@" + k, k[:len(k)-1], ""} {
			if a.HasKey(bad) {
				c.t.Fatalf("step %d: %q.HasKey(%q)", p.Step, k, bad)
			}
		}
	}
	return c.Strategy.Choose(p)
}

// TestChoiceHasKey: HasKey, which replays use to follow a schedule
// without making every choice's key, agrees with Key on goroutines,
// select cases and timers.
func TestChoiceHasKey(t *testing.T) {
	c := &hasKeyChecker{Strategy: strategy.NewRandom(2), t: t}
	c.Begin(1)
	engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, c, copiesWithTimers(3))
	if c.points < 20 {
		t.Fatalf("%d points", c.points)
	}
}

// TestRecordedClocksBounded: past Config.ClockBound, the steps of a
// recorded run get no vector clock, and the run goes on to its end (pond's
// TestPoolWithContextCanceled: 10,000 goroutines ordered through one
// channel made the clocks of its replay grow past the memory bound).
func TestRecordedClocksBounded(t *testing.T) {
	run := func(bound uint64) *engine.Result {
		s := strategy.NewRandom(3)
		s.Begin(1)
		return engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Record: true, ClockBound: bound}, s, copiesWithTimers(150))
	}
	full := run(0)
	if full.ClocksTo != 0 {
		t.Fatalf("ClocksTo %d with the default bound", full.ClocksTo)
	}
	r := run(16 << 10)
	if r.ClocksTo == 0 || r.ClocksTo >= len(r.Trace) {
		t.Fatalf("ClocksTo %d of %d steps: want some steps with clocks, some without", r.ClocksTo, len(r.Trace))
	}
	if r.Steps != full.Steps || len(r.Trace) != len(full.Trace) {
		t.Fatalf("bounded: %d steps, %d in the trace; unbounded: %d, %d", r.Steps, len(r.Trace), full.Steps, len(full.Trace))
	}
	for i, s := range r.Trace {
		if i >= r.ClocksTo && len(s.VC) != 0 {
			t.Fatalf("step %d, after ClocksTo %d, has a clock", s.N, r.ClocksTo)
		}
	}
}
