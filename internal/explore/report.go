package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// report handles a bug found by run: it writes the schedule at once, replays
// it with full recording to build the report, and reports it on the test.
// It returns false when the bug is filtered out or was reported already.
func (x *explorer) report(run int, res *engine.Result, rs *runT, bug *engine.Bug) bool {
	x.t.Helper()
	if k := bug.Kind + " " + x.where(bug); bug.Kind == engine.KindFail && x.seen[k] && (firedEarly(res) || !x.mayRecheck(k)) {
		return false // known without replaying it
	}
	keys := runKeys(res)
	// fresh: this process replays a schedule to report it (freshReport):
	// the run is that replay, made first after the warm-up, and the
	// schedule is written already.
	fresh := x.cfg.ReportRun
	var path string
	var werr error
	if fresh {
		path = x.cfg.Replay
	} else {
		path, werr = x.writeSchedule(run, bug, keys)
	}
	drop := func() bool {
		// One schedule per distinct bug: this one is not reported (unless
		// an earlier report has the same file).
		if !fresh && path != "" && werr == nil && !x.seen["file "+path] && !x.seen["existed "+path] {
			os.Remove(path)
		}
		return false
	}

	// With a time budget, the replays that make the report, here and in
	// new processes, get what is left of it, and a little more when that
	// is little (reportDeadline). A report whose replays were cut still
	// reports the bug, from the run that found it, and says so.
	// The replays decide what the report says (a timer that fired early
	// makes a timing verdict, not a bug, which a replay avoiding it
	// checks), so they get at least five times the run that found the bug
	// (replayDeadline).
	if !x.deadline.IsZero() && x.cfg.Deadline.IsZero() {
		saved, now := x.deadline, time.Now()
		x.deadline = replayDeadline(now, reportDeadline(now, saved, x.cfg.Time, x.lastRun), x.lastRun)
		if d := now.Add(reportAllowance(x.lastRun)); firedEarly(res) && !x.seen[bug.Kind+" "+x.where(bug)] && d.After(x.deadline) {
			// Whether the bug needs its early firings decides what the
			// report says: its replays have their own time.
			x.deadline = d
		}
		defer func() { x.deadline = saved }()
	}

	// Goroutines of the run were away in real I/O: what their native code
	// did there (how many bytes a TCP read returned, whether a socket
	// still held unread data when its peer closed it, which makes the
	// kernel send a reset) is not in the schedule. A replay made here,
	// right after the run, may do it again where heddle replay, in a new
	// process, does not (yamux's TestHalfCloseSessionShutdown: "connection
	// reset by peer" reported, and its replay diverged every time). The
	// report is built where heddle replay runs the schedule, or not made.
	realIO := len(res.Detached) > 0 && bug.Kind != engine.KindNondeterminism && bug.Kind != engine.KindRace
	if (x.cfg.OneRun || realIO) && !fresh && werr == nil {
		// With OneRun, this process made the one run of a test that
		// cannot run twice in one process (freshRuns): the replays that
		// build the report are made in a new one, as heddle replay makes
		// them.
		if realIO && !x.deadline.IsZero() && x.cfg.Deadline.IsZero() {
			// The new process goes through the runs before this one
			// first (warmUp).
			if d := time.Now().Add(reportAllowance(x.lastRun)); d.After(x.deadline) {
				x.deadline = d
			}
		}
		fr := x.freshReport(path, "", "")
		switch {
		case fr.report != nil:
			note := ""
			if realIO && !x.cfg.OneRun {
				note = realIONote
			}
			reported := x.freshReported(run, path, fr.report, note)
			x.seen[bug.Kind+" "+x.where(bug)] = true
			return reported
		case realIO && fr.err == nil && !fr.cut && !x.cfg.StrictNondeterminism:
			return x.notReproduced(run, res, bug, fr, drop, "in a new process, as heddle replay does (goroutines of the run were away in real I/O, which the schedule does not control)")
		}
	}

	// Reproduce with recording, for positions and the trace, noting the
	// timers that fire early.
	seed := x.randSeed(x.strat, run)
	var res2 *engine.Result
	var rs2 *runT
	var firings []earlyFiring
	took := x.lastRun // how long the recorded replay took
	computing := ""
	if fresh {
		seed = x.freshSeed
		res2, rs2, firings = res, rs, x.watch.all(res.Trace)
	} else if bug.Computing {
		// Its replay would compute as long again, and the watchdog,
		// done with this exploration, would not end it.
		res2, rs2 = res, rs
		computing = "note: this run was not replayed to build the report: its goroutine never reached a scheduling point again; heddle replay replays it, and ends it after as long"
	} else {
		began := time.Now()
		res2, rs2, firings = x.recordedReplay(keys, seed)
		took = time.Since(began)
		if !x.deadline.IsZero() && x.cfg.Deadline.IsZero() {
			// The replays that decide a timing verdict are about as
			// long as this one.
			x.deadline = replayDeadline(time.Now(), x.deadline, time.Since(began))
		}
		x.before = append(x.before, fmt.Sprintf("%d:replay", run))
	}
	bug2 := classify(res2, rs2)
	if bug2 != nil && bug.Kind == engine.KindNondeterminism && bug2.Kind == bug.Kind {
		// Keep the finding's own words: which check saw the divergence.
		b := *bug2
		b.Message = bug.Message
		bug2 = &b
	}
	if (bug.Kind == engine.KindRace || bug.Message == realFailureMessage) && bug2 == nil {
		// The detector reports a race once; the replay ran the same
		// schedule, which is what the report needs.
		bug2 = bug
	}
	note := computing
	if res2.OverMemory != "" || res2.OverTime {
		why := res2.OverMemory
		if res2.OverTime {
			why = "it ran past the time budget"
		}
		note = "note: the recorded replay of this bug was ended (" + why + "); heddle replay -v shows its steps"
		res2, rs2, bug2 = res, rs, bug
		firings = nil
	} else if bug2 == nil || bug2.Kind != bug.Kind || !fresh && !sameRun(res, res2) {
		note = "note: replaying the schedule did not reproduce this bug: the test is nondeterministic by itself"
		res2, rs2, bug2 = res, rs, bug
		firings = nil
		if werr == nil && !fresh && bug.Kind != engine.KindNondeterminism {
			// The replay made here ran after the run, from the state the
			// run left: replay the schedule where heddle replay runs it,
			// in a new process that goes through the executions before
			// the run first, and build the report there.
			fr := x.freshReport(path, "", "")
			switch {
			case fr.cut:
				note = "note: the replay that builds a report, made in the exploring process after the run, did not reproduce this bug, and its replay in a new process (as heddle replay runs it) was cut at the time budget: this report shows the run that found the bug, unrecorded (no positions, no early firings); heddle replay replays its schedule"
			case fr.err != nil:
				note += fmt.Sprintf(" (its replay in a new process could not be checked: %v)", fr.err)
			case fr.report != nil:
				// Later runs that fail the same way are known without
				// replaying them (the fresh report costs a process and a
				// warm-up).
				note := stateNote
				if x.cfg.OneRun {
					note = "" // no replay was made here
				}
				reported := x.freshReported(run, path, fr.report, note)
				x.seen[bug.Kind+" "+x.where(bug)] = true
				return reported
			case x.cfg.StrictNondeterminism:
				nd := notReproducedBug(run, bug, fr, "in this process and in a new one")
				bug, bug2, note = nd, nd, ""
			default:
				return x.notReproduced(run, res, bug, fr, drop, "in this process and in a new one")
			}
		}
	}
	if bug2.Kind == engine.KindLeak && x.ignoredLeak(bug2) {
		return drop()
	}
	key := bug2.Kind + " " + x.where(bug2)
	if x.seen[key] && (firedEarly(res) || !x.recheck(key)) {
		return drop()
	}
	x.seen[key] = true
	early := ""
	timing := false
	tkey := ""     // a timing verdict's dedup key
	placed := bug2 // the bug as a replay sees it, before a timing verdict renames it
	if !fresh && computing == "" {
		x.before[len(x.before)-1] = fmt.Sprintf("%d:replay+early", run)
	}
	need, needed, alone := x.earlyNeeded(bug2, keys, res2.Steps, took, seed, firings)
	firings = needed
	switch need {
	case earlyBug:
		early = x.earlyText(earlyBugHeader(bug2.Kind, firings, alone), firings)
	case earlyTiming:
		// The test assumes the machine is never slower than the time it
		// waits. One timing verdict per test, or with -keep-going one per
		// distinct failure.
		tkey = KindTiming
		if x.cfg.KeepGoing {
			tkey += " " + key
		}
		x.timingAt(key)
		if x.disabled(KindTiming) || x.seen[tkey] {
			return drop()
		}
		x.seen[tkey] = true
		timing = true
		shown := timingFirings(bug2.Kind, firings)
		early = x.earlyText(timingHeader(shown), shown)
		b := *bug2
		b.Kind = KindTiming
		b.Message = timingMessage(shown, bug2)
		bug2 = &b
	}
	if _, ok := x.rechecks[key]; ok && !timing {
		x.rechecks[key] = maxRechecks // a bug there after all: reported once
	}
	if werr == nil && note == "" {
		x.recordPlace(path, placed, res2.Steps)
	}

	var b strings.Builder
	x.render(&b, run, res2, rs2, bug2, early)
	if note != "" {
		fmt.Fprintln(&b, note)
	}
	replay := ""
	if werr != nil {
		fmt.Fprintf(&b, "schedule: not written: %v\n", werr)
	} else {
		replay = "heddle replay " + path
		fmt.Fprintf(&b, "schedule: %s\nreplay:   %s\n", path, replay)
	}
	text := b.String()
	x.seen["file "+path] = true
	if timing && !x.cfg.StrictTiming {
		// Reported apart from bugs: the test passes, the exploration
		// goes on.
		x.emit(event.Event{Action: event.Timing, Kind: KindTiming, Key: tkey, Message: bug2.Message, Run: run, Steps: res2.Steps, Schedule: path, Report: text, Replay: replay})
		x.t.Log("\n" + text)
		return false
	}
	x.bugs++
	x.emit(event.Event{Action: event.Bug, Kind: bug2.Kind, Key: key, Message: bug2.Message, Run: run, Steps: res2.Steps, Schedule: path, Report: text, Replay: replay})
	x.t.Error("\n" + text)
	return true
}

