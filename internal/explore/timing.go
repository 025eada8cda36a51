package explore

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"heddle.dev/internal/engine"
)

// KindTiming is the verdict on a test that fails only when a timer fires
// early in a way the test did not allow for (earlyNeeded says which): the
// test assumes the machine is never slower than some duration. It is not a
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
}

// earlyWatch wraps a strategy and notes every early firing it chooses.
type earlyWatch struct {
	engine.Strategy
	firings []earlyFiring
}

func (w *earlyWatch) Choose(p *engine.Point) int {
	i := w.Strategy.Choose(p)
	if i >= 0 && i < len(p.Choices) && p.Choices[i].Early > 0 {
		c := p.Choices[i]
		t := timerOf(c)
		f := earlyFiring{step: p.Step + 1, early: c.Early}
		if c.Timer != nil {
			f.name = "timer " + c.Timer.ID
		} else {
			f.name = "the sleep of " + c.G.ID
		}
		if t != nil {
			f.pc = t.PC
			f.test = testTimer(t)
			f.sleep = t.Sleep()
			f.helper = testOnlyPC(t.PC)
		}
		w.firings = append(w.firings, f)
	}
	return i
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
		if st.Early <= 0 || chosen[st.N] {
			continue
		}
		f := earlyFiring{step: st.N, early: st.Early, pc: st.PC}
		if st.G != nil && st.Kind == engine.OpSleep {
			f.name, f.sleep = "the sleep of "+st.G.ID, true
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
	if inTestOnly(p.Func) {
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

// setTestOnly makes the packages of paths test-only (testOnly).
func setTestOnly(paths []string) {
	testOnly = make(map[string]bool, len(paths))
	for _, p := range paths {
		testOnly[p] = true
	}
}

// testOnlyPC reports whether pc, where a timer was armed, is in a package
// only the tests import (Config.TestOnly): code that exists for the tests,
// whose timers wait on the test's behalf (testify's assert.Eventually
// polls on a ticker, a mock clock sleeps to let its waiters run).
func testOnlyPC(pc uintptr) bool {
	return pc != 0 && len(testOnly) > 0 && inTestOnly(engine.PositionOf(pc).Func)
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
type avoidEarly struct {
	keys  []string
	next  int
	avoid func(*engine.Timer) bool
}

func (a *avoidEarly) Begin(run int) bool {
	a.next = 0
	return run == 1
}

func (a *avoidEarly) End(*engine.Result) {}

func (a *avoidEarly) Choose(p *engine.Point) int {
	ok := func(c engine.Choice) bool { return c.Early == 0 || !a.avoid(timerOf(c)) }
	for look := 0; look < 4 && a.next+look < len(a.keys); look++ {
		want := a.keys[a.next+look]
		for i, c := range p.Choices {
			if c.HasKey(want) && ok(c) {
				a.next += look + 1
				return i
			}
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
func (x *explorer) earlyNeeded(bug *engine.Bug, keys []string, steps int, seed uint64, firings []earlyFiring) earlyNeed {
	if len(firings) == 0 {
		return earlyNotNeeded
	}
	switch bug.Kind {
	case engine.KindDeadlock, engine.KindLeak, engine.KindPanic, engine.KindFail, engine.KindMisuse:
	default:
		// A step bound, a nondeterministic test, a race, a goroutine
		// blocked outside heddle: not decided by one replay.
		return earlyBug
	}
	where := x.where(bug)
	// A replay kept from firing early may run on long past where the bug
	// was (a timeout that does not fire lets a loop go on): it is bounded
	// at twice the steps of the run that found the bug, and a replay
	// cut short decides nothing, so the bug stays a bug.
	limit := max(2*steps, 10000)
	// Spinning goroutines set aside beside a timer make its early firing
	// the only choice (forcedFirings), and in a strategy's view forced:
	// the replays keep them, so that the firing can be avoided. Not for a
	// leak, which stays a bug whatever the replays say: with a thousand
	// goroutines, keeping them costs.
	keep := bug.Kind != engine.KindLeak
	same := func(mode string) bool {
		avoid := avoidModes[mode]
		if x.cfg.ReportRun {
			kind, w, unknown := x.freshAvoided(mode, limit, keep)
			return unknown || kind == bug.Kind && w == where
		}
		rs := x.newRunT()
		res := x.exec(engine.Config{Seed: seed, Record: true, StepLimit: limit, KeepSpinners: keep}, &avoidEarly{keys: keys, avoid: avoid}, rs)
		if res.OverMemory != "" || res.OverTime || (res.Bug != nil && res.Bug.Kind == engine.KindStepLimit && bug.Kind != engine.KindStepLimit) {
			return true // unknown: the bug stays a bug
		}
		b := classify(res, rs)
		return b != nil && b.Kind == bug.Kind && x.where(b) == where
	}
	if same("all") {
		return earlyNotNeeded
	}
	if bug.Kind == engine.KindFail {
		return earlyTiming
	}
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
		return earlyBug
	case n < len(firings) && same(avoid):
		return earlyBug
	}
	return earlyTiming
}

// avoidModes are the timers earlyNeeded's replays keep from firing early,
// by name (Config.Avoid).
var avoidModes = map[string]func(*engine.Timer) bool{
	"all":        func(*engine.Timer) bool { return true },
	"test":       testTimer,
	"assumption": assumption,
	"testsleep":  func(t *engine.Timer) bool { return t != nil && (testTimer(t) && t.Sleep() || testOnlyPC(t.PC)) },
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
	return fmt.Sprintf("while a goroutine that could run had waited %v", d)
}

// slowest is the longest starvation among early firings: the test
// assumes the machine is never slower.
func slowest(firings []earlyFiring) time.Duration {
	var d time.Duration
	for _, f := range firings {
		if f.early > d {
			d = f.early
		}
	}
	return d
}
