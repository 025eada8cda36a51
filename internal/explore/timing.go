package explore

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"heddle.dev/internal/engine"
)

// KindTiming is the verdict on a test that fails only when a timer fires
// early in a way the test did not allow for (earlyNeeded says which): the
// test assumes the machine is never slower than some duration (or that a
// goroutine that can run never waits -max-starve to run). It is not a
// bug of the code under test, and is reported apart (it fails the run only
// with -strict-timing).
const KindTiming = "timing"

// earlyFiring is a timer that fired (or a sleeper that woke) while other
// goroutines could run, in a recorded run.
type earlyFiring struct {
	step  int           // the step of the firing
	name  string        // "timer g0/t1" or "the sleep of g0"
	early time.Duration // how long the goroutine that could run had waited
	pc    uintptr       // where the timer was armed
	test  bool          // armed by the test's own code (testTimer)
	sleep bool          // a time.Sleep's
	// helper: armed in a package only the tests import (testOnlyPC),
	// such as testify's assert.Eventually or a mock clock: the test's
	// harness waiting on its behalf.
	helper bool
	// late: a late wake, the clock moving on with no timer while a
	// goroutine waited to run (engine/latewake.go). It is neither the
	// test's timer nor a sleep.
	late bool
}

// lateName is how reports name a late wake.
const lateName = "a late wake"

// earlyWatch wraps a strategy and notes every early firing it chooses.
type earlyWatch struct {
	engine.Strategy
	firings []earlyFiring
}

// DetachPlan is the wrapped strategy's, if it replays a run whose
// goroutines were detached (strategy.Replay).
func (w *earlyWatch) DetachPlan() []engine.Detached {
	if p, ok := w.Strategy.(interface{ DetachPlan() []engine.Detached }); ok {
		return p.DetachPlan()
	}
	return nil
}

func (w *earlyWatch) Choose(p *engine.Point) int {
	i := w.Strategy.Choose(p)
	if i >= 0 && i < len(p.Choices) && slowEarly(p.Choices[i].Early) {
		c := p.Choices[i]
		t := timerOf(c)
		f := earlyFiring{step: p.Step + 1, early: c.Early}
		if c.Timer.Late() {
			f.name, f.late = lateName, true
		} else if c.Timer != nil {
			f.name = "timer " + c.Timer.ID()
		} else {
			f.name = "the sleep of " + c.G.ID
		}
		if t != nil && !f.late {
			f.pc = t.PC
			f.test = testTimer(t)
			f.sleep = t.Sleep()
			f.helper = testOnlyPC(t.PC)
		}
		w.firings = append(w.firings, f)
	}
	return i
}

// slowEarly reports whether a firing early by early (engine.Choice.Early:
// how long the goroutine that could run had waited, 1ns if none had yet)
// is one that only a slow machine makes, which the verdicts on timing look
// at. One that starved the goroutines that could run less than
// engine.SameInstant is not: natively timers due that close together fire
// in one pass and their goroutines run in either order, the last readied
// first (a sleep as long as a context's timeout, started a clock read
// later, mostly wakes first; `go f(); time.Sleep(time.Nanosecond)` wakes
// before f runs). It is an order of the runs like any other, and a
// failure that needs it is a bug, not a timing-dependent test.
func slowEarly(early time.Duration) bool {
	return early >= engine.SameInstant
}

// forcedFirings are the early firings of a recorded run that no strategy
// chose: a timer or sleeper left as the only choice (the goroutines that
// could run were spinning and set aside), which earlyWatch does not see.
func forcedFirings(trace []engine.Step, seen []earlyFiring) []earlyFiring {
	chosen := map[int]bool{}
	for _, f := range seen {
		chosen[f.step] = true
	}
	var out []earlyFiring
	for _, st := range trace {
		if !slowEarly(st.Early) || chosen[st.N] {
			continue
		}
		f := earlyFiring{step: st.N, early: st.Early, pc: st.PC}
		if st.G != nil && st.Kind == engine.OpSleep {
			f.name, f.sleep = "the sleep of "+st.G.ID, true
		} else if st.G == nil && st.Timer == engine.LateWakeID {
			f.name, f.late = lateName, true
		} else {
			f.name = "timer " + st.Timer
		}
		f.test = testPC(st.PC)
		f.helper = testOnlyPC(st.PC)
		out = append(out, f)
	}
	return out
}