// sameRun reports whether a replay of run made the same run: the same
// choices and steps. A replay that ends with the same bug after other steps
// started from other state (what the run left in package variables), and
// would record a place heddle replay does not reach.
func sameRun(run, replay *engine.Result) bool {
	if run.Steps != replay.Steps || len(run.Choices) != len(replay.Choices) {
		return false
	}
	for i := range run.Choices {
		if run.Choices[i].Key() != replay.Choices[i].Key() {
			return false
		}
	}
	return true
}

// freshResult is what the replay of a schedule in a new process did.
type freshResult struct {
	report *event.Event // its bug or timing event, when it reproduced the bug
	why    string       // how it diverged, when it did not
	kind   string       // avoid mode: the kind of bug the replay ended with ("unknown": cut short)
	where  string       // avoid mode: where
	cut    bool         // the replay was cut at its deadline (Config.Deadline): it decides nothing
	err    error        // the replay could not be run
}

// freshReport replays the schedule at path as heddle replay does: in a new
// process of this test binary, which goes through the executions the
// schedule records before its run (warmUp) and then replays it, from the
// state the exploration's run started from. Without avoid, that process
// builds the report (Config.ReportRun), and its bug or timing event is
// returned; with avoid, it replays the schedule keeping the timers avoid
// names from firing early (earlyNeeded), and returns how it ended.
func (x *explorer) freshReport(path, avoid, target string, limits ...int) freshResult {
	cfg := x.cfg
	cfg.Strategy, cfg.Replay, cfg.Runs, cfg.Time, cfg.Budget = "replay", path, 1, 0, "1"
	cfg.KeepGoing = false
	cfg.Unit, cfg.FirstRun, cfg.PackageTime, cfg.Tests = nil, 0, 0, 0
	cfg.ReportRun, cfg.Avoid = avoid == "", avoid
	if len(limits) == 2 {
		cfg.AvoidLimit, cfg.AvoidKeep = limits[0], limits[1] != 0
	}
	cfg.AvoidTarget = target
	// Within the time budget (report's deadline, reportDeadline), with a
	// little more to end by itself; without one, 5 minutes.
	cfg.Deadline = x.deadline
	limit, wait := 5*time.Minute, time.Second
	if !x.deadline.IsZero() {
		limit = time.Until(x.deadline) + freshSlack(x.cfg.Time)
		wait = max(freshSlack(x.cfg.Time), 100*time.Millisecond)
	}
	evs, out, runErr, timedOut, err := x.runSelf(cfg, limit, wait)
	if err != nil {
		return freshResult{err: err}
	}
	var r freshResult
	verdict := false
	for i := range evs {
		switch e := &evs[i]; e.Action {
		case event.Bug, event.Timing:
			verdict = true
			r.report = e
		case event.Replayed:
			verdict = true
			r.why, r.kind, r.where = e.Message, e.Kind, e.Key
			r.cut = e.Kind == "unknown" && e.Message == cutMessage
		}
	}
	if !verdict && !x.deadline.IsZero() && timedOut {
		return freshResult{cut: true, kind: "unknown"}
	}
	if !verdict {
		return freshResult{err: fmt.Errorf("it ended without a verdict (%v): %s", runErr, oneLine(lastLines(string(out), 3)))}
	}
	return r
}

// stateNote is the note of a report built in a new process because the
// replay made in the exploring process did not reproduce the bug.
const stateNote = "note: the replay that builds a report, made in the exploring process after the run, did not reproduce this bug: the run depended on what the executions of this test before it left in package variables. This report was built in a new process that went through those executions first, as heddle replay does.\n"

// realIONote is the note of a report built in a new process because
// goroutines of the run were away in real I/O.
const realIONote = "note: goroutines of this run waited in real I/O or code heddle does not control, whose outcome the schedule does not record. This report was built in a new process, as heddle replay runs the schedule.\n"

// notReproducedBug is the nondeterminism finding of a bug of run that a
// replay of its schedule in a new process (fr; where: which replays) did
// not reproduce.
func notReproducedBug(run int, bug *engine.Bug, fr freshResult, where string) *engine.Bug {
	return &engine.Bug{Kind: engine.KindNondeterminism, G: bug.G, Message: fmt.Sprintf(
		"the test is nondeterministic by itself: the %s of run %d (%s) did not happen again when its schedule was replayed, %s (%s)",
		bug.Kind, run, oneLine(bug.Message), where, oneLine(fr.why))}
}

// notReproduced handles a bug of run that the replays of where did not
// reproduce (fr, the one in a new process): no bug can be reported with a
// schedule that does not replay it; the test is nondeterministic by itself.
func (x *explorer) notReproduced(run int, res *engine.Result, bug *engine.Bug, fr freshResult, drop func() bool, where string) bool {
	nd := notReproducedBug(run, bug, fr, where)
	drop()
	x.seen[bug.Kind+" "+x.where(bug)] = true
	x.nondeterministic(run, res, nd)
	return false
}

