// Package explore runs a test under heddle's scheduler many times: it picks
// the strategy, enforces the budget, watches for runs that hang, turns what
// a run found into a report and a schedule file, and tells `heddle test`
// about it through events.
package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore/require"
	"heddle.dev/internal/schedule"
	"heddle.dev/internal/strategy"
)

// serial makes explorations in one process run one at a time.
var serial sync.Mutex

// Test explores body, the rewritten body of the test t.
func Test(t *testing.T, body func(t *testing.T)) {
	// Every function from here to the t.Error of a report is a helper, so
	// that go test positions the report at the user's test function.
	t.Helper()
	if cfg, err := LoadConfig(); err == nil && len(cfg.Group) > 0 {
		testGroup(t, cfg, body) // the tests that called t.Parallel, together (group.go)
		return
	}
	test(t, nil, body)
}

// test is Test, and for Main (m not nil) shares m, the state of heddle
// run's output, with main's runs.
func test(t *testing.T, m *mainState, body func(t *testing.T)) {
	t.Helper()
	cfg, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	serial.Lock()
	defer serial.Unlock()
	if watchInterrupt() {
		t.Skip("heddle: interrupted")
	}
	var out *testOutput
	defer func() { out.restore() }()
	// A served worker explores unit after unit in this process: a later
	// unit's first run is not the process's first run of the test, and
	// a test that fails on any rerun in one process (failsOnRerun) must
	// be told by the process's first run, not reported as a bug of the
	// unit's first schedule.
	var firstKeys []string
	var firstSeed uint64
	for {
		x := newExplorer(t, cfg, body)
		x.main = m
		x.firstKeys, x.firstSeed = firstKeys, firstSeed
		x.rerun = firstKeys != nil
		x.output = captureTestOutput(cfg)
		out = x.output
		x.run()
		out.restore()
		firstKeys, firstSeed = x.firstKeys, x.firstSeed
		if !cfg.Serve || !x.clean() {
			return
		}
		next, ok := nextUnit()
		if !ok {
			return
		}
		cfg = next.apply(cfg)
	}
}

type explorer struct {
	t     *testing.T
	cfg   Config
	body  func(t *testing.T)
	strat engine.Strategy
	ev    *event.Writer
	evf   *os.File
	seen  map[string]bool // dedup keys of bugs reported
	// gaveUp is set when the test was found nondeterministic by itself
	// (nondeterministic): it is not explored further.
	gaveUp bool
	bugs   int
	runs   int
	// freshMade counts the runs made in new processes (freshruns.go).
	freshMade int
	// runsCapped: the default budget of runs is bounded in time
	// (Config.RunsCap); capHit: that bound ended the exploration.
	runsCapped, capHit bool
	// boundRuns counts the runs the step or time bound ended
	// (Event.BoundRuns).
	boundRuns int
	// firstTrace is a hash of the steps of the process's first run
	// (freshDeterministic).
	firstTrace string
	// schedStrategy is, in a replay, the strategy of the exploration that
	// recorded the schedule.
	schedStrategy string

	realFailed  bool // the real T had failed before the current run (see realFailure)
	needsRecord bool // the strategy reads call sites (Config.Record)
	prover      bool // the strategy is exhaustive: random numbers stay fixed
	usedRand    bool // some run drew numbers from rewritten math/rand
	truncated   bool // some run was cut short: no exhaustion can be claimed
	// noClaim is why the strategy ended but claims nothing (the log line
	// that says so), for the summary's NoClaim: a unit's, in a split, is
	// the whole test's.
	noClaim     string
	pool        engine.Pool
	procs       int // GOMAXPROCS before the exploration, which the program sees
	races       int // races the detector had reported before this run
	progress    atomic.Int64
	stuck       chan struct{}
	stop        chan struct{}
	main        *mainState // heddle run's output, nil for a test
	natives     int64      // operations run natively by goroutines heddle does not control
	partnered   bool       // a run's probe found a partner heddle does not control (engine.Result.Partnered)
	detaches    int        // times a goroutine waited outside heddle's control (engine.Result.Detaches)
	spinDrops   int        // steps at which a polling goroutine was kept from running (engine.Result.SpinDrops)
	spinBound   int        // engine.SpinDrop when the strategy ended but spinDrops bound its claim (spinClaim)
	unstepped   int        // files handed to code that keeps them, in runs of more than one goroutine (engine.Result.Unstepped)
	quiet       int64      // operations without a scheduling point in regions of allocation counting (engine.Result.Quiet)
	interrupted bool       // the exploration stopped on a signal
	topParallel bool       // the test called t.Parallel (itself, not a subtest) in some run
	output      *testOutput
	attrs       map[[2]string]bool // the t.Attr key-value pairs passed on to the test
	deadline    time.Time          // of a time budget: runs still going then are ended
	lastRun     time.Duration      // how long the last run took

	// leftAfterFuncs is the number of AfterFunc timers the last run made
	// in this process left armed (engine.Result.PendingAfterFuncs), and
	// startedAfter what the run in progress (or the last one) started
	// after (lefttimers.go).
	leftAfterFuncs, startedAfter int

	// firstKeys and firstSeed are the schedule and random seed of the
	// first run this process made of the test, if it passed (rerun.go).
	firstKeys []string
	firstSeed uint64
	// rerun is set when this process ran the test before this
	// explorer's first run (an earlier unit of a served worker): its
	// first run may fail as a rerun does.
	rerun bool
	// freshFails is set when a new process failed as this one does on a
	// rerun (failsFresh): what the runs leave behind is outside the
	// process.
	freshFails bool

	// first is the first run this process made of the test, and before
	// the replays it made besides its runs, as "run:what" (see warmUp):
	// a schedule records both, so that its replay in a new process goes
	// through the same executions before the run it replays.
	first  int
	before []string

	// A replay in a new process that builds a report (Config.ReportRun):
	// the early firings of its run, and the seed of its random numbers.
	watch     *earlyWatch
	freshSeed uint64

	// rechecks counts, by dedup key, the bugs checked again at a place
	// whose report was a timing verdict (explorer.recheck).
	rechecks map[string]int
	// fair is the fair run measured when a run first passed the step
	// bound (steplimit.go), nil before; measureCap bounds the steps of
	// that run while it runs (exec).
	fair       *fairRun
	measureCap int

	// noted: an event other than the start, progress, summary and pass
	// was emitted (a bug, a verdict, a skip): the unit is not clean.
	noted bool
}