// timerOf returns the timer an early choice fires: the timer, or the
// sleeping goroutine's.
func timerOf(c engine.Choice) *engine.Timer {
	if c.Timer != nil {
		return c.Timer
	}
	if c.G != nil {
		return c.G.Pending().Timer
	}
	return nil
}

// testTimer reports whether the test's own code armed t: the call site is
// in a _test.go file, in the body of a Test, Example, Fuzz or Benchmark
// function or a function literal in it (a t.Run subtest, a goroutine the
// test starts), or in a package that only the tests import (testOnlyPC:
// testify, a mock clock). A timer armed by the code under test, or by
// helpers of the package's test files that are not test functions
// (GoKer's kernels, test doubles), is the code's: its firing early is
// something production can see, and a bug it causes stays a bug.
func testTimer(t *engine.Timer) bool {
	return t != nil && testPC(t.PC)
}

// testPC reports whether pc, where a timer was armed, is in the test's own
// code (see testTimer).
func testPC(pc uintptr) bool {
	if pc == 0 {
		return false
	}
	p := engine.PositionOf(pc)
	if inTestOnly(p.Func) || inTestOnlyDir(p.File) {
		return true
	}
	if !strings.HasSuffix(p.File, "_test.go") {
		return false
	}
	fn := p.Func
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	// pkg.TestX.func1.2 -> TestX
	parts := strings.Split(fn, ".")
	if len(parts) < 2 {
		return false
	}
	return isTestFunc(parts[1])
}

// testOnly is the set of packages the test binary imports only for the
// tests (Config.TestOnly), set when an exploration starts.
var testOnly map[string]bool

// testOnlyDirs are the directories of the test-only packages that are in
// the tree of the package under test (a helper package of its module),
// set with testOnly.
var testOnlyDirs map[string]bool

// setTestOnly makes the packages of paths test-only (testOnly), and finds
// the directories of those of them that are in the tree of pkg, in dir
// (testOnlyDirs): an import path and a directory that end with the same
// elements (pkg's, and its module's) map the rest of the one to the rest
// of the other.
func setTestOnly(paths []string, pkg, dir string) {
	testOnly = make(map[string]bool, len(paths))
	testOnlyDirs = map[string]bool{}
	for _, p := range paths {
		testOnly[p] = true
	}
	if pkg == "" || dir == "" {
		return
	}
	root, rootDir := pkg, filepath.ToSlash(filepath.Clean(dir))
	for {
		i, j := strings.LastIndexByte(root, '/'), strings.LastIndexByte(rootDir, '/')
		if i < 0 || j < 0 || root[i:] != rootDir[j:] {
			break
		}
		root, rootDir = root[:i], rootDir[:j]
	}
	for _, p := range paths {
		if strings.HasPrefix(p, root+"/") {
			testOnlyDirs[rootDir+p[len(root):]] = true
		}
	}
}

// inTestOnlyDir reports whether file is in the directory of a test-only
// package (testOnlyDirs). A helper the compiler inlined into a test names
// its function literals after the test's package (failsafe-go's
// internal/testutil.ContextWithCancel, whose goroutine sleeps, inlined into
// a test, is pkg.TestX.func1.ContextWithCancel.func1): their timers are
// found test-only by their file.
func inTestOnlyDir(file string) bool {
	return file != "" && len(testOnlyDirs) > 0 && testOnlyDirs[filepath.ToSlash(filepath.Dir(file))]
}

// testOnlyPC reports whether pc, where a timer was armed, is in a package
// only the tests import (Config.TestOnly): code that exists for the tests,
// whose timers wait on the test's behalf (testify's assert.Eventually
// polls on a ticker, a mock clock sleeps to let its waiters run).
func testOnlyPC(pc uintptr) bool {
	if pc == 0 || len(testOnly) == 0 {
		return false
	}
	p := engine.PositionOf(pc)
	return inTestOnly(p.Func) || inTestOnlyDir(p.File)
}