// freshReported reports on the test the bug or timing verdict that a
// replay in a new process (freshReport) reported.
func (x *explorer) freshReported(run int, path string, e *event.Event, note string) bool {
	x.t.Helper()
	if x.seen[e.Key] {
		if !x.seen["file "+path] && !x.seen["existed "+path] {
			os.Remove(path)
		}
		return false
	}
	x.seen[e.Key] = true
	x.seen["file "+path] = true
	text := e.Report
	if note != "" {
		text = strings.Replace(text, "\nschedule: ", "\n"+note+"schedule: ", 1)
	}
	out := event.Event{Action: e.Action, Kind: e.Kind, Key: e.Key, Message: e.Message, Run: run, Steps: e.Steps, Schedule: path, Report: text, Replay: e.Replay}
	x.emit(out)
	if e.Action == event.Timing {
		x.t.Log("\n" + text)
		return false
	}
	x.bugs++
	x.t.Error("\n" + text)
	return true
}

// freshAvoided is earlyNeeded's replay keeping the timers avoid names from
// firing early, made in a new process (freshReport) when this process
// replays a schedule to report it: a replay made here after another starts
// from the state that one left. unknown: it could not decide.
func (x *explorer) freshAvoided(avoid string, limit int, keep bool, target string) (kind, where string, unknown bool) {
	k := 0
	if keep {
		k = 1
	}
	r := x.freshReport(x.cfg.Replay, avoid, target, limit, k)
	if r.err != nil || r.kind == "unknown" {
		return "", "", true
	}
	return r.kind, r.where, false
}

// runPattern is the -test.run pattern that selects exactly the test name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// recordedReplay replays the choices keys of a run with recording, for a
// report's positions and trace, and returns the early firings it made.
func (x *explorer) recordedReplay(keys []string, seed uint64) (*engine.Result, *runT, []earlyFiring) {
	rs := x.newRunT()
	watch := &earlyWatch{Strategy: strategy.NewReplay(keys)}
	res := x.exec(engine.Config{Seed: seed, Record: true}, watch, rs)
	return res, rs, watch.all(res.Trace)
}

// timingMessage is the message of a timing verdict: what the test assumes,
// from the early firings it needs (shown), and how it failed. A timer that
// fired early says how much slower the machine had to be: how long the
// goroutine that could run had waited when it fired. A late wake moves the
// clock by heddle's own step, -max-starve, not by anything in the test,
// whose bound may be shorter: the message says the test fails when a
// goroutine waits that long, not that the machine is never slower.
func timingMessage(shown []earlyFiring, bug *engine.Bug) string {
	var timer, late time.Duration // the longest starvation of each kind
	timers, lates := false, false
	for _, f := range shown {
		if f.late {
			lates = true
			late = max(late, f.early)
		} else {
			timers = true
			timer = max(timer, f.early)
		}
	}
	if !timers && !lates {
		timers = true // no firing known: say it of the timers
	}
	var assume, when []string
	if timers {
		if timer <= 1 {
			assume = append(assume, "goroutines that can run always run before a timer fires")
		} else {
			assume = append(assume, "the machine is never slower than "+engine.DurationText(timer))
		}
		when = append(when, "a timer fires (or a sleep ends) while a goroutine that could run has not yet")
	}
	if lates {
		assume = append(assume, "a goroutine that can run never waits "+engine.DurationText(late)+" to run (heddle's late-wake step, -max-starve: a shorter wait may fail it too)")
		when = append(when, "a goroutine that could run runs late, the clock moving on while it waits")
	}
	return "the test assumes " + strings.Join(assume, ", and that ") + ": it fails only when " + strings.Join(when, ", or ") + ", as on a slow or loaded machine" +
		" (-strict-timing makes this fail the run; wait for the condition instead of sleeping)\n  the failure: " + bug.Kind + ": " + bug.Message
}

// timingHeader introduces the early firings a timing verdict shows.
// A late wake is no timer: the list was headed "the timers that fired
// early" above "a late wake: the clock moved on, with no timer firing".
func timingHeader(shown []earlyFiring) string {
	timers, own := "the test's own timers that fired early", true
	late, timer := false, false
	for _, f := range shown {
		switch {
		case f.late:
			late = true
		default:
			timer = true
			own = own && f.test
		}
	}
	if !own {
		timers = "the timers that fired early"
	}
	switch {
	case late && !timer:
		return "the late wakes"
	case late:
		return timers + ", and the late wakes"
	}
	return timers
}

// overMemory fails the test whose run grew the heap past -max-memory, and
// says what grew.
func (x *explorer) overMemory(run int, res *engine.Result) {
	x.t.Helper()
	x.bugs++
	msg := fmt.Sprintf("heddle: %s: run %d was ended after %d steps: %s (-max-memory %dMiB). Bound the runs with -step-limit, explore with a strategy that records no trace (-strategy random or pct), or raise -max-memory.",
		x.name(), run, res.Steps, res.OverMemory, x.cfg.MaxMemory>>20)
	x.emit(event.Event{Action: event.Output, Output: msg + "\n"})
	x.t.Error(msg)
}

// earlyBugHeader is the note on the early firings of a bug of kind that
// needs them (earlyNeeded: replayed without them, the run does not show
// it). A bug that needs only late wakes may well happen without one on
// another schedule: the note says so of this one. Of a leak whose other
// goroutines leak without any early firing, it names those that need them
// (alone).
func earlyBugHeader(kind string, firings []earlyFiring, alone []string) string {
	h := "this bug needs a timer of the code under test to fire early, as it can on a slow or loaded machine"
	switch {
	case onlyLate(firings):
		h = "this schedule has a goroutine run late (the clock moves on while it waits to run), as it can on a slow or loaded machine; replayed without that, it does not show the bug"
	case kind == engine.KindLeak && !anyCodeTimer(firings):
		h = "this leak needs the test's own timer to fire early, as it can on a slow or loaded machine"
	}
	if len(alone) > 0 {
		// The others leak in the replay without any early firing.
		h += " (for " + strings.Join(alone, ", ") + "; the other goroutines leak without any early firing too)"
	}
	return h
}

// replayed reports the outcome of a replay of the schedule keys (a run
// with seed, which took took). A run ended by its time bound lists the
// early firings its report did: those the hang needs (clockNeeded), not
// every one of the tickers that keep it alive.
func (x *explorer) replayed(res *engine.Result, rs *runT, keys []string, seed uint64, took time.Duration) {
	x.t.Helper()
	if x.cfg.Verbose {
		var b strings.Builder
		x.steps(&b, res, 0, rs.failAt)
		x.emit(event.Event{Action: event.Output, Output: b.String()})
		fmt.Print(b.String())
	}
	bug := classify(res, rs)
	if bug == nil {
		bug = x.realFailure(res)
	}
	if bug == nil && engine.RaceErrors() > x.races {
		bug = &engine.Bug{Kind: engine.KindRace, Message: "data race: the race detector's report (WARNING: DATA RACE) is printed above", G: res.Gs[0]}
	}
	if bug == nil {
		x.t.Log("heddle: the schedule ran to completion and the bug did not reproduce")
		return
	}
	x.bugs++
	var firings []earlyFiring
	for _, s := range res.Trace {
		if s.Early > 0 {
			firings = append(firings, earlyFiring{step: s.N, name: firingName(s), early: s.Early, late: s.G == nil && s.Timer == engine.LateWakeID})
		}
	}
	early := ""
	if bug.Kind == engine.KindStepLimit && bug.Clock && len(firings) > 0 {
		if firings = x.clockNeeded(keys, res.Steps, took, seed, firings); len(firings) > 0 {
			early = x.earlyText(earlyBugHeader(bug.Kind, firings, nil), firings)
		}
	} else if len(firings) > 0 {
		early = x.earlyText("timers that fired early in this run", firings)
	}
	var b strings.Builder
	x.render(&b, 1, res, rs, bug, early)
	text := b.String()
	x.emit(event.Event{Action: event.Bug, Kind: bug.Kind, Message: bug.Message, Run: 1, Steps: res.Steps, Schedule: x.cfg.Replay, Report: text})
	x.t.Error("\n" + text)
}