func newExplorer(t *testing.T, cfg Config, body func(t *testing.T)) *explorer {
	x := &explorer{t: t, cfg: cfg, body: body, seen: map[string]bool{}, stuck: make(chan struct{}), stop: make(chan struct{})}
	setTestOnly(cfg.TestOnly, cfg.Package, cfg.Dir)
	if cfg.Events != "" {
		f, err := os.OpenFile(cfg.Events, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatalf("heddle: cannot write events: %v", err)
		}
		x.evf = f
		x.ev = event.NewWriter(f)
	}
	return x
}

func (x *explorer) emit(e event.Event) {
	switch e.Action {
	case event.Start, event.Progress, event.Summary, event.Pass:
	default:
		x.noted = true
	}
	if x.ev == nil {
		return
	}
	e.Time = time.Now()
	e.Package = x.cfg.Package
	e.Test = x.name()
	x.ev.Write(e)
}

func (x *explorer) run() {
	x.t.Helper()
	defer func() {
		if x.evf != nil {
			x.evf.Close()
		}
	}()
	x.cfg.Time = shareTime(x.cfg)
	if c := x.cfg; c.RunsCap > 0 && c.Runs > 0 && c.Time == 0 && c.Unit == nil && c.Replay == "" && c.Deadline.IsZero() && !c.OneRun && c.FirstRun <= 0 {
		// The default budget of runs, bounded in time (DefaultRunsCap):
		// it is kept as a time budget is.
		x.cfg.Time = c.RunsCap
		x.runsCapped = true
	}
	cfg := x.cfg
	var choices []string
	var sched *schedule.Schedule
	name := cfg.Strategy
	if cfg.Replay != "" {
		s, err := readSchedule(cfg.Replay)
		if err != nil {
			x.t.Fatalf("heddle: %v", err)
		}
		if s.Test != x.scheduleTest() {
			x.t.Fatalf("heddle: schedule %s is for test %s, not %s", cfg.Replay, s.Test, x.scheduleTest())
		}
		choices = s.Choices
		if s.Detached != "" {
			ds, err := engine.ParseDetached(s.Detached)
			if err != nil {
				x.t.Fatalf("heddle: schedule %s: %v", cfg.Replay, err)
			}
			choices = strategy.WithDetached(choices, ds)
		}
		name = "replay"
		sched = s
		if s.Format == schedule.FormatV1 {
			// Written before late wakes existed: none was offered.
			x.cfg.NoLateWake = true
		}
		x.schedStrategy = s.Strategy
	}
	var strat engine.Strategy
	var err error
	if cfg.Unit != nil && cfg.Replay == "" {
		strat, err = strategy.NewForUnit(strategy.Options{Seed: cfg.Seed, PCTDepth: cfg.PCTDepth}, *cfg.Unit)
	} else {
		strat, err = strategy.New(name, strategy.Options{Seed: cfg.Seed, PCTDepth: cfg.PCTDepth, Choices: choices})
	}
	if err != nil {
		x.t.Fatalf("heddle: %v", err)
	}
	x.strat = strat
	if p, ok := strat.(strategy.Prover); ok {
		x.prover = p != nil
	}
	if rn, ok := strat.(strategy.RecordNeeder); ok && rn.NeedsRecord() {
		x.needsRecord = true
	}
	x.emit(event.Event{Action: event.Start, Strategy: name, Budget: cfg.Budget, Group: cfg.Group})

	// One controlled goroutine runs at a time, so a second processor
	// only makes each handoff slower (the woken goroutine may be stolen
	// by the other P): explore on one. The watchdog still runs, by
	// preemption.
	x.procs = runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(x.procs)

	go x.watchdog()
	defer close(x.stop)
	defer x.pool.Close()

	start := time.Now()
	lastProgress := start
	if cfg.Time > 0 {
		x.deadline = start.Add(cfg.Time)
	}
	if !cfg.Deadline.IsZero() {
		x.deadline = cfg.Deadline // a report's replay in a new process
	}
	x.races = engine.RaceErrors()
	racesBefore := x.races
	exhausted := false
	fatal := false
	// The run numbers: first..end-1 (end 0: no end). A shard's range
	// (FirstRun) ends at run Runs; otherwise Runs counts the runs made.
	first, end := max(cfg.FirstRun, 1), 0
	if u := cfg.Unit; u != nil && u.Frag == nil && u.OD == nil && cfg.Replay == "" {
		first, end = u.From, u.To
	}
	yield := yieldCheck{file: cfg.Yield}
	x.first = first
	for run := first; ; run++ {
		if cfg.Runs > 0 && ((cfg.FirstRun > 0 && run > cfg.Runs) || (cfg.FirstRun <= 0 && run-first >= cfg.Runs)) {
			break
		}
		if end > 0 && run >= end {
			exhausted = true // the unit's runs are done
			break
		}
		// A unit's call makes at least one run (sliced below).
		// So does one whose rest is too big to hand back (UnitKeeper).
		sliced := cfg.Unit != nil && cfg.Replay == "" && cfg.Deadline.IsZero()
		keeper, _ := strat.(strategy.UnitKeeper)
		free := sliced && (run == first || keeper != nil && keeper.KeepUnit())
		if cfg.Time > 0 && time.Since(start) > cfg.Time && !free {
			x.capHit = x.runsCapped
			break
		}
		if cfg.Unit != nil && run > first && !free && yield.asked() {
			break // the rest goes to an idle worker (unit.go)
		}
		if interrupted.Load() {
			x.interrupted = true
			break
		}
		if !strat.Begin(run) {
			exhausted = name != "replay"
			break
		}
		x.runs = run // the run number: a unit counts from its first (unit.go)
		if run%32 == 0 {
			if now := time.Now(); now.Sub(lastProgress) >= progressEvery {
				lastProgress = now
				x.emit(event.Event{Action: event.Progress, Runs: run - first, Bugs: x.bugs, Elapsed: now.Sub(start).Seconds(), Strategy: name})
			}
		}
		rs := x.newRunT()
		// Exhaustive strategies replay prefixes of earlier runs, so the
		// program's random numbers must not change from run to run.
		randSeed := x.randSeed(strat, run)
		if name == "replay" {
			var cut bool
			if randSeed, cut = x.warmUp(sched); cut {
				x.freshCut()
				break
			}
		}
		trace := run == 2 || run == first || cfg.OneRun // the determinism checks compare traces
		if tn, ok := strat.(strategy.TraceNeeder); ok && tn.NeedsTrace() {
			trace = true
		}
		x.realFailed = x.t.Failed()
		began := time.Now()
		if name == "replay" && cfg.Avoid != "" {
			x.avoided(sched, randSeed, rs)
			break
		}
		runStrat := strat
		if name == "replay" && cfg.ReportRun {
			x.watch = &earlyWatch{Strategy: strat}
			x.freshSeed = randSeed
			runStrat = x.watch
		}
		// The first run of a unit's call is not cut by its time slice
		// (heddle test -parallel's 10 s): cut, it would be handed back
		// as it came and cut again in the next call, without end, when
		// one run takes longer than the slice (GoKer's Hugo3251 under
		// optimal DPOR: 40,199 steps, over 10 s under load). The time
		// slice ends the call after it; the test's time limit still
		// bounds it.
		saved := x.deadline
		if free {
			x.deadline = time.Time{}
		}
		// A test's first run is not cut in its steps by the time budget,
		// only while it waits for goroutines away in real I/O
		// (budget_io): with no run finished, the test would pass having
		// shown nothing (zap's TestConfigWithSamplingHook fails natively
		// every time, and passed at -budget 1s under load). Its own
		// bounds (steps, virtual time, memory) and the command's -timeout
		// still end it.
		away := run == 1 && cfg.Deadline.IsZero() && name != "replay"
		res := x.exec(engine.Config{Seed: randSeed, Record: name == "replay" || x.needsRecord, Trace: trace, DeadlineAway: away}, runStrat, rs)
		startedAfter := x.startedAfter // the replays below change it
		if code, ok := childExit(x.cfg, res); ok {
			os.Exit(code)
		}
		x.deadline = saved
		x.lastRun = time.Since(began)
		if res.Interrupted {
			// Ended in the middle by an interrupt: not a run.
			x.interrupted = true
			x.runs--
			break
		}
		if res.OverTime && cfg.Unit != nil {
			// A unit's run cut by its time slice is not over: its rest
			// (the strategy's state before it) explores it again.
			x.runs--
			break
		}
		if b := res.Bug; b != nil && b.Kind == engine.KindStepLimit && !b.Clock && name != "replay" && !x.disabled(engine.KindStepLimit) {
			// A long test, or a livelock? (steplimit.go) Not asked of a
			// run ended by its time bound: natively, go test's -timeout
			// ends it either way.
			res, rs = x.pastBound(run, res, rs, engine.Config{Seed: randSeed, Record: x.needsRecord, Trace: trace})
			if res.Interrupted || res.OverTime && cfg.Unit != nil {
				// As above: not a run.
				x.interrupted = x.interrupted || res.Interrupted
				x.runs--
				break
			}
		}
		if b := res.Bug; b != nil && b.Kind == engine.KindStepLimit {
			x.boundRuns++
		}
		if run == first && cfg.Replay == "" {
			// For freshDeterministic and, in a new process making one
			// run, the process that started it. Before End, which may
			// reuse the trace.
			x.firstTrace = traceHash(res.Trace)
		}
		strat.End(res)
		if res.RandDraws > 0 {
			x.usedRand = true
		}
		x.natives += res.Natives
		x.detaches += res.Detaches
		x.spinDrops += res.SpinDrops
		x.quiet += res.Quiet
		if res.MaxGs > 1 {
			// With one goroutine, a file's unstepped accesses have no
			// other order.
			x.unstepped += res.Unstepped
		}
		if res.Truncated {
			x.truncated = true
		}
		if res.OverMemory != "" {
			x.overMemory(run, res)
			break
		}
		if res.OverTime {
			if name == "replay" && cfg.ReportRun {
				x.freshCut()
			}
			if res.Unfinished && res.CutAway != "" {
				x.t.Logf("heddle: run %d of %s was ended at the time budget while goroutine %s waited outside heddle's control (I/O, a child process, code that is not rewritten), which heddle cannot end: the run was abandoned, its goroutines stopped in the middle%s (heddle test explores each test in a process of its own: the tests after it do not see the package state it left)", run, x.name(), res.CutAway, keptCleanups(rs))
			} else if res.Unfinished {
				x.t.Logf("heddle: run %d of %s was ended at the time budget before it finished: the goroutines it left were stopped in the middle (heddle test explores each test in a process of its own: the tests after it do not see the package state it left)", run, x.name())
			}
			x.capHit = x.runsCapped
			break // the time budget is spent, this run with it
		}
		if name == "replay" && cfg.ReportRun {
			if bug := x.replayBug(res, rs); bug != nil && bug.Kind == sched.Kind {
				x.report(sched.Run, res, rs, bug)
			} else {
				x.replayVerdict(sched, res, bug)
			}
			break
		}
		if name == "replay" {
			x.replayed(res, rs, runKeys(res), randSeed, x.lastRun)
			x.replayVerdict(sched, res, x.replayBug(res, rs))
			break
		}
		bug := classify(res, rs)
		if bug == nil {
			bug = x.realFailure(res)
		}
		if n := engine.RaceErrors(); n > x.races {
			// The race detector reported a race during this run (its report
			// is on standard error): the run's schedule replays it.
			x.races = n
			if bug == nil {
				bug = &engine.Bug{Kind: engine.KindRace, Message: "data race: the race detector's report (WARNING: DATA RACE) is printed above", G: res.Gs[0]}
			}
		}
		if bug == nil && run == 2 && !cfg.OneRun {
			// Run 2, not run 1: package state that a first run sets up
			// once (a sync.Once, a cache) stays, as it does natively.
			bug = x.checkDeterminism(res, randSeed)
			x.before = append(x.before, fmt.Sprintf("%d:check", run))
		}
		if bug == nil && run == first && x.firstKeys == nil {
			// The first run's schedule, to tell a test that fails on any
			// run after its first (failsOnRerun).
			x.firstKeys, x.firstSeed = runKeys(res), randSeed
		}
		if bug == nil {
			// A goroutine the test started called t.Skip before the
			// test returned: natively SKIP for that schedule, PASS when
			// it comes after (Go's SkipNow then ends only that
			// goroutine). The first run decides, as go test's usual
			// schedule; a later run's such skip is one schedule among
			// others, explored.
			if rs.root.skipped && (!rs.root.skippedAside || run == 1) {
				x.emit(event.Event{Action: event.Skip})
				x.t.Skip(strings.Join(rs.msgs, "\n"))
			}
			// Nothing reads the run's trace and choices any more: the
			// next run reuses their memory.
			x.pool.Recycle(res)
			continue
		}
		if x.disabled(bug.Kind) {
			x.pool.Recycle(res)
			continue
		}
		if bug.Kind == engine.KindNondeterminism && !x.cfg.StrictNondeterminism {
			if x.canRunFresh() && x.freshDeterministic(first) {
				x.freshRuns(run, first, end, bug, freshDiffers)
			} else {
				x.nondeterministic(run, res, bug)
			}
			break
		}
		if bug.Kind == engine.KindStepLimit && bug.Long && (x.fair == nil || !x.fair.ended) && !x.cfg.StrictNondeterminism {
			// Progress at every step, and no fair run that ended to
			// say the test is short (steplimit.go): too long to explore.
			x.tooLong(run, res, bug)
			break
		}
		if (run > first || x.rerun) && !x.cfg.StrictNondeterminism && x.failsOnRerun(run, bug) {
			if x.canRunFresh() && !x.failsFresh(first, bug) {
				x.freshRuns(run, first, end, bug, freshRerun)
			} else {
				x.notRerunnable(run, res, bug)
			}
			break
		}
		if run > first && startedAfter > 0 && !x.cfg.StrictNondeterminism && x.leftTimers(run, res, bug) {
			if x.canRunFresh() {
				x.freshRuns(run, first, end, bug, freshTimers)
			} else {
				x.nondeterministic(run, res, leftTimersBug(run, bug))
			}
			break
		}
		if !x.report(run, res, rs, bug) {
			if x.gaveUp {
				// The bug did not replay, and the test was found
				// nondeterministic by itself: exploring it further would
				// report failures after saying it is not explored
				// (go-limiter's TestNewMiddleware).
				break
			}
			continue
		}
		if bug.Kind == engine.KindBlocked {
			fatal = true
		}
		if !cfg.KeepGoing || fatal {
			break
		}
	}
	if x.natives > 0 {
		x.t.Logf("heddle: %d calls of rewritten code ran natively, unexplored, in goroutines heddle does not control (started in init, by a finalizer, or by code that is not rewritten)", x.natives)
	}
	elapsed := time.Since(start)
	action := event.Pass
	if x.bugs > 0 {
		action = event.Fail
	}
	if exhausted && x.truncated {
		// A run cut short (step bound, fair scheduler, the window after the
		// test returned) was not explored to its end: nothing is proved.
		exhausted = false
		x.withhold("heddle: %s ended, but some runs were cut short (step bound, or goroutines still running after the test returned): no claim that all schedules were explored", name)
	}
	if x.natives > 0 {
		// Goroutines heddle does not control (started in TestMain or
		// init, by a finalizer, by code that is not rewritten) ran
		// rewritten code beside the runs, interleaved by Go's scheduler:
		// those interleavings were not explored.
		if exhausted {
			x.withhold("heddle: %s ended, but goroutines heddle does not control ran beside the runs, interleaved by Go's scheduler, not explored: no claim that all schedules were explored", name)
		}
		exhausted = false
		x.truncated = true
	}
	if x.detaches > 0 {
		// When a wait outside heddle's control (I/O, a system call) ended
		// was up to the operating system: orders of those ends that no
		// run met were not explored.
		if exhausted {
			x.withhold("heddle: %s ended, but goroutines waited outside heddle's control (I/O, system calls, code that is not rewritten) %d times, and when those waits ended was up to the operating system, not explored: no claim that all schedules were explored", name, x.detaches)
		}
		exhausted = false
		x.truncated = true
	}
	if x.quiet > 0 {
		// Between two readings of the memory statistics a goroutine's
		// locks and atomics took no scheduling point (engine/quiet.go):
		// the orders of those operations were not explored.
		if exhausted {
			x.withhold("heddle: %s ended, but %d lock and atomic operations between readings of the memory statistics (testing.AllocsPerRun, runtime.ReadMemStats) ran without scheduling points, not explored: no claim that all schedules were explored", name, x.quiet)
		}
		exhausted = false
		x.truncated = true
	}
	if x.unstepped > 0 {
		// A file handed to the standard library that keeps it (a
		// bufio.Writer, a log.Logger on it) is read or written there in
		// no step (rt/file.go): the orders of those accesses were not
		// explored.
		if exhausted {
			x.withhold("heddle: %s ended, but files were handed %d times to standard library code that reads or writes them later (bufio, log, encoders), not in steps heddle explores: no claim that all schedules were explored", name, x.unstepped)
		}
		exhausted = false
		x.truncated = true
	}
	if inc, ok := strat.(strategy.Incompleter); ok {
		if why := inc.Incomplete(); why != "" {
			if exhausted {
				x.withhold("heddle: %s ended, but %s: no claim that all schedules were explored", name, why)
			}
			exhausted = false
			x.truncated = true
		}
	}
	if b := x.spinBoundOf(strat); b > 0 && (exhausted || cfg.Unit != nil && cfg.Replay == "") {
		// Polling goroutines were kept from running while others could
		// (the engine's dropSpinners, the strategy's spinTracker): the
		// schedules in which they poll on were not run, and a loop that
		// polls a bounded number of times ends in them (spinClaim). A
		// unit's runs, finished or not, bound the test's claim
		// (cmd/heddle merges the units' summaries).
		if exhausted && cfg.Unit == nil {
			x.t.Logf("heddle: %s ended, but goroutines polling without progress were kept from running while others could: every schedule in which no goroutine polls more than %d times in a row while another can run was explored, not the others (-keep-spinners explores them, but a loop that polls until another goroutine acts then has schedules without end)", name, b)
		}
		exhausted = false
		x.spinBound = b
	}
	if cfg.Unit != nil && cfg.Replay == "" {
		x.unitSummary(strat, fatal, exhausted, first, start, racesBefore)
		return
	}
	proven, races := "", ""
	if p, ok := strat.(strategy.Prover); ok && x.bugs == 0 && !x.truncated {
		if proven = x.spinClaim(p.Proven()); proven != "" {
			if x.usedRand {
				proven += fmt.Sprintf(" (for the map orders and math/rand numbers of -seed %d)", cfg.Seed)
			}
			proven += ", no bug"
			var clause string
			clause, races = x.racesClause(racesBefore)
			proven += clause + x.aloneClause()
			x.t.Logf("heddle: %s", proven)
		}
	}
	made := max(x.runs-first+1, 0) // runs made, a shard's range counted from its first
	if x.interrupted {
		x.t.Logf("heddle: interrupted after %d runs (%v)", made, elapsed.Round(time.Millisecond))
	}
	if x.capHit && x.bugs == 0 && !x.interrupted {
		x.t.Logf("heddle: %s: stopped after %d of %d runs at the default budget's bound of %v per test (a run took about %v): -budget %d makes every run, -budget 10m explores for 10 minutes", x.name(), made, cfg.Runs, cfg.RunsCap, (elapsed / time.Duration(max(made, 1))).Round(time.Millisecond), cfg.Runs)
	}
	sum := event.Event{Action: event.Summary, Capped: x.capHit && x.bugs == 0 && !x.interrupted, Runs: made, Bugs: x.bugs, Elapsed: elapsed.Seconds(), Strategy: name, Exhausted: exhausted, SpinBound: x.spinBound, Budget: cfg.Budget, Proven: proven, Races: races, Interrupted: x.interrupted, Parallel: x.topParallel, Group: cfg.Group, FreshRuns: x.freshMade, Trace: x.firstTrace, BoundRuns: x.boundRuns}
	if !exhausted {
		sum.NoClaim = x.noClaim
	}
	if cr, ok := strat.(strategy.ClassReporter); ok {
		sum.Classes, sum.LazyClasses = cr.Classes()
		x.t.Logf("heddle: %d happens-before classes, %d lazy happens-before classes", sum.Classes, sum.LazyClasses)
	}
	if cv, ok := strat.(interface{ Coverage() int }); ok {
		sum.Coverage = cv.Coverage()
		x.t.Logf("heddle: %d HaPSet pairs covered (a measure of coverage, not a proof)", sum.Coverage)
	}
	if w, ok := strat.(strategy.Warner); ok {
		sum.Warnings = w.Warnings()
		for _, m := range sum.Warnings {
			x.t.Logf("heddle: warning: %s (run -strategy odpor for a proof)", m)
		}
	}
	x.emit(sum)
	x.emit(event.Event{Action: action, Elapsed: elapsed.Seconds()})
}