// inTestOnly reports whether the function named fn (as the runtime names
// it: path/to/pkg.F, path/to/pkg.(*T).M.func1) is in a test-only package.
func inTestOnly(fn string) bool {
	if len(testOnly) == 0 {
		return false
	}
	slash := strings.LastIndexByte(fn, '/') + 1
	for i := slash; i < len(fn); i++ {
		if fn[i] == '.' && testOnly[fn[:i]] {
			return true
		}
	}
	return false
}

// isTestFunc reports whether name is the name go test gives a test,
// example, fuzz target or benchmark.
func isTestFunc(name string) bool {
	for _, prefix := range []string{"Test", "Example", "Fuzz", "Benchmark"} {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := name[len(prefix):]
		if rest == "" {
			return true
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return !unicode.IsLower(r)
	}
	return false
}

// avoidEarly replays recorded choices but never fires early a timer that
// avoid selects; where the recorded choice is such a firing, or is not
// enabled, it looks a few choices ahead, and else lets the goroutine that
// ran last go on. It tells whether a bug needs those early firings.
//
// With a target (the goroutine a panic or misuse happened in), off the
// recorded choices it runs the target whenever it can, else the goroutine
// that waited longest, and it ends the run (settled) as soon as the target
// has returned: the bug, which only the target could have, did not happen.
// The tests a group explores beside the failing one need not run to their
// end for that (x/sync's semaphore tests: the hammering of TestWeighted
// went on for tens of thousands of steps after TestWeightedAcquire passed).
type avoidEarly struct {
	keys  []string
	next  int
	avoid func(*engine.Timer) bool
	until int // early firings up to this step are not avoided (clockNeeded)

	target  string    // id of the goroutine the bug happened in, or ""
	g       *engine.G // the target, once created
	settled bool      // the run was ended because the target returned
}

func (a *avoidEarly) Begin(run int) bool {
	a.next, a.g, a.settled = 0, nil, false
	return run == 1
}

func (a *avoidEarly) End(*engine.Result) {}

func (a *avoidEarly) Choose(p *engine.Point) int {
	ok := func(c engine.Choice) bool { return !slowEarly(c.Early) || p.Step+1 <= a.until || !a.avoid(timerOf(c)) }
	if a.target != "" {
		if a.g == nil {
			for _, g := range p.Exec.Gs() {
				if g.ID == a.target {
					a.g = g
					break
				}
			}
		}
		if a.g != nil && a.g.Done() {
			a.settled = true
			return engine.Diverged // ends the run
		}
	}
	for look := 0; look < 4 && a.next+look < len(a.keys); look++ {
		want := a.keys[a.next+look]
		for i, c := range p.Choices {
			if c.HasKey(want) && ok(c) {
				a.next += look + 1
				return i
			}
		}
	}
	if a.g != nil {
		best := -1
		for i, c := range p.Choices {
			if c.G == nil || !ok(c) {
				continue
			}
			if c.G == a.g {
				return i
			}
			if best < 0 || c.G.LastStep() < p.Choices[best].G.LastStep() {
				best = i
			}
		}
		if best >= 0 {
			return best
		}
	}
	if p.Prev >= 0 && ok(p.Choices[p.Prev]) {
		return p.Prev
	}
	for i, c := range p.Choices {
		if ok(c) {
			return i
		}
	}
	return 0
}

// avoidTarget is the goroutine whose return settles earlyNeeded's replay
// of a bug of kind (avoidEarly.target): the goroutine a panic or a misuse
// happened in, which no other goroutine can have in its place (a panic's
// place is its goroutine and frame, see explorer.where). None for other
// kinds: a deadlock or a leak is seen at the end of the run, and a failed
// assertion can come from any goroutine.
func avoidTarget(kind string, g *engine.G) string {
	if g == nil || kind != engine.KindPanic && kind != engine.KindMisuse {
		return ""
	}
	return g.ID
}

// avoidRecord reports whether earlyNeeded's replay avoiding the timers mode
// names, of a bug of kind, records positions: it needs them to tell whose
// timer fires (every mode but "all") and where a deadlock or leak blocks;
// a replay that records none runs several times faster.
func avoidRecord(mode, kind string) bool {
	return mode != "all" || kind != engine.KindFail && kind != engine.KindPanic && kind != engine.KindMisuse
}

// avoidConfig is the configuration of earlyNeeded's replay of a run of a
// bug of kind with seed, avoiding the early firings mode names, within
// limit steps, keeping spinning goroutines if keep. With a target the
// strategy chooses to the end (FairAfter), fairly.
func avoidConfig(seed uint64, mode, kind string, limit int, keep bool, target string) engine.Config {
	c := engine.Config{Seed: seed, Record: avoidRecord(mode, kind), StepLimit: limit, KeepSpinners: keep}
	if target != "" {
		c.FairAfter = limit
	}
	return c
}

// avoidSteps is the step bound of earlyNeeded's replays of a run of steps:
// twice the run, and at least 100,000 steps for a replay that records no
// positions (a group of parallel tests whose siblings hammer a semaphore
// with 10 µs sleeps takes tens of thousands of steps to let a 10 ms
// timeout fire when nothing can run), 10,000 for one that does (record),
// several times slower: a deadlock of ratelimit's TestSlack whose replay
// without early firings never ends took 10 s to reach 100,000 steps.
func avoidSteps(steps int, record bool) int {
	if record {
		return max(2*steps, 10000)
	}
	return max(2*steps, 100000)
}

// maxRechecks is how many more bugs at a place whose report was a timing
// verdict are checked (explorer.recheck).
const maxRechecks = 4

// timingAt notes that the bug at place key (a dedup key) made a timing
// verdict: it needed early firings. The same failure may happen without
// them on another schedule (ratelimit's TestSlack deadlocks either way):
// the next bugs there whose runs fired no timer early are checked again
// (recheck). Those of runs that did are taken for the same timing failure:
// checking each again costs a recorded replay (go-retry's TestDo fails so
// in most of its 200,000-step runs).
func (x *explorer) timingAt(key string) {
	if x.rechecks == nil {
		x.rechecks = map[string]int{}
	}
	if _, ok := x.rechecks[key]; !ok {
		x.rechecks[key] = 0
	}
}

// mayRecheck reports whether a bug at place key, reported already, may be
// checked again (recheck).
func (x *explorer) mayRecheck(key string) bool {
	n, ok := x.rechecks[key]
	return ok && n < maxRechecks
}

// recheck reports whether a bug at place key, reported already, is checked
// again, and counts it: the report there was a timing verdict, and at most
// maxRechecks bugs there are. One that does not need early firings is
// reported as a bug, and ends the rechecks there.
func (x *explorer) recheck(key string) bool {
	if !x.mayRecheck(key) {
		return false
	}
	x.rechecks[key]++
	return true
}

// firedEarly reports whether a run fired a timer early by a strategy's
// choice (not counting firings left as the only choice).
func firedEarly(res *engine.Result) bool {
	for _, c := range res.Choices {
		if slowEarly(c.Early) {
			return true
		}
	}
	return false
}

// reportAllowance is how long the replays that build the report of a bug
// found by a run that took lastRun and fired timers early may take, in
// this process and in new ones, whatever is left of the time budget:
// sixty times the run (a recorded replay took up to twenty-five times
// go-quartz's 0.87 s run, and the replays that decide a timing verdict
// run up to twice as many steps), between 10 s and two minutes. A recorded
// replay cut short leaves no early firings to check, and a timing check
// cut short decides nothing: the timing-dependent test stays a bug.
func reportAllowance(lastRun time.Duration) time.Duration {
	return min(max(60*lastRun, 10*time.Second), 2*time.Minute)
}

// timingAllowance is how long earlyNeeded's replays may take, from when
// they start, whatever is left of the time budget: three times what
// replays of their step bound take at the pace of the recorded replay
// (took for steps), between 10 s and a minute. The verdict needs them to
// end (a replay cut short decides nothing, and a timing-dependent test
// stays a bug), and their step bound ends them anyway.
func timingAllowance(took time.Duration, steps, limit int) time.Duration {
	d := 3 * time.Duration(float64(took)*float64(limit)/float64(max(steps, 1)))
	return min(max(d, 10*time.Second), time.Minute)
}

// earlyNeed says how a bug depends on timers firing early.
type earlyNeed int

const (
	earlyNotNeeded earlyNeed = iota // no early firing, or the bug happens without one
	earlyBug                        // it needs a timeout of the code to fire early: a bug
	earlyTiming                     // it needs a timing assumption to fail: a timing verdict
)

// assumption reports whether a timer's early firing breaks a timing
// assumption rather than exercising a timeout: the test's own timers
// (it waits a while and assumes its goroutines have run) and every
// time.Sleep (a sleep is a guess at how long other goroutines take, as in
// a mock clock that sleeps 1 ms to let the goroutines waiting on it run).
func assumption(t *engine.Timer) bool { return testTimer(t) || (t != nil && t.Sleep()) }

// earlyNeeded finds out whether the bug of the recorded run (its choices
// keys, the early firings it made) needs early firings, and what they
// mean. It replays the run without any early firing: if the same bug
// happens, the firings were incidental. Otherwise, by the bug's kind:
//
//   - a failed assertion (fail) is a timing verdict: the code took the
//     path a slow machine makes it take (its timeout fired, its sleep
//     ended first) and the test asserted it would not;
//   - a leak stays a bug: a goroutine left behind when a timeout fired
//     leaks whenever the timeout fires, whatever the machine's speed;
//     unless it needs only sleeps of the test's own code, or timers of
//     packages only the tests import, to end early: a sleep abandons
//     nothing, it is the test's guess at how long a goroutine takes to
//     start (`go c.Start(); time.Sleep(d); c.Stop()` leaks Start's loop
//     when Stop runs first, as ttlcache's Test_Cache_set does on a slow
//     machine), and a test helper's ticker (assert.Eventually polling
//     before Stop) is the same guess; a timing verdict;
//   - a deadlock, panic or misuse is a timing verdict when it needs only
//     timing assumptions to break (see assumption; for a panic or misuse,
//     only the test's own timers), and a bug when it still happens with
//     those kept from firing early: the code's timeout path is broken.
//
// A run ended by its time bound (a step-bound bug with Clock) is a bug
// whatever its early firings: the note lists only the first ones, up to
// the last the hang needs (clockNeeded); none when it hangs without any.
// It returns the early firings the report lists, and of a leak the
// goroutines that leak only with them, if others leak without (earlyKind).
func (x *explorer) earlyNeeded(bug *engine.Bug, keys []string, steps int, took time.Duration, seed uint64, firings []earlyFiring) (earlyNeed, []earlyFiring, []string) {
	if len(firings) == 0 {
		return earlyNotNeeded, nil, nil
	}
	switch bug.Kind {
	case engine.KindDeadlock, engine.KindLeak, engine.KindPanic, engine.KindFail, engine.KindMisuse:
	case engine.KindStepLimit:
		if !bug.Clock {
			return earlyBug, firings, nil // not decided by one replay
		}
		if needed := x.clockNeeded(keys, steps, took, seed, firings); len(needed) > 0 {
			return earlyBug, needed, nil
		}
		return earlyNotNeeded, nil, nil
	default:
		// A nondeterministic test, a race, a goroutine blocked outside
		// heddle: not decided by one replay.
		return earlyBug, firings, nil
	}
	need, needed, alone := x.earlyKind(bug, keys, steps, took, seed, firings)
	switch need {
	case earlyNotNeeded:
		return need, nil, nil
	case earlyBug:
		return need, needed, alone
	}
	return need, firings, nil
}

// earlyKind is earlyNeeded for a deadlock, leak, panic, failed assertion
// or misuse with early firings. Of a bug, it also returns the early
// firings it needs: those its replays did not show it can do without (a
// deadlock that still happens with the sleeps kept from ending early needs
// the others, go.uber.org/ratelimit's TestInitial its late wake). Of a
// leak whose replay without any early firing leaked some of its goroutines
// (the others ended), it returns those that leaked only with them (alone):
// suture's TestRemoveAndWait leaks a service told to hang on every
// schedule, and removeService's goroutine only when its timeout fires
// first.
func (x *explorer) earlyKind(bug *engine.Bug, keys []string, steps int, took time.Duration, seed uint64, firings []earlyFiring) (need earlyNeed, needed []earlyFiring, alone []string) {
	_, where := x.avoidOutcome(nil, bug, bug.Kind)
	// A replay kept from firing early may run on long past where the bug
	// was (a timeout that does not fire lets a loop go on): it is bounded
	// (avoidSteps), and a replay cut short decides nothing, so the bug
	// stays a bug. Its time is its own (timingAllowance), not what is
	// left of the budget: go-quartz's 168,000-step run and x/sync's group
	// of nine tests were cut at -budget 1s and stayed bugs.
	limit := func(mode string) int { return avoidSteps(steps, avoidRecord(mode, bug.Kind)) }
	if !x.deadline.IsZero() && x.cfg.Deadline.IsZero() {
		// In a new process (Config.Deadline), the replays are within
		// the allowance of the report that started it (reportAllowance).
		saved := x.deadline
		defer func() { x.deadline = saved }()
		if d := time.Now().Add(timingAllowance(took, steps, limit("all"))); d.After(x.deadline) {
			x.deadline = d
		}
	}
	target := avoidTarget(bug.Kind, bug.G)
	// Spinning goroutines set aside beside a timer make its early firing
	// the only choice (forcedFirings), and in a strategy's view forced:
	// the replays keep them, so that the firing can be avoided. Not for a
	// leak, which stays a bug whatever the replays say: with a thousand
	// goroutines, keeping them costs.
	keep := bug.Kind != engine.KindLeak
	var leftAll string // the place of the leak the replay without any early firing ended with
	same := func(mode string) bool {
		avoid := avoidModes[mode]
		if x.cfg.ReportRun {
			kind, w, unknown := x.freshAvoided(mode, limit(mode), keep, target)
			if mode == "all" && kind == engine.KindLeak {
				leftAll = w
			}
			return unknown || kind == bug.Kind && avoidSame(kind, w, where)
		}
		rs := x.newRunT()
		a := &avoidEarly{keys: keys, avoid: avoid, target: target}
		res := x.exec(avoidConfig(seed, mode, bug.Kind, limit(mode), keep, target), a, rs)
		if a.settled {
			return false // the target returned without the bug
		}
		if res.OverMemory != "" || res.OverTime || (res.Bug != nil && res.Bug.Kind == engine.KindStepLimit && bug.Kind != engine.KindStepLimit) {
			return true // unknown: the bug stays a bug
		}
		kind, w := x.avoidOutcome(res, classify(res, rs), bug.Kind)
		if mode == "all" && kind == engine.KindLeak {
			leftAll = w
		}
		return kind == bug.Kind && avoidSame(kind, w, where)
	}
	if same("all") {
		return earlyNotNeeded, nil, nil
	}
	if bug.Kind == engine.KindFail {
		return earlyTiming, nil, nil
	}
	alone = leakedAlone(leftAll, where)
	breaks := func(f earlyFiring) bool { return f.test }
	avoid := "test"
	switch bug.Kind {
	case engine.KindLeak:
		breaks = testWait
		avoid = "testsleep"
	case engine.KindDeadlock:
		breaks = func(f earlyFiring) bool { return f.test || f.sleep }
		avoid = "assumption"
	}
	n := 0
	for _, f := range firings {
		if breaks(f) {
			n++
		}
	}
	switch {
	case n == 0:
		return earlyBug, firings, alone
	case n < len(firings) && same(avoid):
		for _, f := range firings {
			if !breaks(f) {
				needed = append(needed, f)
			}
		}
		return earlyBug, needed, alone
	}
	return earlyTiming, nil, nil
}

// leakedAlone returns the goroutines of a leak at recorded (avoidOutcome)
// that a replay without early firings, which leaked those at got, did not
// leak; none when it leaked none of them (or no leak).
func leakedAlone(got, recorded string) []string {
	g, gok := strings.CutPrefix(got, leakedPrefix)
	r, rok := strings.CutPrefix(recorded, leakedPrefix)
	if !gok || !rok {
		return nil
	}
	leaked := map[string]bool{}
	for _, id := range strings.Fields(g) {
		leaked[id] = true
	}
	var alone []string
	both := false
	for _, id := range strings.Fields(r) {
		if leaked[id] {
			both = true
		} else {
			alone = append(alone, id)
		}
	}
	if !both {
		return nil
	}
	return alone
}

// leakedPrefix begins a leak's place as earlyNeeded compares it
// (avoidOutcome).
const leakedPrefix = "leaked "

// avoidOutcome is how a run ended (res, its bug b, or nil), as earlyNeeded
// compares its replays with the recorded run of a bug of kind: the kind of
// bug and where it happened (explorer.where), "" for none. A leak's place
// is the goroutines that leaked ("leaked g0.1 g0.3"), not where each was at
// the end nor whether it was blocked or still running: a leak that happens
// on every schedule (go-metrics' datadog TestParseKey, statsd clients never
// closed whose sender goroutines loop on their flush tickers) ends with its
// goroutines elsewhere, some blocked rather than running, when the replay
// keeps the tickers from firing early. Such a replay may also be cut short
// after the test returned, unreported (its clock would not reach the leak
// horizon at the pace the tickers, firing only when nothing else can run,
// keep: Exec.afterMain): the goroutines still alive then are a leak too,
// the same goroutines outliving the test, for this comparison. The replay
// of a leak that needs a timeout to fire early (a result sent on an
// unbuffered channel after the caller gave up) ends with them done. With
// no res, b is the recorded bug.
func (x *explorer) avoidOutcome(res *engine.Result, b *engine.Bug, kind string) (string, string) {
	var ids []string
	switch {
	case kind != engine.KindLeak:
	case b != nil && b.Kind == engine.KindLeak:
		for _, g := range b.Blocked {
			ids = append(ids, g.ID)
		}
		for _, g := range b.Running {
			ids = append(ids, g.ID)
		}
	case b == nil && res != nil && res.Truncated:
		for _, g := range res.Gs {
			if g.Unwound() && !g.System {
				ids = append(ids, g.ID) // still parked when the run ended
			}
		}
	}
	if len(ids) > 0 {
		sort.Strings(ids)
		return engine.KindLeak, leakedPrefix + strings.Join(ids, " ")
	}
	if b == nil {
		return "", ""
	}
	return b.Kind, x.where(b)
}

// avoidSame reports whether earlyNeeded's replay, which ended with a bug
// of kind at got (avoidOutcome), showed the recorded bug, at recorded: the
// same place, or for a leak every goroutine the recorded run leaked (the
// replay may leak more: a goroutine the early firings would have ended).
func avoidSame(kind, got, recorded string) bool {
	g, gok := strings.CutPrefix(got, leakedPrefix)
	r, rok := strings.CutPrefix(recorded, leakedPrefix)
	if kind != engine.KindLeak || !gok || !rok {
		return samePlace(got, recorded)
	}
	leaked := map[string]bool{}
	for _, id := range strings.Fields(g) {
		leaked[id] = true
	}
	for _, id := range strings.Fields(r) {
		if !leaked[id] {
			return false
		}
	}
	return true
}

// avoidModes are the timers earlyNeeded's replays keep from firing early,
// by name (Config.Avoid).
var avoidModes = map[string]func(*engine.Timer) bool{
	"all":        func(*engine.Timer) bool { return true },
	"test":       testTimer,
	"assumption": assumption,
	"testsleep":  func(t *engine.Timer) bool { return t != nil && (testTimer(t) && t.Sleep() || testOnlyPC(t.PC)) },
}

// clockPlace is where a run ended by its time bound happened (a step-bound
// bug with Clock), for earlyNeeded's replays: the goroutine that ran when
// the clock passed the bound is any of those the timers keep alive.
const clockPlace = "time bound"

// clockNeeded returns the early firings a run ended by its time bound (a
// hang the test's timers keep alive: ants' lost wakeup in Tune beside
// its purge and ticktock tickers) needs: the first ones, up to the last
// without which replays of the run (its choices keys, with seed) return
// before the bound. The tickers that keep a hang alive fire early again
// and again after the hang began (442 times in ants' Tune, which needs
// none): the report lists those it needs, none if it hangs without any.
// It searches by bisection the last firing kept (a replay keeps the early
// firings up to a step and no later one); a replay that ends otherwise
// (its step bound, memory, the time budget) decides nothing, and the
// firings are kept. In a new process (Config.ReportRun) it replays
// there, once, without any early firing: all or none are listed.
func (x *explorer) clockNeeded(keys []string, steps int, took time.Duration, seed uint64, firings []earlyFiring) []earlyFiring {
	limit := avoidSteps(steps, true)
	if !x.deadline.IsZero() && x.cfg.Deadline.IsZero() {
		saved := x.deadline
		defer func() { x.deadline = saved }()
		if d := time.Now().Add(timingAllowance(took, steps, limit)); d.After(x.deadline) {
			x.deadline = d
		}
	}
	if x.cfg.ReportRun {
		kind, where, unknown := x.freshAvoided("all", limit, true, "")
		if !unknown && kind == engine.KindStepLimit && where == clockPlace {
			return nil
		}
		return firings
	}
	// hangs reports whether the run still reaches its time bound with the
	// early firings after step until avoided.
	hangs := func(until int) bool {
		a := &avoidEarly{keys: keys, avoid: avoidModes["all"], until: until}
		res := x.exec(avoidConfig(seed, "all", engine.KindStepLimit, limit, true, ""), a, x.newRunT())
		return res.OverMemory == "" && !res.OverTime && res.Bug != nil && res.Bug.Kind == engine.KindStepLimit && res.Bug.Clock
	}
	if hangs(0) {
		return nil
	}
	// firings[:hi] make it hang (the recorded run), firings[:lo] do not.
	lo, hi := 0, len(firings)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if hangs(firings[mid-1].step) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return firings[:hi]
}

// testWait reports whether an early firing is the test waiting a while
// for its goroutines: a sleep of the test's own code, or any timer of a
// package only the tests import (a helper polling, a mock clock). A leak
// that needs only such firings is timing-dependent ("testsleep").
func testWait(f earlyFiring) bool { return f.test && f.sleep || f.helper }

// all is every early firing of the run the watch saw, with trace: those
// chosen and those forced (forcedFirings), in step order.
func (w *earlyWatch) all(trace []engine.Step) []earlyFiring {
	firings := append(w.firings[:len(w.firings):len(w.firings)], forcedFirings(trace, w.firings)...)
	sort.Slice(firings, func(i, j int) bool { return firings[i].step < firings[j].step })
	return firings
}

// timingFirings are the early firings a timing verdict shows: for a failed
// assertion all of them, for a deadlock the test's timers and sleeps, for
// a leak the test's sleeps and its helpers' timers (testWait), else the
// test's own timers.
func timingFirings(kind string, firings []earlyFiring) []earlyFiring {
	var out []earlyFiring
	for _, f := range firings {
		if kind == engine.KindFail || f.test && kind != engine.KindLeak || kind == engine.KindLeak && testWait(f) || (kind == engine.KindDeadlock && f.sleep) {
			out = append(out, f)
		}
	}
	return out
}

// maxEarlyShown is how many early firings a report lists: the last ones.
const maxEarlyShown = 8

// earlyText describes early firings, the last maxEarlyShown of them.
func (x *explorer) earlyText(header string, firings []earlyFiring) string {
	var b strings.Builder
	b.WriteString(header)
	from := 0
	if len(firings) > maxEarlyShown {
		from = len(firings) - maxEarlyShown
		fmt.Fprintf(&b, " (the last %d of %d; heddle replay -v shows every step)", maxEarlyShown, len(firings))
	}
	b.WriteString(":")
	for _, f := range firings[from:] {
		if f.late {
			fmt.Fprintf(&b, "\n  step %d: a late wake: the clock moved on, with no timer firing, while a goroutine that could run %s", f.step, lateWaitText(f.early))
			continue
		}
		fmt.Fprintf(&b, "\n  step %d: %s", f.step, f.name)
		if f.pc != 0 {
			fmt.Fprintf(&b, " (armed at %s)", x.pos(f.pc))
		}
		fmt.Fprintf(&b, " fired %s", starvedText(f.early))
	}
	return b.String()
}

// starvedText says how long an early firing starved the goroutines that
// could run; the engine marks a firing that starved no one yet as 1ns.
func starvedText(d time.Duration) string {
	if d <= 1 {
		return "before the goroutines that could run took their next step"
	}
	return "while a goroutine that could run had waited " + engine.DurationText(d)
}

// lateWaitText says how long a goroutine that could run waited at a late
// wake (1ns marks one that had not waited yet).
func lateWaitText(d time.Duration) string {
	if d <= 1 {
		return "had not waited yet"
	}
	return "waited " + engine.DurationText(d)
}
