package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// Tests that cannot run twice in one process.
//
// Some tests fail on any run after their first in a process, whatever the
// schedule, as they do under go test -count=2: they register something in
// a package-level registry that refuses a second registration
// (groupcache's NewGroup, a metric, an HTTP handler), or leave package
// state behind. The design's answer (a fresh process is the fallback when
// a run diverges because of state that outlives a run) is freshRuns: the
// exploration goes on with one new process of the test binary per run,
// each of which runs the test once, as its first run. A randomized
// strategy's run depends only on the seed and the run number, so that the
// process making run r explores what run r of the in-process exploration
// would have, and its schedule (recorded with first=r) replays in a new
// process as heddle replay runs it.

// freshStrategy is the strategy of the runs in new processes: the
// exploration's own if it is randomized, PCT for the portfolio (some of
// whose members learn from the runs before), and none ("") for the
// systematic strategies, whose runs depend on the runs before them.
func (x *explorer) freshStrategy() string {
	if u := x.cfg.Unit; u != nil {
		if u.Frag != nil || u.OD != nil {
			return ""
		}
		return u.Strategy
	}
	switch name := x.cfg.Strategy; {
	case strategy.SplitKind(name) == "runs":
		return name
	case name == "portfolio":
		return "pct"
	}
	return ""
}

// canRunFresh reports whether the exploration can go on in new processes:
// it is not a replay, its strategy is randomized (freshStrategy), and the
// test binary can be run again.
func (x *explorer) canRunFresh() bool {
	if x.cfg.Replay != "" || x.cfg.OneRun || x.freshStrategy() == "" {
		return false
	}
	_, err := os.Executable()
	return err == nil
}

// freshWhy is why an exploration goes on in new processes (freshRuns).
type freshWhy int

const (
	freshDiffers freshWhy = iota // runs differ in one process, not in new ones (freshDeterministic)
	freshRerun                   // the test fails on any run after its first (failsOnRerun)
	freshTimers                  // a run failed only after timers an earlier run left armed (leftTimers)
)

// freshRuns goes on exploring, from run from, a test that cannot run
// twice in one process (why): freshRerun, it fails on any run after its
// first (failsOnRerun found that run from's bug happens on the first run's
// schedule too); freshDiffers, it runs differently in one process from
// run to run but the same in new processes (freshDeterministic);
// freshTimers, run from failed only after the timers a run before it left
// armed (leftTimers). Each run is
// made by a new process of this test binary, within the exploration's
// budget (its run numbers first..end-1 and Config.Runs, its deadline).
// bug is what run from did in this process, for the note.
func (x *explorer) freshRuns(from, first, end int, bug *engine.Bug, why freshWhy) {
	x.t.Helper()
	name := x.freshStrategy()
	other := ""
	if name != x.cfg.Strategy && x.cfg.Unit == nil {
		other = fmt.Sprintf(", with strategy %s (%s's runs depend on the runs before them)", name, x.cfg.Strategy)
	}
	switch why {
	case freshTimers:
		x.t.Logf("heddle: %s failed at run %d (%s: %s) only after the runs before it in one process, not when its schedule\n"+
			"  runs first in a new process: the run before it left time.AfterFunc timers armed, which heddle does not carry into the\n"+
			"  next run while package state may still count on them (natively they fire during the next execution, go test -count=2).\n"+
			"  heddle explores it on with one new process per run%s, as go test runs it once per process.",
			x.name(), from, bug.Kind, oneLine(bug.Message), other)
	case freshRerun:
		x.t.Logf("heddle: %s fails on any run after its first in one process, even on the schedule the first run passed with (run %d: %s: %s),\n"+
			"  as under go test -count=2: state a run leaves behind, or a package-level registry that refuses a second registration.\n"+
			"  heddle explores it on with one new process per run%s, which is slower; make each run leave package state as it\n"+
			"  found it and heddle explores it in one process.",
			x.name(), from, bug.Kind, oneLine(bug.Message), other)
	default:
		x.t.Logf("heddle: %s runs differently from run to run in one process (%s),\n"+
			"  but the same in new processes: it depends on state its runs leave behind in package variables.\n"+
			"  heddle explores it on with one new process per run%s, which is slower; make each run leave package state as it\n"+
			"  found it and heddle explores it in one process.",
			x.name(), oneLine(ndWhat(bug.Message)), other)
	}
	x.runs = from - 1
	lastProgress := time.Now()
	for r := from; ; r++ {
		cfg := x.cfg
		if cfg.Runs > 0 && ((cfg.FirstRun > 0 && r > cfg.Runs) || (cfg.FirstRun <= 0 && r-first >= cfg.Runs)) {
			return
		}
		if end > 0 && r >= end {
			return
		}
		if !x.deadline.IsZero() && !time.Now().Before(x.deadline) {
			return
		}
		if interrupted.Load() {
			x.interrupted = true
			return
		}
		evs, _, err := x.freshRun(name, r)
		if err != nil {
			x.t.Logf("heddle: run %d of %s in a new process failed, and the exploration ends: %v", r, x.name(), err)
			return
		}
		x.runs = r
		x.freshMade++
		if now := time.Now(); now.Sub(lastProgress) >= progressEvery {
			lastProgress = now
			x.emit(event.Event{Action: event.Progress, Runs: r - first, Bugs: x.bugs, Strategy: name})
		}
		found := false
		for _, e := range evs {
			if x.freshVerdict(r, e) {
				found = true
			}
		}
		if found && !x.cfg.KeepGoing {
			return
		}
	}
}

