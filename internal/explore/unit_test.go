package explore_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestUnitChild is the test a unit worker explores (run by TestUnits in a
// child process, with the unit in its HEDDLE_CONFIG).
func TestUnitChild(t *testing.T) {
	if os.Getenv("HEDDLE_UNIT_CHILD") == "" {
		t.Skip("run by TestUnits")
	}
	rt.Explore(t, func(t *testing.T) {
		var x int32
		done := rt.MakeChan[chan bool](0)
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				atomic.AddInt32(rt.AtomicW(&x), 1)
				rt.Send(done, true)
			})
		}
		for i := 0; i < 2; i++ {
			rt.Recv(done)
		}
	})
}

// summary explores unit u in a child process and returns its summary.
func summary(t *testing.T, u strategy.Unit, runs int, slice ...time.Duration) event.Event {
	t.Helper()
	return summaryWith(t, u, func(cfg *explore.Config) {
		cfg.Runs = runs
		if len(slice) > 0 {
			cfg.Time = slice[0]
		}
	})
}

// summaryWith is summary with the configuration set by set.
func summaryWith(t *testing.T, u strategy.Unit, set func(*explore.Config)) event.Event {
	t.Helper()
	evs := filepath.Join(t.TempDir(), "events.jsonl")
	cfg := explore.DefaultConfig()
	cfg.Strategy, cfg.Unit, cfg.Events, cfg.OutDir = u.Strategy, &u, evs, t.TempDir()
	set(&cfg)
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnitChild$")
	cmd.Env = append(os.Environ(), "HEDDLE_UNIT_CHILD=1", explore.EnvConfig+"="+string(b))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unit %s: %v\n%s", u, err, out)
	}
	f, err := os.Open(evs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Action == event.Summary {
			return e
		}
	}
	t.Fatalf("unit %s: no summary", u)
	return event.Event{}
}

// TestUnits: a test binary explores exactly the unit in its configuration
// and says what is left: a run range runs its runs; a DFS or source-DPOR
// subtree explored a few runs (or a millisecond) at a time, each time
// from the rest the last call
// reported, takes the runs of the whole exploration in one call and ends
// with the same proof.
func TestUnits(t *testing.T) {
	s := summary(t, strategy.Unit{Strategy: "random", From: 65, To: 70}, 0)
	if s.Runs != 5 || !s.UnitFinished || s.UnitRest != nil || s.Proven != "" {
		t.Errorf("random runs 65..69: %d runs, finished %v, rest %s, proven %q", s.Runs, s.UnitFinished, s.UnitRest, s.Proven)
	}
	s = summary(t, strategy.Unit{Strategy: "pct", From: 1, To: 100}, 10)
	var rest strategy.Unit
	if s.UnitFinished || json.Unmarshal(s.UnitRest, &rest) != nil || rest.From != 11 || rest.To != 100 {
		t.Errorf("pct runs 1..99 with a budget of 10 runs: finished %v, rest %s", s.UnitFinished, s.UnitRest)
	}
	for _, c := range []struct {
		name  string
		runs  int
		slice time.Duration
	}{{"dfs", 3, 0}, {"sdpor", 3, 0}, {"dfs", 0, time.Millisecond}, {"sdpor", 0, time.Millisecond}} {
		name := c.name
		whole := summary(t, strategy.RootUnit(name, 0), 0)
		if !whole.UnitFinished || !strings.HasPrefix(whole.UnitProven, "all schedules explored") || !strings.Contains(whole.UnitProven, ", no bug") {
			t.Fatalf("%s: whole tree: finished %v, proven %q", name, whole.UnitFinished, whole.UnitProven)
		}
		u, runs, calls := strategy.RootUnit(name, 0), 0, 0
		for {
			calls++
			s := summary(t, u, c.runs, c.slice)
			runs += s.Runs
			if s.UnitSpawned != nil {
				t.Fatalf("%s: a resumed unit spawned work: %s", name, s.UnitSpawned)
			}
			if s.UnitFinished {
				if s.UnitProven != whole.UnitProven {
					t.Errorf("%s: proven %q, in one call %q", name, s.UnitProven, whole.UnitProven)
				}
				break
			}
			var next strategy.Unit // a new one: omitted fields must be zero
			if err := json.Unmarshal(s.UnitRest, &next); err != nil {
				t.Fatalf("%s: rest %s: %v", name, s.UnitRest, err)
			}
			u = next
			if calls > 10000 {
				t.Fatalf("%s: not finished after %d calls", name, calls)
			}
		}
		if runs != whole.Runs || c.runs > 0 && calls < 2 {
			t.Errorf("%s: %d runs in %d calls (slices of %d runs, %v), %d in one call", name, runs, calls, c.runs, c.slice, whole.Runs)
		}
	}
}