// exec runs one execution with the watchdog armed.
func (x *explorer) exec(ec engine.Config, s engine.Strategy, rs *runT) *engine.Result {
	if limit := max(x.cfg.StepLimit, x.measureCap); ec.StepLimit <= 0 || ec.StepLimit > limit {
		ec.StepLimit = limit
	}
	ec.KeepSpinners = ec.KeepSpinners || x.cfg.KeepSpinners
	if f := x.cfg.FairAfter; f > 0 && ec.FairAfter == 0 && f < ec.StepLimit {
		// The bound was raised (steplimit.go): runs are scheduled as
		// under the bound they were first made with, and fairly after.
		ec.FairAfter, ec.PostMainMax = f, f
	}
	ec.TraceMax = x.traceMax()
	if !x.cfg.Main {
		// runtime.NumGoroutine counts the test binary's main goroutine,
		// which natively waits in t.Run for the test (or runs an example
		// beside the goroutine copying its output).
		ec.OtherGoroutines = 1
	}
	if ec.FairSteps == 0 {
		ec.FairSteps = x.cfg.FairSteps
	}
	ec.MaxHeap = x.cfg.MaxMemory
	ec.Deadline = x.deadline
	ec.Stop = &interrupted
	// A run going at the end of a time budget gets a fortieth of the
	// budget more to end by itself, so that it leaves the program's state
	// as a whole run does (see engine.Config.Grace); no more, so that
	// -budget is kept within a few percent. (It was a tenth when the tests
	// after it ran in the same process.)
	ec.Grace = x.cfg.Time / graceShare
	x.output.newRun()
	ec.NoLeaks = x.disabled(engine.KindLeak)
	ec.MaxStarve = x.cfg.MaxStarve
	ec.LateWake = !x.cfg.NoLateWake
	ec.TimeLimit = x.cfg.TimeLimit
	ec.Epoch = x.cfg.Epoch
	ec.Progress = &x.progress
	ec.Pool = &x.pool
	ec.Procs = x.procs
	ec.Stuck = x.stuck
	ec.NativePartners = x.partnered || x.natives > 0
	if p, ok := s.(interface{ DetachPlan() []engine.Detached }); ok && ec.Detached == nil {
		// A replay detaches goroutines where the recorded run did
		// (engine/detachplan.go).
		ec.Detached = p.DetachPlan()
	}
	if p, ok := s.(interface {
		DetachPrefix() ([]engine.Detached, int)
	}); ok && ec.Detached == nil {
		// An exploration's run replays a prefix of the run before it
		// (DPOR): it follows that run's detaches in the prefix.
		ec.Detached, ec.FollowPoints = p.DetachPrefix()
	}
	x.startedAfter = x.leftAfterFuncs
	res := engine.Run(ec, s, func() {
		rs.attach(engine.Current())
		defer rs.finish()
		rs.runBody(&rs.root, func() { require.Test(x.body, x.t) })
	})
	x.leftAfterFuncs = res.PendingAfterFuncs
	x.partnered = x.partnered || res.Partnered || res.Natives > 0
	x.mainResult(res)
	if res.Internal != "" {
		// heddle failed, not the test: no report, no schedule, and no
		// further run, which would only meet the same failure.
		x.t.Fatalf("heddle: internal error (a bug in heddle, not in the test): %s", res.Internal)
	}
	return res
}