func (x *explorer) ignoredLeak(b *engine.Bug) bool {
	if len(x.cfg.LeakIgnore) == 0 {
		return false
	}
	for _, g := range append(b.Blocked[:len(b.Blocked):len(b.Blocked)], b.Running...) {
		at := engine.PositionOf(g.Pending().PC).Func
		from := engine.PositionOf(g.GoPC).Func
		matched := false
		for _, pat := range x.cfg.LeakIgnore {
			if strings.Contains(at, pat) || strings.Contains(from, pat) {
				matched = true
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// where locates a bug, to tell distinct bugs apart.
func (x *explorer) where(b *engine.Bug) string {
	switch b.Kind {
	case engine.KindDeadlock, engine.KindLeak:
		var ps []string
		for _, g := range b.Blocked {
			ps = append(ps, x.pos(g.Pending().PC))
		}
		for _, g := range b.Running {
			ps = append(ps, "running "+x.pos(g.Pending().PC))
		}
		return strings.Join(ps, ",")
	case engine.KindFail:
		return b.Message
	}
	if b.G != nil {
		return b.G.ID + " " + firstUserFrame(b.Stack)
	}
	return b.Message
}

func firstUserFrame(stack string) string {
	lines := strings.Split(stack, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "panic(") || isHeddleFrame(fn) || strings.HasPrefix(fn, "runtime/debug.") {
			continue
		}
		return strings.TrimSpace(lines[i+1])
	}
	return ""
}

// pos formats a call site as file:line relative to the package directory.
func (x *explorer) pos(pc uintptr) string {
	p := engine.PositionOf(pc)
	if p.File == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", x.rel(p.File), p.Line)
}

// at is " at file:line" for a call site, or nothing when the run did not
// record it.
func (x *explorer) at(pc uintptr) string {
	if engine.PositionOf(pc).File == "" {
		return ""
	}
	return " at " + x.pos(pc)
}

func (x *explorer) rel(file string) string {
	if x.cfg.Dir != "" {
		if r, err := filepath.Rel(x.cfg.Dir, file); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return filepath.Base(file)
}

func funcName(pc uintptr) string {
	f := engine.PositionOf(pc).Func
	if i := strings.LastIndex(f, "/"); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// Caps of a report's sections: a report is read by a person, and the
// whole of each is in the schedule's replay (heddle replay -v).
const (
	maxOutputShown     = 40 // lines of the failing run's test output
	maxGoroutinesShown = 24 // goroutine lines (after grouping)
	maxStackShown      = 60 // lines of a stack
	maxStepsShown      = 40 // steps of the trace
)

// madeBefore says of the ticker g waits on that it was made before the run
// (engine.G.ForeignTickerWait), or is "".
func madeBefore(g *engine.G) string {
	if g.ForeignTickerWait() > 0 {
		return " made before the run"
	}
	return ""
}

// render writes the text report of a bug; early, if not empty, says which
// timers fired early.
func (x *explorer) render(b *strings.Builder, run int, res *engine.Result, rs *runT, bug *engine.Bug, early string) {
	all := x.cfg.Verbose // heddle replay -v: nothing is cut
	strat := x.cfg.Strategy
	if x.cfg.ReportRun && x.schedStrategy != "" {
		strat = x.schedStrategy // the exploration's, not "replay"
	}
	fmt.Fprintf(b, "heddle: %s in %s (run %d, %d steps, strategy %s, seed %d)\n", x.title(bug), x.name(), run, res.Steps, strat, x.cfg.Seed)
	msg := bug.Message
	if bug.Kind == engine.KindLeak && len(bug.Running) == 0 && len(bug.Blocked) > 0 {
		ticking, foreign := 0, 0
		for _, g := range bug.Blocked {
			if g.TickerWait() > 0 {
				ticking++
			}
			if g.ForeignTickerWait() > 0 {
				foreign++
			}
		}
		what := "a ticker that was never stopped"
		if foreign == ticking {
			// A ticker made before the run (at init) ticks natively:
			// heddle does not control it, and the goroutine wakes on it.
			what = "a ticker made before the run and never stopped (it ticks in real time, outside heddle's control)"
		}
		if ticking == len(bug.Blocked) {
			msg = fmt.Sprintf("%d goroutine(s) left after the test returned, waiting on %s", ticking, what)
		} else if ticking > 0 {
			msg = fmt.Sprintf("%d goroutine(s) left after the test returned: %d blocked forever, %d waiting on %s", len(bug.Blocked), len(bug.Blocked)-ticking, ticking, what)
		}
	}
	fmt.Fprintf(b, "  %s\n", msg)
	x.groupNote(b, rs)
	x.unselectedNote(b, rs)
	stack := bug.Stack
	blockedIn := ""
	if bug.Kind == engine.KindBlocked {
		// The engine's stack is every goroutine's: keep the blocked one's.
		var at string
		stack, blockedIn, at = blockedStack(stack)
		if blockedIn != "" {
			verb := "blocked"
			if bug.Computing {
				verb = "running"
			}
			fmt.Fprintf(b, "  %s in %s", verb, blockedIn)
			if at != "" {
				fmt.Fprintf(b, ", called at %s", at)
			}
			fmt.Fprintln(b)
		}
	}
	// The test's output, unless it is only the message above (a testify
	// failure would show twice).
	if (bug.Kind == engine.KindFail || bug.Kind == KindTiming) && len(rs.msgs) > 0 &&
		!(len(rs.msgs) == 1 && strings.TrimSpace(rs.msgs[0]) == strings.TrimSpace(msg)) {
		var lines []string
		for _, m := range rs.msgs {
			lines = append(lines, strings.Split(m, "\n")...)
		}
		fmt.Fprintf(b, "\ntest output of the failing run%s:\n", tail(&lines, maxOutputShown, all, "lines"))
		for _, l := range lines {
			fmt.Fprintf(b, "    %s\n", l)
		}
	}
	if early != "" {
		fmt.Fprintf(b, "\n%s\n", early)
	}
	blocked := map[*engine.G]bool{}
	for _, g := range bug.Blocked {
		blocked[g] = true
	}
	running := map[*engine.G]bool{}
	for _, g := range bug.Running {
		running[g] = true
	}
	type line struct {
		id, text string // the goroutine's id, and what follows it
		more     int    // goroutines with the same text after it (grouped)
		key      bool   // part of the bug: blocked, failed
	}
	var lines []*line
	holders := lockHolders(res.Trace, res.Steps)
	for _, g := range res.Gs {
		origin := x.g0Origin()
		switch {
		case g.System:
			// Its steps show in the trace: say what it is (the only
			// system goroutine is a context's watcher, engine.watch).
			if g.Done() {
				lines = append(lines, &line{id: g.ID, text: systemOrigin + "; finished"})
			} else {
				lines = append(lines, &line{id: g.ID, text: systemOrigin})
			}
			continue
		case g.Index > 0:
			// A run that was not recorded (the report of a bug whose
			// recorded replay did not reproduce it or was cut short) knows
			// no call sites: no "created at ?", and a goroutine that
			// finished is then left out, having nothing to show.
			origin = ""
			if g.GoPC != 0 {
				origin = "created at " + x.pos(g.GoPC)
				if fn := funcName(g.GoPC); fn != "" {
					origin += " in " + fn
				}
			}
			if sc, ok := rs.scopes[g]; ok && x.group() && sc.parent == &rs.root {
				origin = "runs " + sc.full // one of the group's tests
			}
		}
		state := "finished"
		key := true
		switch {
		case blocked[g]:
			op := g.Pending()
			if p := g.TickerWait(); p > 0 {
				state = fmt.Sprintf("waiting on a %v ticker%s: %s%s", p, madeBefore(g), describe(op), x.at(op.PC))
			} else {
				state = fmt.Sprintf("blocked forever: %s%s", describe(op), x.at(op.PC))
			}
			if fn := funcName(op.PC); fn != "" {
				state += " in " + fn
			}
			state += x.heldBy(holders, g, op)
		case bug.G == g && bug.Kind == engine.KindBlocked:
			state = "blocked outside heddle's control"
			if bug.Computing {
				state = "running without reaching a scheduling point"
			}
			if blockedIn != "" {
				state += " in " + blockedIn
			}
		case running[g]:
			op := g.Pending()
			if p := g.TickerWait(); p >= time.Second {
				// Mostly waiting: a loop on a ticker of seconds.
				state = fmt.Sprintf("waiting on a %v ticker: %s%s", p, describe(op), x.at(op.PC))
			} else {
				state = fmt.Sprintf("still running: %s%s", describe(op), x.at(op.PC))
			}
			if fn := funcName(op.PC); fn != "" {
				state += " in " + fn
			}
		case bug.G == g && (bug.Kind == engine.KindPanic || bug.Kind == engine.KindMisuse):
			state = "failed here"
		case bug.G == g && bug.Kind == engine.KindFail && bug.Stack != "" && strings.HasPrefix(bug.Message, "exit status "):
			state = "called os.Exit here"
		case bug.G == g && bug.Kind == engine.KindStepLimit:
			op := g.Pending()
			bound := "step"
			if bug.Clock {
				bound = "time"
			}
			state = fmt.Sprintf("still running at the %s bound: %s%s", bound, describe(op), x.at(op.PC))
			if fn := funcName(op.PC); fn != "" {
				state += " in " + fn
			}
		case (!g.Done() || g.Unwound()) && g.Pending().Kind == engine.OpStart:
			state = "not started yet"
			key = false
		case !g.Done() || g.Unwound():
			// Unwound at the end of the run: it had not finished.
			op := g.Pending()
			state = fmt.Sprintf("at %s%s", describe(op), x.at(op.PC))
			key = false
		default:
			key = false
		}
		if origin == "" {
			if !key && state == "finished" {
				continue
			}
			lines = append(lines, &line{id: g.ID, text: state, key: key})
			continue
		}
		lines = append(lines, &line{id: g.ID, text: origin + "; " + state, key: key})
	}
	if len(lines) > maxGoroutinesShown && !all || len(lines) > groupAbove {
		// Many goroutines: one line for each kind, the first goroutine
		// of the kind named, in creation order.
		first := map[string]*line{}
		var grouped []*line
		for _, l := range lines {
			if f := first[l.text]; f != nil {
				f.more++
				continue
			}
			first[l.text] = l
			grouped = append(grouped, l)
		}
		lines = grouped
	}
	left := 0
	if !all && len(lines) > maxGoroutinesShown {
		// The goroutines of the bug first, then the others, in creation
		// order.
		var keep []*line
		n := 0
		for _, l := range lines {
			if l.key {
				n++
			}
		}
		others := maxGoroutinesShown - min(n, maxGoroutinesShown)
		for _, l := range lines {
			switch {
			case l.key && len(keep) < maxGoroutinesShown:
				keep = append(keep, l)
			case !l.key && others > 0:
				keep = append(keep, l)
				others--
			default:
				left += 1 + l.more
			}
		}
		lines = keep
	}
	fmt.Fprintln(b, "\ngoroutines:")
	for _, l := range lines {
		if l.more > 0 {
			fmt.Fprintf(b, "  %-8s (and %d more) %s\n", l.id, l.more, l.text)
		} else {
			fmt.Fprintf(b, "  %-8s %s\n", l.id, l.text)
		}
	}
	if left > 0 {
		fmt.Fprintf(b, "  ... and %d more goroutines (heddle replay -v lists them all)\n", left)
	}
	if stack != "" && bug.Kind != engine.KindDeadlock && bug.Kind != engine.KindLeak {
		sl := strings.Split(strings.TrimRight(trimStack(stack), "\n"), "\n")
		fmt.Fprintf(b, "\nstack of %s%s:\n", gid(bug.G), head(&sl, maxStackShown, all, "lines"))
		for _, l := range sl {
			fmt.Fprintf(b, "    %s\n", l)
		}
	}
	x.mainOutput(b)
	x.output.write(b)
	fmt.Fprintln(b)
	if len(res.Trace) == 0 {
		return // a run that was not recorded: no steps to show
	}
	max := maxStepsShown
	if all {
		max = 0
	}
	upTo := 0
	if bug.Kind == engine.KindFail || bug.Kind == KindTiming {
		// What came after the first failure cannot have caused it: often
		// it is only goroutines left running after the test returned.
		upTo = rs.failAt
	}
	x.steps(b, res, max, upTo)
}

// tail keeps the last n of lines unless all, and returns what a section's
// title says about the rest.
func tail(lines *[]string, n int, all bool, what string) string {
	if all || len(*lines) <= n {
		return ""
	}
	l := len(*lines)
	*lines = (*lines)[l-n:]
	return fmt.Sprintf(" (the last %d of %d %s)", n, l, what)
}

// head keeps the first n of lines unless all, and returns what a section's
// title says about the rest.
func head(lines *[]string, n int, all bool, what string) string {
	if all || len(*lines) <= n {
		return ""
	}
	l := len(*lines)
	*lines = (*lines)[:n]
	return fmt.Sprintf(" (the first %d of %d %s)", n, l, what)
}

// blockedStack finds, in a dump of every goroutine's stack, the goroutine
// that is blocked outside heddle's control: one that heddle runs whose top
// frames are not heddle's scheduler. It returns its stack, the function it
// is blocked in, and the position of the first call from user code.
func blockedStack(dump string) (stack, in, at string) {
	for _, blk := range strings.Split(dump, "\n\n") {
		if !strings.Contains(blk, "heddle.dev/internal/engine.") {
			continue // not a goroutine heddle runs
		}
		lines := strings.Split(strings.TrimSpace(blk), "\n")
		callee, parked := "", false
		for i := 1; i+1 < len(lines); i += 2 {
			fn := lines[i]
			if isHeddleFrame(fn) {
				parked = at == "" // in heddle's scheduler, not below user code
				break
			}
			if !isUserFrame(fn) {
				callee = fn
				continue
			}
			at = strings.TrimSpace(lines[i+1])
			if sp := strings.LastIndex(at, " +0x"); sp >= 0 {
				at = at[:sp]
			}
			if k := strings.LastIndexAny(at, `/\`); k >= 0 {
				at = at[k+1:]
			}
			if callee == "" {
				callee = fn // blocked in user code itself (a spin loop)
			}
			break
		}
		if parked || at == "" {
			continue
		}
		if k := strings.LastIndexByte(callee, '('); k > 0 && strings.HasSuffix(callee, ")") {
			callee = callee[:k] // the arguments
		}
		return blk, callee, at
	}
	return dump, "", ""
}

// isHeddleFrame reports whether a stack's function line is heddle's own
// runtime: such frames never show as user code.
func isHeddleFrame(fn string) bool {
	return strings.HasPrefix(fn, "heddle.dev/internal/") || strings.HasPrefix(fn, "heddle.dev/rt.") ||
		strings.HasPrefix(fn, "created by heddle.dev/")
}

// isUserFrame reports whether a function line is the user's code rather
// than the standard library's: its import path has a dot in its first
// element, or it is a test's main package.
func isUserFrame(fn string) bool {
	path := fn
	if i := strings.IndexByte(path, '/'); i >= 0 {
		return strings.Contains(path[:i], ".")
	}
	return strings.HasPrefix(path, "main.")
}

// groupAbove is the number of goroutines above which a report lists the
// goroutines of the same origin and state on one line: a test of ten
// thousand goroutines would otherwise make a report of megabytes.
const groupAbove = 64

func trimStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isHeddleFrame(l) || strings.HasPrefix(l, "runtime/debug.") {
			i++ // and its file line
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// maxEnabledShown is how many of a step's enabled choices a report lists;
// the whole trace (heddle replay -v, max 0) lists them all.
const maxEnabledShown = 16

// steps writes the trace, the last max lines of it if max > 0, with the
// steps a loop repeats folded (foldSteps).
//
// upTo, if not 0, is the step of the run's first failure: without max the
// steps after it are marked, with max they are left out and counted.
func (x *explorer) steps(b *strings.Builder, res *engine.Result, max, upTo int) {
	tr := res.Trace
	after, mark := 0, -1
	if upTo > 0 {
		cut := len(tr)
		for i := range tr {
			if tr[i].N > upTo {
				cut = i
				break
			}
		}
		if max > 0 {
			after = stepCount(tr[cut:], res.Steps)
			tr = tr[:cut]
		} else if cut < len(tr) {
			mark = cut
		}
	}
	var shown []stepLine
	if max > 0 {
		shown = foldSteps(tr, max)
	} else {
		shown = make([]stepLine, len(tr))
		for i := range tr {
			shown[i] = stepLine{i: i}
		}
	}
	folded := ""
	for _, l := range shown {
		if l.repeats > 0 {
			folded = ", a loop's repetitions folded"
			break
		}
	}
	from := 0
	if len(shown) > 0 {
		from = shown[0].i
	}
	// Counted in steps, as the report's first line counts them: a step's
	// trace may have more than one line (a goroutine's exit is on the line
	// after its last step's, with the same number).
	if after > 0 && from > 0 {
		fmt.Fprintf(b, "steps (the last %d of the %d up to the first failure%s):\n", stepCount(tr[from:], res.Steps), stepCount(tr, res.Steps), folded)
	} else if after > 0 {
		fmt.Fprintf(b, "steps (all %d up to the first failure%s):\n", stepCount(tr, res.Steps), folded)
	} else if m := x.traceMax(); m > 0 && len(res.Trace) >= m {
		// A long test's raised bound (steplimit.go).
		fmt.Fprintf(b, "steps (the last %d of the first %d, which are all the trace keeps of the run's %d%s):\n", stepCount(tr[from:], res.Steps), stepCount(tr, res.Steps), res.Steps, folded)
	} else if from > 0 {
		fmt.Fprintf(b, "steps (the last %d of %d%s):\n", stepCount(tr[from:], res.Steps), stepCount(tr, res.Steps), folded)
	} else if folded != "" {
		fmt.Fprintf(b, "steps (all %d%s):\n", stepCount(tr, res.Steps), folded)
	} else {
		fmt.Fprintf(b, "steps:\n")
	}
	if res.EnabledFrom > from {
		fmt.Fprintf(b, "  (the enabled choices of the first %d steps were not kept, to bound the replay's memory)\n", res.EnabledFrom)
	}
	recorded := positioned(tr)
	if !recorded && len(tr) > 0 {
		fmt.Fprintf(b, "  (this run was not recorded: its steps have no file:line)\n")
	}
	for _, l := range shown {
		if l.i == mark {
			fmt.Fprintf(b, "         (the first failure was at step %d: what follows came after it)\n", upTo)
		}
		if l.repeats > 0 && l.loose {
			fmt.Fprintf(b, "         (the loop of the %d steps above goes on, in varying order, for %d more %s, to step %d)\n", l.period, l.repeats, plural(l.repeats, "step", "steps"), tr[l.i].N)
			continue
		}
		if l.repeats > 0 {
			what := "step above repeats"
			if l.period > 1 {
				what = fmt.Sprintf("%d steps above repeat", l.period)
			}
			fmt.Fprintf(b, "         (the %s %d more %s, to step %d)\n", what, l.repeats, plural(l.repeats, "time", "times"), tr[l.i].N)
			continue
		}
		s := tr[l.i]
		who := gid(s.G)
		what := s.Kind.String()
		if s.Case >= 0 {
			what += fmt.Sprintf(" case %d", s.Case)
		}
		if s.Timer != "" {
			what += " " + s.Timer
		}
		where := x.stepWhere(s, res, recorded)
		if s.G == nil && s.Timer == engine.LateWakeID {
			who, what, where = "clock", "late wake", lateWakeText(s.Early)
		}
		choice := ""
		if s.Enabled.Len() > 1 {
			en := s.Enabled.Strings()
			if max > 0 && len(en) > maxEnabledShown {
				en = append(en[:maxEnabledShown:maxEnabledShown], fmt.Sprintf("and %d more", len(en)-maxEnabledShown))
			}
			choice = "  [" + strings.Join(en, " ") + "]"
		}
		fmt.Fprintf(b, "  %5d  %-8s %-16s %s%s\n", s.N, who, what, where, choice)
	}
	if after > 0 {
		fmt.Fprintf(b, "  (%d more %s after the first failure, to the run's end, left out: heddle replay -v shows them)\n", after, plural(after, "step", "steps"))
	}
}

// positioned reports whether a trace's steps were recorded with their
// call sites: a run that was not recorded (the report of a bug whose
// recorded replay did not reproduce it) has none.
func positioned(tr []engine.Step) bool {
	for i := range tr {
		if tr[i].PC != 0 {
			return true
		}
	}
	return false
}

// stepWhere is the last column of a report's step s of the run res: the
// step's file:line, or what the step is where it has none. A goroutine
// back from a wait outside heddle's control (real I/O, code that is not
// rewritten) says so, and where it waited; a goroutine's start says where
// it was created (the test goroutine's, that it begins); in a recorded run, an operation with no call site in
// the program was made by heddle's testing code: a test or subtest ending
// (t.Run returns), its context cancelled, a group of parallel tests'
// goroutine waiting for them. A goroutine's exit, the end of
// the test (t.done) and a timer's firing are what they say.
func (x *explorer) stepWhere(s engine.Step, res *engine.Result, recorded bool) string {
	if s.PC != 0 {
		if engine.PositionOf(s.PC).File == "" {
			return "(no source position)"
		}
		return x.pos(s.PC)
	}
	if s.G == nil {
		return ""
	}
	if s.G.System && s.Kind != engine.OpExit {
		return "(package context's watcher, passing on a cancellation)"
	}
	switch s.Kind {
	case engine.OpNative:
		in := ""
		for _, d := range res.Detached {
			if d.G == s.G.ID && d.Back == s.N && d.In != "" {
				in = " in " + d.In
			}
		}
		return "back from a wait outside heddle's control" + in + " (real I/O, or code that is not rewritten)"
	case engine.OpStart:
		switch {
		case engine.PositionOf(s.G.GoPC).File != "":
			return "(created at " + x.pos(s.G.GoPC) + ")"
		case s.G.Index == 0:
			return "(the test goroutine begins)"
		case recorded && s.G.GoPC == 0:
			return "(started by heddle's testing code: a test or subtest)"
		}
	case engine.OpExit, engine.OpTestDone:
	default:
		if recorded {
			return testingCodeText
		}
	}
	return ""
}

// testingCodeText is what a report's step made by heddle's testing code,
// with no call site in the program, says it is.
const testingCodeText = "(heddle's testing code, not the program's: running tests and subtests, as package testing does)"

// stepCount is the number of steps of a trace, its distinct step numbers
// (a step's lines are consecutive) below the run's steps: the line that
// ends the test (t.done) has the number of the step that would come next.
func stepCount(tr []engine.Step, steps int) int {
	n := 0
	for i := range tr {
		if tr[i].N < steps && (i == 0 || tr[i].N != tr[i-1].N) {
			n++
		}
	}
	return n
}

// lateWakeText describes a late wake in a report's steps (the step's who
// and what columns say "clock late wake"): d is how far it moved the
// clock, 0 if the trace did not record it.
func lateWakeText(d time.Duration) string {
	by := ""
	if d > 1 { // 1ns marks a wake that starved no one yet
		by = " " + engine.DurationText(d)
	}
	return "the clock moves on" + by + ", with no timer firing, while the goroutines that could run wait (they run late)"
}

// stepLine is a line of a report's steps: trace step i, or, with repeats
// set, the note that the period steps above it repeat that many more
// times, up to trace step i.
type stepLine struct {
	i               int
	period, repeats int
	round           bool // a step of the round a note folds
	// loose: the note folds a loop whose steps repeat in varying order
	// (looseLoop): period is its first round, repeats the steps after it.
	loose bool
}

// maxPeriod is the longest loop, in steps, whose repetitions a report
// folds.
const maxPeriod = 32

// minFolded is the fewest steps a fold leaves out: folding fewer would
// add a note for little (the steps of goroutines spinning in turn).
const minFolded = 8

// foldSteps chooses the last max lines of a trace's steps, folding a run
// of steps that repeats one loop at least three times into its first
// round and a note: a goroutine left looping after the test returned, or
// a livelock, would otherwise fill the lines with one loop, and hide the
// steps that led to it.
func foldSteps(tr []engine.Step, max int) []stepLine {
	same := func(i, j int) bool { return sameStep(tr[i], tr[j]) }
	// period is the loop whose repetitions ending at end cover the most
	// steps, and how many (0: none).
	period := func(end int) (best, bestLen int) {
		for p := 1; p <= maxPeriod && p <= end+1; p++ {
			n := p // steps covered: the last round, and each that matches the one after it
			for end-n >= 0 && same(end-n, end-n+p) {
				n++
				if n%p == 0 && n/p >= 3 && n-p >= minFolded && n > bestLen {
					best, bestLen = p, n
				}
			}
		}
		return best, bestLen
	}
	var rev []stepLine
	end := len(tr) - 1
	if start, round := looseLoop(tr); start >= 0 && (max <= 0 || round <= max) {
		// (A round longer than the lines shown is no loop a reader takes
		// in: bigcache's cleaner locks and unlocks its 1,024 shards at
		// each tick, a round of 2,051 steps that the exact folding below
		// shows in a few lines a tick.)
		if _, exact := period(end); len(tr)-start > exact+round {
			// (An exact period covering all but a round of it shows
			// better.)
			// Goroutines kept alive by their tickers, each looping on
			// its own, in an order that changes from round to round
			// (ants' purge and ticktock after a lost wakeup): no exact
			// period, one loop all the same. Its first round shows,
			// then a note.
			rev = append(rev, stepLine{i: end, period: round, repeats: len(tr) - start - round, loose: true})
			for i := start + round - 1; i >= start; i-- {
				rev = append(rev, stepLine{i: i, round: true})
			}
			end = start - 1
		}
	}
	// Lines for the outer folding (foldRounds) to look through: a loop
	// whose round holds an inner loop's folded repetitions (go-metrics'
	// statsd watch loop: a select, then 32 locks and unlocks) fills the
	// lines with its rounds otherwise.
	limit := max * outerScan
	for end >= 0 && len(rev) < limit {
		best, bestLen := period(end)
		if best == 0 {
			rev = append(rev, stepLine{i: end})
			end--
			continue
		}
		start := end - bestLen + 1
		rev = append(rev, stepLine{i: end, period: best, repeats: bestLen/best - 1})
		for i := start + best - 1; i >= start; i-- {
			rev = append(rev, stepLine{i: i, round: true})
		}
		end = start - 1
	}
	rev = foldRounds(tr, rev)
	if len(rev) > max {
		cut := max
		for cut < len(rev) && rev[cut].round && rev[cut-1].round {
			cut++ // a round shows whole, or not at all
		}
		rev = rev[:cut]
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for len(rev) > 0 && rev[0].repeats > 0 {
		rev = rev[1:] // a note whose round was cut
	}
	return rev
}

// outerScan is how many times a report's lines foldSteps folds, at most,
// before it folds the rounds of loops that hold a folded inner loop.
const outerScan = 64

// maxOuterPeriod is the longest round, in lines, of a loop whose round
// holds a folded inner loop that a report folds.
const maxOuterPeriod = 24

// foldRounds folds, in rev (foldSteps' lines, the last first), the
// repetitions of a loop whose round has an inner loop folded in it: the
// lines of a round (steps, and the notes of the inner folds) repeating at
// least three times show once, with a note counting the steps of a round.
// A round never splits an inner fold from its note.
func foldRounds(tr []engine.Step, rev []stepLine) []stepLine {
	same := func(a, b stepLine) bool {
		if a.loose || b.loose || a.round != b.round || a.repeats != b.repeats || a.period != b.period {
			return false
		}
		return a.repeats > 0 || sameStep(tr[a.i], tr[b.i])
	}
	// whole reports whether lines rev[k-p+1..k], a round in the trace's
	// order from rev[k] on, hold each inner fold with its note.
	whole := func(k, p int) bool {
		pending, notes := 0, 0
		for j := k; j > k-p; j-- {
			switch l := rev[j]; {
			case l.repeats > 0:
				if pending != l.period {
					return false
				}
				pending = 0
				notes++
			case l.round:
				pending++
			case pending > 0:
				return false
			}
		}
		return pending == 0 && notes > 0
	}
	var out []stepLine
	for k := 0; k < len(rev); {
		// The period p (in lines) whose repetitions from rev[k] on cover
		// the most lines, n of them.
		best, bestLen := 0, 0
		for p := 2; p <= maxOuterPeriod && k+p <= len(rev); p++ {
			n := p
			for k+n < len(rev) && same(rev[k+n-p], rev[k+n]) {
				n++
				if n%p == 0 && n/p >= 3 && n > bestLen {
					best, bestLen = p, n
				}
			}
		}
		if best == 0 || !whole(k+bestLen-1, best) {
			out = append(out, rev[k])
			k++
			continue
		}
		// The first round, in the trace's order, shows: the last best
		// lines of rev[k:k+bestLen].
		first := k + bestLen - 1
		start := rev[first].i // a round begins with a step
		end := rev[k].i
		steps := (end - start + 1) / (bestLen / best)
		if (bestLen/best-1)*steps < minFolded {
			out = append(out, rev[k])
			k++
			continue
		}
		out = append(out, stepLine{i: end, period: steps, repeats: bestLen/best - 1})
		for j := first - best + 1; j <= first; j++ {
			l := rev[j]
			l.round = true
			out = append(out, l)
		}
		k += bestLen
	}
	return out
}

// sameStep reports whether two steps are the same step of a loop: the
// same goroutine doing the same thing at the same place.
func sameStep(a, b engine.Step) bool {
	return a.G == b.G && a.Kind == b.Kind && a.Case == b.Case && a.Timer == b.Timer && a.PC == b.PC
}

// looseLoop finds the loop a trace ends with when its steps repeat in an
// order that varies (goroutines on tickers, each looping on its own):
// start is the earliest step from which every step to the end is one
// (sameStep) that happens at least three times from there, of at most
// maxPeriod distinct ones, and round the length of its first round (the
// steps from start until each of them has happened once). start is -1
// when there is no such loop of at least three rounds, or it would fold
// fewer than minFolded steps.
func looseLoop(tr []engine.Step) (start, round int) {
	var kinds []engine.Step // the distinct steps, few
	var counts []int
	short := 0 // distinct steps seen fewer than three times
	start = -1
	for i := len(tr) - 1; i >= 0; i-- {
		k := -1
		for j := range kinds {
			if sameStep(kinds[j], tr[i]) {
				k = j
				break
			}
		}
		if k < 0 {
			if len(kinds) == maxPeriod {
				break
			}
			kinds, counts = append(kinds, tr[i]), append(counts, 0)
			k = len(kinds) - 1
			short++
		}
		counts[k]++
		if counts[k] == 3 {
			short--
		}
		if short == 0 {
			start = i
		}
	}
	if start < 0 {
		return -1, 0
	}
	// The first round: until every distinct step of the loop has been seen.
	seen, all := 0, countDistinct(tr[start:])
	var met []engine.Step
	for i := start; i < len(tr); i++ {
		known := false
		for _, m := range met {
			if sameStep(m, tr[i]) {
				known = true
				break
			}
		}
		if !known {
			met = append(met, tr[i])
			seen++
		}
		if seen == all {
			round = i - start + 1
			break
		}
	}
	n := len(tr) - start
	if n < 3*round || n-round < minFolded {
		return -1, 0
	}
	return start, round
}

// countDistinct is how many distinct steps (sameStep) tr has.
func countDistinct(tr []engine.Step) int {
	var ds []engine.Step
	for _, s := range tr {
		known := false
		for _, d := range ds {
			if sameStep(d, s) {
				known = true
				break
			}
		}
		if !known {
			ds = append(ds, s)
		}
	}
	return len(ds)
}

func describe(op engine.Op) string {
	switch op.Kind {
	case engine.OpSend:
		return "send on channel"
	case engine.OpRecv:
		return "receive from channel"
	case engine.OpSelect:
		return "select"
	case engine.OpLock, engine.OpWLock, engine.OpWLockWait:
		return "Lock"
	case engine.OpRLock:
		return "RLock"
	case engine.OpWGWait:
		return "WaitGroup.Wait"
	case engine.OpCondBlocked:
		return "Cond.Wait"
	case engine.OpOnce:
		return "Once.Do"
	case engine.OpSleep:
		return "Sleep"
	case engine.OpBlock:
		return "select {}"
	case engine.OpNative:
		return "a call heddle does not control (io.Pipe, net.Pipe, I/O, a lock or channel of code not rewritten)"
	}
	return op.Kind.String()
}

func kindTitle(k string) string {
	switch k {
	case engine.KindDeadlock:
		return "DEADLOCK"
	case engine.KindLeak:
		return "GOROUTINE LEAK"
	case engine.KindPanic:
		return "PANIC"
	case engine.KindFail:
		return "TEST FAILED"
	case engine.KindMisuse:
		return "MISUSE"
	case engine.KindStepLimit:
		return "STEP BOUND EXCEEDED"
	case engine.KindNondeterminism:
		return "NONDETERMINISTIC TEST"
	case engine.KindBlocked:
		return "BLOCKED OUTSIDE HEDDLE'S CONTROL"
	case engine.KindRace:
		return "DATA RACE"
	case KindTiming:
		return "TIMING-DEPENDENT TEST"
	}
	return strings.ToUpper(k)
}

func firingName(s engine.Step) string {
	if s.G == nil && s.Timer == engine.LateWakeID {
		return lateName
	}
	if s.Timer != "" {
		return "timer " + s.Timer
	}
	return "the sleep of " + gid(s.G)
}

// onlyLate reports whether every early firing is a late wake.
func onlyLate(firings []earlyFiring) bool {
	for _, f := range firings {
		if !f.late {
			return false
		}
	}
	return len(firings) > 0
}

// anyCodeTimer reports whether one of the early firings is a timer of the
// code under test (not the test's own).
func anyCodeTimer(firings []earlyFiring) bool {
	for _, f := range firings {
		if !f.test {
			return true
		}
	}
	return false
}

// maxUnselectedShown is how many subtests not run a report names.
const maxUnselectedShown = 5

// unselectedNote says which subtests the run did not run because -run or
// -skip did not select them: the schedule records the patterns, and its
// replay skips them too.
func (x *explorer) unselectedNote(b *strings.Builder, rs *runT) {
	if len(rs.unselected) == 0 {
		return
	}
	names := rs.unselected
	more := ""
	if len(names) > maxUnselectedShown {
		more = fmt.Sprintf(" and %d more", len(names)-maxUnselectedShown)
		names = names[:maxUnselectedShown]
	}
	var sel []string
	if x.cfg.Run != "" {
		sel = append(sel, fmt.Sprintf("-run %q", x.cfg.Run))
	}
	if x.cfg.Skip != "" {
		sel = append(sel, fmt.Sprintf("-skip %q", x.cfg.Skip))
	}
	fmt.Fprintf(b, "  subtests not run (%s, as its replay does): %s%s\n", strings.Join(sel, ", "), strings.Join(names, ", "), more)
}

// graceShare is the share of a time budget by which a run going at its
// end (engine.Config.Grace), or the replays that build a report
// (reportDeadline), may go past it; freshSlack's is what a report's replay
// in a new process gets on top to end by itself before it is killed (at
// most a second). heddle test -budget is kept within their sum, 3.5%.
const (
	graceShare = 40
	slackShare = 100
)

// freshSlack is how long after its deadline a report's replay in a new
// process is killed, if it did not end by itself, in an exploration
// whose time budget is budget.
func freshSlack(budget time.Duration) time.Duration {
	return min(budget/slackShare, time.Second)
}

// replayDeadline is the deadline of the replays that build the report of a
// bug found at now by a run that took lastRun, here and in new processes,
// given the report's deadline (reportDeadline): at least five times
// the run (at most 30 s) from now (a recorded replay costs more than the
// run: go-retry's took 2-3 times as long), and after the recorded replay,
// five times that replay for the replays that avoid early firings. A run longer than what the budget has
// left ends the budget's precision anyway (the run in progress at its end
// finishes), and a replay cut at the budget would lose what the report
// says about the bug: go-retry's TestDo, whose first run takes a second,
// had its timing verdict at -budget 1s (the test's wall-clock assertion
// fails on a slow machine) and was reported as a failure of the test
// once the replay that avoids the early firing was cut.
func replayDeadline(now, report time.Time, lastRun time.Duration) time.Time {
	if least := now.Add(min(5*lastRun, 30*time.Second)); least.After(report) {
		return least
	}
	return report
}

// reportDeadline is the deadline of the replays that build the report of a
// bug found at now, in an exploration whose time budget is budget, ending
// at deadline, and whose last run took lastRun: what is left of the budget,
// and when that is little, at least a twentieth of the budget or ten times
// the run (at most 30 s) from now -- but never more than a fortieth of
// the budget past its end, so that heddle test -budget keeps its budget
// within a few percent.
func reportDeadline(now, deadline time.Time, budget, lastRun time.Duration) time.Time {
	least := now.Add(max(budget/20, min(10*lastRun, 30*time.Second)))
	if limit := deadline.Add(budget / graceShare); least.After(limit) {
		least = limit
	}
	if least.After(deadline) {
		return least
	}
	return deadline
}
