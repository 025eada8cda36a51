package explore

import (
	"fmt"
	"strings"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// KindRerun is the kind of the event that says a test fails on any run
// after its first in one process (failsOnRerun): heddle cannot explore it.
const KindRerun = "rerun"

// KindLong is the kind of the event that says a test's run is longer than
// the step bound while making progress (engine.Bug.Long): heddle cannot
// explore it within the bound.
const KindLong = "long"

// failsOnRerun reports whether bug, found by a run after the first this
// process made of the test, comes from running the test again in the same
// process rather than from the run's schedule: the first run's schedule,
// which passed then, fails the same way when replayed now. Tests that
// register something in a package-level registry (an HTTP handler on
// DefaultServeMux, a Prometheus collector, a flag) or a suite that
// refuses a second run (ginkgo's RunSpecs) fail so, on every run after
// their first, whatever the schedule; go test -count=2 fails them too.
func (x *explorer) failsOnRerun(run int, bug *engine.Bug) bool {
	if x.firstKeys == nil {
		return false
	}
	switch bug.Kind {
	case engine.KindNondeterminism, engine.KindBlocked, engine.KindRace, engine.KindStepLimit:
		return false
	}
	res, rs := x.rerunFirst()
	// The replay is one more execution in this process: a schedule
	// written later records it, so that its replay goes through it too.
	x.before = append(x.before, fmt.Sprintf("%d:rerun", run))
	if res.OverMemory != "" || res.OverTime {
		return false
	}
	b := classify(res, rs)
	if b == nil {
		return false
	}
	return b.Kind == bug.Kind && x.where(b) == x.where(bug)
}

// rerunFirst replays the first run's schedule (firstKeys), as far as the
// run follows it: a test that fails on every rerun may also run
// differently on a rerun (a goroutine per earlier run, a subprocess's
// timing), and a replay that stopped where it diverged would never reach
// the failure. Past that, it goes on with the first choice at each point.
func (x *explorer) rerunFirst() (*engine.Result, *runT) {
	rs := x.newRunT()
	res := x.exec(engine.Config{Seed: x.firstSeed, Trace: true}, &followReplay{Replay: strategy.NewReplay(x.firstKeys)}, rs)
	return res, rs
}

// followReplay replays a schedule, and once the run leaves it, makes the
// first choice at every point instead of ending the run as diverged.
type followReplay struct {
	*strategy.Replay
	left bool
}

func (f *followReplay) Choose(p *engine.Point) int {
	if !f.left {
		if i := f.Replay.Choose(p); i != engine.Diverged {
			return i
		}
		f.left = true
	}
	return 0
}

// notRerunnable says that the test cannot be explored past its first run:
// it fails on any run after it, whatever the schedule. The test passes,
// unless -strict-nondeterminism made this a bug.
func (x *explorer) notRerunnable(run int, res *engine.Result, bug *engine.Bug) {
	x.t.Helper()
	fresh := "  (t.Cleanup, a registry or ServeMux of the test's own), and heddle can explore it; a randomized strategy\n" +
		"  (-strategy pct, random or pos) explores it with one new process per run. This is not reported as a bug;\n"
	if x.freshFails {
		fresh = "  (t.Cleanup, a registry or ServeMux of the test's own), and heddle can explore it. A new process fails the same way\n" +
			"  on the first run's schedule while this one runs: what the runs leave behind is outside the process, held by this\n" +
			"  one (a listener on a fixed port, a lock on a file), so heddle does not explore it with one process per run either:\n" +
			"  that failure needs what an earlier run left, and would not replay in a process of its own. Release it at the end\n" +
			"  of each run (close the listener). This is not reported as a bug;\n"
	}
	text := fmt.Sprintf("heddle: cannot explore %s past its first run: a later run in the same process fails even on the schedule the first\n"+
		"  run passed with (go test -count=2 fails too): run %d: %s: %s\n"+
		"  The failure comes from what changed since the first run, not from the schedule: most often state the first run\n"+
		"  left behind, something registered in a package-level registry (an HTTP handler on DefaultServeMux, a metric,\n"+
		"  a flag) or a suite that refuses to run twice (ginkgo's RunSpecs); else the test's environment (files, time).\n"+
		"  heddle explores a test by running it many times in one process; make each run leave package state as it found it\n"+
		fresh+
		"  %d %s explored. (-strict-nondeterminism reports it as the bug it is under go test -count=2.)\n",
		x.name(), run, bug.Kind, oneLine(bug.Message), run-x.first, pluralRuns(run-x.first))
	x.emit(event.Event{Action: event.Nondeterministic, Kind: KindRerun, Message: bug.Kind + ": " + oneLine(bug.Message), Run: run, Steps: res.Steps, Report: text})
	x.t.Log("\n" + strings.TrimRight(text, "\n"))
}

func pluralRuns(n int) string {
	if n == 1 {
		return "run was"
	}
	return "runs were"
}

// tooLong says that the test cannot be explored within the step bound: a
// run passed it while making progress over its second half (no goroutine
// polled and no timer fired, or goroutines kept seeing what others wrote,
// or ending: engine.Bug.Long), which is what a long computation does (a
// million Sets into a cache, a lock-free map's stress test) and a
// livelock does not, and a fair run of the test had not ended after ten
// times the bound (steplimit.go; a shorter one raises the bound). The
// test passes, unless -strict-nondeterminism made this a bug.
func (x *explorer) tooLong(run int, res *engine.Result, bug *engine.Bug) {
	x.t.Helper()
	limit := x.cfg.StepLimit
	if limit <= 0 {
		limit = 1000000
	}
	fair := ""
	if x.fair != nil && !x.fair.ended {
		fair = fmt.Sprintf(" a fair run of it had not ended after %d steps,", x.fair.steps)
	}
	text := fmt.Sprintf("heddle: cannot explore %s: run %d is longer than the step bound (%d scheduling steps),%s\n"+
		"  and it kept making progress over its second half: %s.\n"+
		"  A long computation rather than a livelock, as far as heddle can tell (an endless loop that makes progress looks the\n"+
		"  same, and native go test shows it on every run). This is not reported as a bug; %d %s explored. Raise -step-limit\n"+
		"  to explore it, or make the test smaller. (-strict-nondeterminism reports it as a steplimit bug.)\n",
		x.name(), run, limit, fair, progressText(bug), run-x.first, pluralRuns(run-x.first))
	x.emit(event.Event{Action: event.Nondeterministic, Kind: KindLong, Message: oneLine(bug.Message), Run: run, Steps: res.Steps, Report: text})
	x.t.Log("\n" + strings.TrimRight(text, "\n"))
}

// progressText says what progress a run that passed the step bound made
// over its second half (engine.Bug.Long).
func progressText(bug *engine.Bug) string {
	if bug.Waits == 0 {
		return "no goroutine polled, no timer fired, no sleep ended"
	}
	return fmt.Sprintf("goroutines saw what others wrote or sent, or ended, at least once every %d steps (beside %d polls and timer firings)", bug.Gap, bug.Waits)
}