// TestUnitSliceMakesARun: a unit's call makes at least one run, however
// short its time slice: a run longer than the slice (GoKer's Hugo3251
// under optimal DPOR, over 10 s under load) was cut, and the unit handed
// back as it came, to be cut again in the next call, without end. Each
// call here, with a slice of a nanosecond, makes one run and hands back
// the rest, which takes the runs of one call and its proof.
func TestUnitSliceMakesARun(t *testing.T) {
	for _, name := range []string{"dfs", "odpor"} {
		whole := summary(t, strategy.RootUnit(name, 0), 0)
		u, runs, calls := strategy.RootUnit(name, 0), 0, 0
		for {
			calls++
			s := summary(t, u, 0, time.Nanosecond)
			if s.Runs != 1 {
				t.Fatalf("%s: call %d with a slice of 1ns made %d runs, want 1", name, calls, s.Runs)
			}
			runs += s.Runs
			if s.UnitFinished {
				if s.UnitProven != whole.UnitProven {
					t.Errorf("%s: proven %q, in one call %q", name, s.UnitProven, whole.UnitProven)
				}
				break
			}
			if name == "odpor" {
				break // its rest comes as spawned units (odsplit.go)
			}
			var next strategy.Unit
			if err := json.Unmarshal(s.UnitRest, &next); err != nil {
				t.Fatalf("%s: rest %s: %v", name, s.UnitRest, err)
			}
			u = next
			if calls > 1000 {
				t.Fatalf("%s: not finished after %d calls", name, calls)
			}
		}
		if name == "dfs" && runs != whole.Runs {
			t.Errorf("%s: %d runs in %d calls, %d in one call", name, runs, calls, whole.Runs)
		}
	}
}

// TestUnitYield: a unit whose Yield file exists stops after one run and
// reports its rest (an idle worker of heddle test -parallel wants work);
// explored so one run at a time, the tree takes the runs of one call and
// ends with the same proof.
func TestUnitYield(t *testing.T) {
	yield := filepath.Join(t.TempDir(), "yield")
	if err := os.WriteFile(yield, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dfs", "sdpor"} {
		whole := summary(t, strategy.RootUnit(name, 0), 0)
		u, runs, calls := strategy.RootUnit(name, 0), 0, 0
		for {
			calls++
			s := summaryWith(t, u, func(cfg *explore.Config) { cfg.Yield = yield })
			runs += s.Runs
			if s.Runs != 1 {
				t.Fatalf("%s: call %d made %d runs, want 1 (asked to yield)", name, calls, s.Runs)
			}
			if s.UnitFinished {
				if s.UnitProven != whole.UnitProven {
					t.Errorf("%s: proven %q, in one call %q", name, s.UnitProven, whole.UnitProven)
				}
				break
			}
			var next strategy.Unit
			if err := json.Unmarshal(s.UnitRest, &next); err != nil {
				t.Fatalf("%s: rest %s: %v", name, s.UnitRest, err)
			}
			u = next
			if calls > 1000 {
				t.Fatalf("%s: not finished after %d calls", name, calls)
			}
		}
		if runs != whole.Runs || calls != whole.Runs {
			t.Errorf("%s: %d runs in %d calls, %d in one call", name, runs, calls, whole.Runs)
		}
	}
}

// readSummary returns the summary event of the events file evs.
func readSummary(t *testing.T, evs string) event.Event {
	t.Helper()
	b, err := os.ReadFile(evs)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if e.Action == event.Summary {
			return e
		}
	}
	t.Fatalf("%s: no summary", evs)
	return event.Event{}
}