// keptCleanups says, for a run's message, how many of the test's cleanups
// it did not run because a goroutine was still away (runCleanups).
func keptCleanups(rs *runT) string {
	if rs.keptCleanups == 0 {
		return ""
	}
	return fmt.Sprintf(", its cleanups not run (%d: go test runs them once the test's goroutines returned, and what they free may still be in use)", rs.keptCleanups)
}

// watchdog closes x.stuck when a run makes no progress for RunTimeout.
func (x *explorer) watchdog() {
	timeout := x.cfg.RunTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	tick := time.NewTicker(timeout / 10)
	defer tick.Stop()
	last, since := x.progress.Load(), time.Now()
	var computing time.Time // since when the running goroutine computes without a step
	for {
		select {
		case <-x.stop:
			return
		case now := <-tick.C:
			if p := x.progress.Load(); p != last {
				last, since, computing = p, now, time.Time{}
				continue
			}
			if e := engine.Active(); e != nil && now.Sub(since) >= timeout {
				if e.Computing() {
					if computing.IsZero() {
						computing = since
					}
					if d := now.Sub(computing); d < computeLimit(timeout) {
						// Slow (a long computation, a loaded machine), not
						// blocked: look again after another timeout.
						fmt.Fprintf(os.Stderr, "heddle: %s: no scheduling step for %v, but the running goroutine is computing, not blocked: waiting on\n", x.t.Name(), d.Round(time.Second))
						since = now
						continue
					}
					// A loop that does not end: natively go test's
					// -timeout ends the whole test binary, with every
					// test's result (gocron's catch-up loops once held
					// heddle so for ten minutes). The run ends with a
					// report instead.
					e.MarkComputing(now.Sub(computing))
				}
				close(x.stuck)
				return
			}
			if engine.Active() == nil {
				since, computing = now, time.Time{}
			}
		}
	}
}