// freshVerdict reports on the test what the process that made run r
// reported (a bug, a timing verdict, a test heddle cannot explore), once
// per distinct finding. It returns whether it was a new bug.
func (x *explorer) freshVerdict(r int, e event.Event) bool {
	x.t.Helper()
	switch e.Action {
	case event.Bug, event.Timing:
	case event.Nondeterministic:
		if !x.seen["nd "+e.Kind] {
			x.seen["nd "+e.Kind] = true
			x.emit(event.Event{Action: e.Action, Kind: e.Kind, Message: e.Message, Run: r, Steps: e.Steps, Report: e.Report})
			x.t.Log("\n" + strings.TrimRight(e.Report, "\n"))
		}
		return false
	default:
		return false
	}
	key := e.Key
	if e.Action == event.Timing {
		key = KindTiming + " " + e.Key
	}
	if x.seen[key] {
		if e.Schedule != "" && !x.seen["file "+e.Schedule] {
			os.Remove(e.Schedule) // one schedule per distinct bug
		}
		return false
	}
	x.seen[key] = true
	x.seen["file "+e.Schedule] = true
	out := event.Event{Action: e.Action, Kind: e.Kind, Key: e.Key, Message: e.Message, Run: r, Steps: e.Steps, Schedule: e.Schedule, Report: e.Report, Replay: e.Replay}
	x.emit(out)
	if e.Action == event.Timing {
		x.t.Log("\n" + e.Report)
		return false
	}
	x.bugs++
	x.t.Error("\n" + e.Report)
	return true
}