// TestServedUnits: a served worker process (Config.Serve) explores unit
// after unit of the same test, each read from its file descriptor 3
// once it said the one before was done on descriptor 4, each with its
// own events file; explored 3 runs at a time so, the tree takes the runs
// of one call in one process, with the same proof, and the process ends
// when its units end.
func TestServedUnits(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no inherited file descriptors")
	}
	whole := summary(t, strategy.RootUnit("dfs", 0), 0)
	dir := t.TempDir()
	evs := func(i int) string { return filepath.Join(dir, fmt.Sprintf("events%d.jsonl", i)) }
	u := strategy.RootUnit("dfs", 0)
	cfg := explore.DefaultConfig()
	cfg.Strategy, cfg.Unit, cfg.Events, cfg.OutDir, cfg.Runs, cfg.Serve = u.Strategy, &u, evs(0), t.TempDir(), 3, true
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	unitsR, unitsW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	doneR, doneW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnitChild$")
	cmd.Env = append(os.Environ(), "HEDDLE_UNIT_CHILD=1", explore.EnvConfig+"="+string(b))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.ExtraFiles = []*os.File{unitsR, doneW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	unitsR.Close()
	doneW.Close()
	done := bufio.NewReader(doneR)
	runs, units := 0, 0
	for {
		units++
		if l, err := done.ReadString('\n'); err != nil || strings.TrimSpace(l) != explore.UnitDone {
			unitsW.Close()
			cmd.Wait()
			t.Fatalf("unit %d: %q, %v; output:\n%s", units, l, err, out.String())
		}
		s := readSummary(t, evs(units-1))
		runs += s.Runs
		if s.UnitFinished {
			if s.UnitProven != whole.UnitProven {
				t.Errorf("proven %q, in one call %q", s.UnitProven, whole.UnitProven)
			}
			break
		}
		var next strategy.Unit
		if err := json.Unmarshal(s.UnitRest, &next); err != nil {
			t.Fatalf("rest %s: %v", s.UnitRest, err)
		}
		b, err := json.Marshal(explore.NextUnit{Unit: &next, Runs: 3, Events: evs(units)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := unitsW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	unitsW.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the served process: %v\n%s", err, out.String())
	}
	if runs != whole.Runs || units < 2 {
		t.Errorf("%d runs in %d units of one process, %d in one call", runs, units, whole.Runs)
	}
}

// TestUnitBugChild is a test with a bug in some orders (run by
// TestUnitWritingFirst in a child process).
func TestUnitBugChild(t *testing.T) {
	if os.Getenv("HEDDLE_UNIT_CHILD") == "" {
		t.Skip("run by TestUnitWritingFirst")
	}
	rt.Explore(t, func(t *testing.T) {
		c := rt.MakeChan[chan int](0)
		for i := 0; i < 2; i++ {
			rt.Go(func() { rt.Send(c, i) })
		}
		if rt.Recv(c) == 1 {
			t.Error("1 first")
		}
		rt.Recv(c)
	})
}

// TestUnitWritingFirst: a unit's worker says which schedule file it
// writes (event.Writing, emitted before the file is made) ahead of the
// bug's report, so that heddle can remove it if the worker is killed
// in between.
func TestUnitWritingFirst(t *testing.T) {
	evs := filepath.Join(t.TempDir(), "events.jsonl")
	u := strategy.RootUnit("dfs", 0)
	cfg := explore.DefaultConfig()
	cfg.Strategy, cfg.Unit, cfg.Events, cfg.OutDir = u.Strategy, &u, evs, t.TempDir()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnitBugChild$")
	cmd.Env = append(os.Environ(), "HEDDLE_UNIT_CHILD=1", explore.EnvConfig+"="+string(b))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("no bug found:\n%s", out)
	}
	data, err := os.ReadFile(evs)
	if err != nil {
		t.Fatal(err)
	}
	writing := ""
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		switch e.Action {
		case event.Writing:
			writing = e.Schedule
		case event.Bug:
			if e.Schedule == "" || e.Schedule != writing {
				t.Fatalf("bug with schedule %q after writing %q", e.Schedule, writing)
			}
			if _, err := os.Stat(e.Schedule); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no bug event:\n%s", data)
}

// TestUnitBugSpawnsNothing: an optimal-DPOR unit stopped at a bug without
// -keep-going hands back no rest (the bug stops the whole exploration,
// which would drop it; on a deep test making it took gigabytes), and with
// -keep-going, stopped after the same runs, it does.
func TestUnitBugSpawnsNothing(t *testing.T) {
	u := strategy.RootUnit("odpor", 0)
	child := func(set func(*explore.Config)) event.Event {
		evs := filepath.Join(t.TempDir(), "events.jsonl")
		cfg := explore.DefaultConfig()
		cfg.Strategy, cfg.Unit, cfg.Events, cfg.OutDir = u.Strategy, &u, evs, t.TempDir()
		set(&cfg)
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnitBugChild$")
		cmd.Env = append(os.Environ(), "HEDDLE_UNIT_CHILD=1", explore.EnvConfig+"="+string(b))
		cmd.CombinedOutput() // fails: the bug
		return readSummary(t, evs)
	}
	s := child(func(*explore.Config) {})
	if s.Bugs == 0 || s.UnitSpawned != nil {
		t.Fatalf("stopped at a bug: %d bugs, spawned %s", s.Bugs, s.UnitSpawned)
	}
	k := child(func(cfg *explore.Config) { cfg.KeepGoing, cfg.Runs = true, s.Runs })
	if k.Bugs == 0 || k.UnitSpawned == nil {
		t.Fatalf("with -keep-going, %d runs: %d bugs, spawned %s", s.Runs, k.Bugs, k.UnitSpawned)
	}
}