// computeLimit is how long the watchdog lets the running goroutine compute
// without reaching a scheduling point before it ends the run: six times
// the time it waits for a goroutine blocked outside heddle's control, and
// at most a minute (the default; heddle replay, which waits a day for a
// blocked goroutine, ends an endless computation as the exploration
// did). A test whose run computes longer than that between two
// operations on channels, locks, atomics or the clock is rare; a loop
// that never ends would otherwise hold heddle until go test's -timeout.
func computeLimit(timeout time.Duration) time.Duration {
	return min(6*timeout, time.Minute)
}

func seedFor(seed int64, run int) uint64 {
	return uint64(seed)*0x9e3779b97f4a7c15 + uint64(run)
}

// classify returns the run's bug: the engine's, or a test failure.
func classify(res *engine.Result, rs *runT) *engine.Bug {
	if b := rs.goexitBug(res); b != nil {
		return b
	}
	if rs.failed && (res.Bug == nil || res.Bug.Kind == engine.KindLeak || res.Bug.Kind == engine.KindFail) {
		msg := rs.headline()
		if msg == "" {
			msg = "test failed"
		}
		g := res.Gs[0]
		if res.Bug != nil && res.Bug.G != nil {
			g = res.Bug.G
		}
		return &engine.Bug{Kind: engine.KindFail, Message: msg, G: g}
	}
	return res.Bug
}