// ndWhat is what a nondeterminism message says differed, without what
// it says the cause may be.
func ndWhat(msg string) string {
	msg = strings.TrimPrefix(msg, "the test is nondeterministic by itself: ")
	if i := strings.Index(msg, "; it depends on something heddle does not control"); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "; the test behaves differently from run to run"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// freshDeterministic reports whether a test that ran differently from run
// to run in this process runs the same in new processes: two of them make
// this exploration's first run, as it was made here at the start of the
// process, and the three runs' steps are the same (and neither new process
// finds the test nondeterministic). Then what differed here came from
// what the runs before left behind.
func (x *explorer) freshDeterministic(first int) bool {
	if x.firstTrace == "" {
		return false
	}
	name := x.cfg.Strategy
	if u := x.cfg.Unit; u != nil {
		name = u.Strategy
	}
	for i := 0; i < 2; i++ {
		evs, trace, err := x.freshRun(name, first)
		if err != nil || trace != x.firstTrace {
			return false
		}
		for _, e := range evs {
			if e.Action == event.Nondeterministic {
				return false
			}
		}
	}
	return true
}

// failsFresh reports whether a new process of this test binary fails as
// this one does on a rerun (bug, which failsOnRerun found on the schedule
// the first run passed with): it makes the exploration's first run, which
// passed as the first run of this process, in a new process. When that
// fails with the same kind of bug at the same place, what the runs left
// behind is outside the process, held by this one while it runs (a
// listener on a fixed port, a lock on a file): a new process per run
// would only meet it again, and its schedules, replayed where nothing
// holds it, would not fail (go-metrics' TestStatsite_Conn, whose runs
// leave localhost:7523 listening).
func (x *explorer) failsFresh(first int, bug *engine.Bug) bool {
	evs, _, err := x.freshRun(x.freshStrategy(), first)
	if err != nil {
		return false
	}
	key := bug.Kind + " " + x.where(bug)
	for _, e := range evs {
		if e.Action == event.Bug && e.Key == key {
			if e.Schedule != "" {
				os.Remove(e.Schedule) // not a bug of its schedule
			}
			x.freshFails = true
			return true
		}
	}
	return false
}

// traceHash hashes the goroutines and kinds of a run's steps, what diff
// compares: a line "<goroutine> <kind>" per step, as fmt prints them. The
// lines are made in a buffer and hashed a block at a time: a fmt.Fprintf
// per step allocated twice and cost three times as much
// (BenchmarkTraceHash), and the first run of every test is hashed.
func traceHash(steps []engine.Step) string {
	const block = 4096
	h := sha256.New()
	buf := make([]byte, 0, block)
	for i := range steps {
		s := &steps[i]
		buf = append(buf, gid(s.G)...)
		buf = append(buf, ' ')
		buf = append(buf, s.Kind.String()...)
		buf = append(buf, '\n')
		if len(buf) >= block-128 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// freshRun makes run r of strategy name in a new process of this test
// binary (Config.OneRun) and returns the events it wrote (its verdicts,
// with reports and schedules) and the hash of its steps.
func (x *explorer) freshRun(name string, r int) ([]event.Event, string, error) {
	cfg := x.cfg
	cfg.Strategy, cfg.FirstRun, cfg.Runs, cfg.OneRun = name, r, r, true
	cfg.Unit, cfg.Yield, cfg.PackageTime, cfg.Tests = nil, "", 0, 0
	cfg.Time = 0
	limit := 5 * time.Minute
	if !x.deadline.IsZero() {
		cfg.Time = max(time.Until(x.deadline), time.Millisecond)
		// A bug's report gets a little past the budget (reportDeadline).
		limit = cfg.Time + cfg.Time/graceShare + 30*time.Second
	}
	evs, out, runErr, _, err := x.runSelf(cfg, limit, time.Second)
	if err != nil {
		return nil, "", err
	}
	for _, e := range evs {
		if e.Action == event.Summary {
			return evs, e.Trace, nil
		}
	}
	return nil, "", fmt.Errorf("it ended without a summary (%v): %s", runErr, oneLine(lastLines(string(out), 3)))
}

// runSelf runs this test binary on the test, with configuration cfg and
// its events written to a temporary file, which it returns. Past limit,
// the process is asked to stop (SIGTERM: it ends its run and cleans up),
// and killed if it did not within wait (runChild). timedOut says the limit
// was reached.
func (x *explorer) runSelf(cfg Config, limit, wait time.Duration) (evs []event.Event, out []byte, runErr error, timedOut bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, false, err
	}
	ev, err := os.CreateTemp("", "heddle-self-*.jsonl")
	if err != nil {
		return nil, nil, nil, false, err
	}
	ev.Close()
	defer os.Remove(ev.Name())
	cfg.Events, cfg.Verbose, cfg.Output = ev.Name(), false, false
	// A process of its own for one run or one replay: never served (a
	// served one would wait on fd 3 for a next unit nobody sends, and this
	// process for it, until -timeout).
	cfg.Serve = false
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, nil, false, err
	}
	out, runErr, timedOut, err = runChild(exe, []string{"-test.run=" + x.runPatternOf(), "-test.v=true"}, append(os.Environ(), EnvConfig+"="+string(b)), limit, wait)
	if err != nil {
		return nil, nil, nil, false, err
	}
	data, err := os.ReadFile(ev.Name())
	if err != nil {
		return nil, nil, nil, false, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		var e event.Event
		if json.Unmarshal([]byte(l), &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs, out, runErr, timedOut, nil
}

// runChild runs the program name with args and env, its output (stdout and
// stderr) written to a temporary file, which it returns. Past limit, the
// process is asked to stop (SIGTERM), and past limit+wait it is killed.
//
// It leaves no goroutine behind: a test of this process that dumps every
// goroutine (goleak) runs after it. exec.CommandContext left its watchCtx
// goroutine runnable when Wait returned, and CombinedOutput's copying
// goroutine waits for a process the child started in turn; goleak's
// retries, which sleep in virtual time, saw them and reported a leak.
func runChild(name string, args, env []string, limit, wait time.Duration) (out []byte, runErr error, timedOut bool, err error) {
	f, err := os.CreateTemp("", "heddle-self-*.out")
	if err != nil {
		return nil, nil, false, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	if runErr = cmd.Start(); runErr != nil {
		return nil, runErr, false, nil
	}
	var late atomic.Bool
	term := time.AfterFunc(limit, func() {
		late.Store(true)
		cmd.Process.Signal(syscall.SIGTERM)
	})
	kill := time.AfterFunc(limit+wait, func() { cmd.Process.Kill() })
	runErr = cmd.Wait()
	term.Stop()
	kill.Stop()
	if out, err = os.ReadFile(f.Name()); err != nil {
		return nil, nil, false, err
	}
	return out, runErr, late.Load(), nil
}