func (x *explorer) disabled(kind string) bool {
	for _, k := range x.cfg.Disable {
		if k == kind {
			return true
		}
	}
	return false
}

// childExit returns the status of the os.Exit that ended the run, when
// the process is a test binary a test started (Config.Child): it ends the
// process with it, as natively, where a test would report it as a bug.
func childExit(cfg Config, res *engine.Result) (int, bool) {
	b := res.Bug
	if !cfg.Child || b == nil || b.Kind != engine.KindFail {
		return 0, false
	}
	n, ok := strings.CutPrefix(b.Message, "exit status ")
	if !ok {
		return 0, false
	}
	code, err := strconv.Atoi(n)
	return code, err == nil
}

// randSeed is the seed of the program's random numbers in run number run
// of strategy s: fixed for systematic strategies, which replay prefixes of
// earlier runs, and new for each run otherwise.
func (x *explorer) randSeed(s engine.Strategy, run int) uint64 {
	if fr, ok := s.(strategy.FixedRandom); x.prover || ok && fr.FixedRandom() {
		return seedFor(x.cfg.Seed, 1)
	}
	return seedFor(x.cfg.Seed, run)
}

// warmUp prepares the replay of a schedule recorded at run k: it runs the
// recorded strategy, with the recorded seed, through the runs the
// exploration's process made before run k (from its first, Schedule.Before),
// and the replays it made between them (the determinism check after run 2,
// the replays of a report), so that state the program keeps across runs
// (a sync.Once, a cache or a buffered channel in a package variable) is
// what it was when the bug was found. It returns the seed of run k's
// random numbers, and whether it was cut by the deadline of a report's
// replay (Config.Deadline): run k would not start from the state it did.
func (x *explorer) warmUp(s *schedule.Schedule) (uint64, bool) {
	seed := seedFor(s.Seed, s.Run)
	if s.Strategy == "" || s.Strategy == "replay" {
		return seed, false
	}
	first, extra := parseBefore(s.Before)
	warm, err := strategy.New(s.Strategy, strategy.Options{Seed: s.Seed, PCTDepth: x.cfg.PCTDepth})
	if err != nil {
		return seed, false
	}
	if s.Run <= first && len(extra) == 0 {
		// Nothing to run before it; an exhaustive strategy kept run 1's
		// random numbers.
		if _, ok := warm.(strategy.Prover); ok {
			seed = seedFor(s.Seed, 1)
		}
		return seed, false
	}
	saved := x.cfg.Seed
	x.cfg.Seed = s.Seed
	defer func() { x.cfg.Seed = saved }()
	if x.main != nil {
		x.main.warming = true // main's output is the replayed run's only
		defer func() { x.main.warming = false }()
	}
	prover := x.prover
	_, x.prover = warm.(strategy.Prover)
	defer func() { x.prover = prover }()
	trace := false
	if tn, ok := warm.(strategy.TraceNeeder); ok {
		trace = tn.NeedsTrace()
	}
	for run := 1; run < s.Run; run++ {
		if !warm.Begin(run) {
			break
		}
		if run < first {
			// Runs another process made (a -parallel or -shard unit
			// starts at its first): the strategy goes through them
			// without running the program.
			warm.End(&engine.Result{})
			continue
		}
		if !x.cfg.Deadline.IsZero() && time.Now().After(x.cfg.Deadline) {
			return seed, true
		}
		rs := x.newRunT()
		seed := x.randSeed(warm, run)
		res := x.exec(engine.Config{Seed: seed, Trace: trace || extra[run] != ""}, warm, rs)
		if res.OverTime && !x.cfg.Deadline.IsZero() {
			return seed, true
		}
		warm.End(res)
		if run == first {
			x.firstKeys, x.firstSeed = runKeys(res), seed
		}
		for _, what := range strings.Split(extra[run], ",") {
			switch what {
			case "check":
				x.exec(engine.Config{Seed: seed, Trace: true}, strategy.NewReplay(runKeys(res)), x.newRunT())
			case "rerun":
				x.rerunFirst()
			case "fair":
				x.measureFair(seed)
			case "replay", "replay+early":
				keys := runKeys(res)
				began := time.Now()
				res2, rs2, firings := x.recordedReplay(keys, seed)
				if what == "replay+early" {
					if b := classify(res2, rs2); b != nil && res2.OverMemory == "" && !res2.OverTime {
						x.earlyNeeded(b, keys, res2.Steps, time.Since(began), seed, firings)
					}
				}
			}
		}
	}
	// Run k's random numbers are those of the member of the portfolio
	// that made it, which Begin picks: fixed (run 1's) for a systematic
	// one, run k's for a randomized one. Taken before Begin, they were
	// those of run k-1's member (moby/pubsub's TestSendToMultipleSubs,
	// found at run 8 by random after idb's run 7, ranged over its map of
	// subscribers in another order in its replay, and diverged).
	warm.Begin(s.Run)
	seed = x.randSeed(warm, s.Run)
	if strings.Contains(extra[s.Run], "fair") {
		x.measureFair(seed) // before the run was made again (steplimit.go)
	}
	if n := engine.RaceErrors(); n > x.races {
		x.races = n
	}
	return seed, false
}

// cutMessage is the message of the replay event of a report's replay in a
// new process that its deadline cut (Config.Deadline).
const cutMessage = "cut at the time budget"

// freshCut says that this replay of a report (Config.ReportRun or Avoid)
// was cut at its deadline: it decides nothing.
func (x *explorer) freshCut() {
	x.emit(event.Event{Action: event.Replayed, Kind: "unknown", Message: cutMessage})
}

// avoided replays the schedule keeping the timers Config.Avoid names from
// firing early (earlyNeeded's replay, in a new process: freshAvoided), and
// emits how the run ended: a replay event with the bug's kind ("unknown"
// when the run was cut short) and where it happened (Key).
func (x *explorer) avoided(s *schedule.Schedule, seed uint64, rs *runT) {
	a := &avoidEarly{keys: s.Choices, avoid: avoidModes[x.cfg.Avoid], target: x.cfg.AvoidTarget}
	res := x.exec(avoidConfig(seed, x.cfg.Avoid, s.Kind, x.cfg.AvoidLimit, x.cfg.AvoidKeep, x.cfg.AvoidTarget), a, rs)
	e := event.Event{Action: event.Replayed, Steps: res.Steps}
	switch b := classify(res, rs); {
	case a.settled:
		e.Kind = "settled" // the target returned without the bug
	case res.OverMemory != "" || res.OverTime || (res.Bug != nil && res.Bug.Kind == engine.KindStepLimit && s.Kind != engine.KindStepLimit):
		e.Kind = "unknown"
	case b != nil && b.Kind == engine.KindStepLimit && b.Clock:
		e.Kind, e.Key = b.Kind, clockPlace
	default:
		e.Kind, e.Key = x.avoidOutcome(res, b, s.Kind)
	}
	x.emit(e)
}

// beforeText is what a schedule recorded at run records of the executions
// before it (Schedule.Before): the first run of the process and the
// replays made after a run, "first=N R:what ...".
func (x *explorer) beforeText(run int) string {
	var parts []string
	if x.first > 1 {
		parts = append(parts, fmt.Sprintf("first=%d", x.first))
	}
	for _, b := range x.before {
		var r int
		// A fair run (steplimit.go) is made before the run it is
		// recorded at is made again.
		if _, err := fmt.Sscanf(b, "%d:", &r); err == nil && (r < run || r == run && strings.HasSuffix(b, ":fair")) {
			parts = append(parts, b)
		}
	}
	return strings.Join(parts, " ")
}

// parseBefore reads Schedule.Before: the first run, and what was replayed
// after a run.
func parseBefore(s string) (first int, extra map[int]string) {
	first, extra = 1, map[int]string{}
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(f, "first="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				first = n
			}
			continue
		}
		r, what, ok := strings.Cut(f, ":")
		if n, err := strconv.Atoi(r); ok && err == nil {
			if extra[n] != "" {
				what = extra[n] + "," + what // in the order they were made
			}
			extra[n] = what
		}
	}
	return first, extra
}

// nondeterministic says that the test cannot be explored: it is
// nondeterministic by itself, which is a flaw of the test as heddle's
// input, not a bug of the code. Exploring it further would only report
// what no schedule reproduces. The test passes, unless
// -strict-nondeterminism made this a bug.
func (x *explorer) nondeterministic(run int, res *engine.Result, bug *engine.Bug) {
	x.t.Helper()
	why := strings.TrimPrefix(bug.Message, "the test is nondeterministic by itself: ")
	text := fmt.Sprintf("heddle: cannot explore %s: it is nondeterministic by itself (run %d): %s\n"+
		x.uncontrolledNote()+
		"  This is not a bug in the code, and the test was not explored further. Make what it does depend only on its schedule:\n"+
		"  draw random numbers from math/rand (its functions, or a source made with rand.NewSource, which heddle seeds per\n"+
		"  run), not from a source of your own, read the clock through package time in code heddle rewrites, and reset\n"+
		"  package state at the start of the test.\n"+
		"  (-strict-nondeterminism makes this fail the test.)\n",
		x.name(), run, why)
	x.gaveUp = true
	x.emit(event.Event{Action: event.Nondeterministic, Kind: engine.KindNondeterminism, Message: bug.Message, Run: run, Steps: res.Steps, Report: text})
	x.t.Log("\n" + text)
}

// uncontrolledNote names, for a test that ran differently under one
// schedule, what heddle saw run outside its control during the runs: the
// likely cause, which the generic list of causes does not single out.
func (x *explorer) uncontrolledNote() string {
	var note string
	if x.natives > 0 {
		note += fmt.Sprintf("  During its runs, goroutines heddle does not control (started in init, by a finalizer, or by code that is not\n"+
			"  rewritten) ran %d calls of rewritten code natively, at instants of real time (a ticker of a package-level\n"+
			"  pool or cache, say): what they do is not part of the schedule.\n", x.natives)
	}
	if x.detaches > 0 {
		note += fmt.Sprintf("  During its runs, goroutines waited %d times in code heddle does not control (I/O, a subprocess, a lock of\n"+
			"  code that is not rewritten): when they come back is not part of the schedule.\n", x.detaches)
	}
	return note
}

// checkDeterminism replays a run and compares the steps: a test
// whose behaviour under a fixed schedule changes from run to run cannot be
// explored or replayed faithfully.
func (x *explorer) checkDeterminism(first *engine.Result, seed uint64) *engine.Bug {
	keys := runKeys(first)
	rs := x.newRunT()
	res := x.exec(engine.Config{Seed: seed, Trace: true}, strategy.NewReplay(keys), rs)
	x.natives += res.Natives
	x.detaches += res.Detaches
	if res.OverMemory != "" || res.OverTime {
		return nil // the next run that grows so says so; or the budget is spent
	}
	if d := diff(first.Trace, res.Trace); d != "" {
		return &engine.Bug{Kind: engine.KindNondeterminism, Message: "the test is nondeterministic by itself: the same schedule ran differently twice (" + d + "); it depends on something heddle does not control, such as wall-clock time read by code that is not rewritten, state kept across runs, or I/O", G: first.Gs[0]}
	}
	if res.Bug != nil && res.Bug.Kind == engine.KindNondeterminism {
		b := *res.Bug
		b.Message = "the test is nondeterministic by itself: " + b.Message
		return &b
	}
	return nil
}

func diff(a, b []engine.Step) string {
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	for i := 0; i < n; i++ {
		if gid(a[i].G) != gid(b[i].G) || a[i].Kind != b[i].Kind {
			return fmt.Sprintf("step %d was %s %s, then %s %s", i+1, gid(a[i].G), a[i].Kind, gid(b[i].G), b[i].Kind)
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("step %d was in one run and not in the other: %d steps, then %d", n+1, len(a), len(b))
	}
	return ""
}

func gid(g *engine.G) string {
	if g == nil {
		return "timer"
	}
	return g.ID
}

// runKeys returns the keys of a run's choices, and with them, last, where
// its goroutines were detached in code heddle does not control
// (strategy.WithDetached): what a replay of the run follows.
func runKeys(res *engine.Result) []string {
	return strategy.WithDetached(choiceKeys(res.Choices), res.Detached)
}

func choiceKeys(cs []engine.Choice) []string {
	keys := make([]string, len(cs))
	for i, c := range cs {
		keys[i] = c.Key()
	}
	return keys
}

func readSchedule(path string) (*schedule.Schedule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := schedule.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// writeTemp writes s to a new file in dir named by pattern (os.CreateTemp)
// and returns its name; on an error the file is removed.
func writeTemp(dir, pattern string, s *schedule.Schedule) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	if err := s.Write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// writeSchedule writes the schedule of a bug and returns its path.
func (x *explorer) writeSchedule(run int, bug *engine.Bug, keys []string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, x.scheduleTest(), bug.Kind, strings.Join(keys, ","))
	if x.cfg.Main {
		fmt.Fprintln(h, x.cfg.Args) // heddle run: one program, many argument lists
	}
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	choices, detached := strategy.SplitDetached(keys)
	dir := x.cfg.OutDir
	if dir == "" {
		dir = os.TempDir()
	}
	if x.cfg.Package != "" {
		dir = filepath.Join(dir, sanitize(x.cfg.Package))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, sanitize(x.name())+"-"+bug.Kind+"-"+sum+".sched")
	if x.cfg.Unit != nil {
		// Said before the file (or its temporary) exists: a worker
		// killed before it reports the bug leaves it to heddle.
		x.emit(event.Event{Action: event.Writing, Schedule: path})
	}
	s := &schedule.Schedule{
		Test:        x.scheduleTest(),
		Package:     x.cfg.Package,
		Dir:         x.cfg.Dir,
		Version:     x.cfg.Version,
		Fingerprint: x.cfg.Fingerprint,
		Files:       x.cfg.Files,
		Flags:       x.cfg.BuildFlags,
		Kind:        bug.Kind,
		Message:     bug.Message,
		Strategy:    x.cfg.Strategy,
		Seed:        x.cfg.Seed,
		Run:         run,
		Before:      x.beforeText(run),
		Choices:     choices,
		Detached:    engine.FormatDetached(detached),
		Settings:    x.cfg.Settings(),
		Extra:       x.groupExtra(x.scheduleExtra()),
	}
	// Written through a rename: processes sharing the directory (the
	// shards of one exploration) may write the same schedule at once, and
	// a reader must never see it half written.
	tmp, err := writeTemp(dir, filepath.Base(path)+".*.tmp", s)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o666); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		// Another run or process wrote it first (it may have reported
		// it): a duplicate dropped here must leave it in place.
		x.seen["existed "+path] = true
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, nil
}

// spinBoundOf is the spin bound of the schedules explored (SpinClaim): the
// fewest polls in a row after which the engine (engine.SpinDrop) or strat
// (strategy.SpinBounder) kept a goroutine from running while another could,
// or 0 if neither did.
func (x *explorer) spinBoundOf(strat engine.Strategy) int {
	b := 0
	if x.spinDrops > 0 {
		b = engine.SpinDrop
	}
	if sb, ok := strat.(strategy.SpinBounder); ok {
		if s := sb.SpinBound(); s > 0 && (b == 0 || s < b) {
			b = s
		}
	}
	return b
}

// spinClaim words proof, what the strategy proved, for the schedules it
// covered when goroutines that polled were kept from running (spinBound;
// SpinClaim).
func (x *explorer) spinClaim(proof string) string {
	return SpinClaim(proof, x.spinBound)
}

// withhold logs why the strategy ended but claims nothing, and keeps the
// first such reason for the summary (event.Event.NoClaim).
func (x *explorer) withhold(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	x.t.Logf("%s", msg)
	if x.noClaim == "" {
		x.noClaim = msg
	}
}

// SpinClaim words proof, what an exhaustive strategy proved, for the
// schedules it covered when goroutines that polled bound times in a row
// were kept from running while others could (event.Event.SpinBound):
// "all schedules explored" becomes "all schedules in which no goroutine
// polls more than 4 times in a row while another can run explored", and
// so on for the bounded strategies' words. proof as it is when bound is
// 0, or when it already says so.
func SpinClaim(proof string, bound int) string {
	if proof == "" || bound == 0 {
		return proof
	}
	q := fmt.Sprintf(" in which no goroutine polls more than %d times in a row while another can run", bound)
	if strings.Contains(proof, q) {
		return proof
	}
	if i := strings.Index(proof, " explored"); i >= 0 {
		return proof[:i] + q + proof[i:]
	}
	return proof + "," + q
}
