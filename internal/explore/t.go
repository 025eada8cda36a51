package explore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
)

// runT is the testing state of one run: failures, logs and cleanups
// belong to the run that made them, and a passing run leaves nothing on
// the real test. What package testing keeps per test (the name, whether
// it failed or was skipped, its context, its cleanups, its helpers) it
// keeps per scope (subtest.go): the test or one of its subtests, each
// with a *testing.T of its own, as package testing gives each subtest a
// T. A method called on a T acts on that T's scope, whichever goroutine
// calls it, as Go's do: the scope is the run's testing.TB for that T (TB).
type runT struct {
	real     *testing.T // the test's T
	exec     *engine.Exec
	failed   bool
	msgs     []string // errors and logs, in order, with their positions
	firstErr string
	// failNowLine is the headline of a run whose first failure was a
	// FailNow with no message: natively no line, so the first line the
	// run logs later, if any, is its headline (headline).
	failNowLine string
	lastLogG    *engine.G            // the goroutine that logged msgs' last line
	attrs       *map[[2]string]bool  // the exploration's, to pass each t.Attr on once
	root        scope                // the test; subtests are its kids (subtest.go)
	scopes      map[*engine.G]*scope // the goroutines that run subtests
	// byT is the scope of each subtest's T (the root's is real).
	byT      map[*testing.T]*scope
	subNames subNames // the full names of the subtests started, made unique
	// unselected are the subtests -run or -skip did not select (not run)
	unselected []string
	misuse     testMisuse
	// topParallel is set when the test itself (not a subtest) calls
	// t.Parallel: the exploration's explorer.topParallel.
	topParallel *bool
	// keptCleanups counts the test's cleanups not run because the run
	// was unwound while a goroutine was away (runCleanups).
	keptCleanups int
	// failAt is the step of the run's first failing call (failStep), 0
	// if none: a fail report's steps end there (report.go).
	failAt int
}

// newRunT returns the T of a new run of x's test.
func (x *explorer) newRunT() *runT {
	rs := &runT{real: x.t, attrs: &x.attrs, topParallel: &x.topParallel}
	rs.root.rs, rs.root.TB, rs.root.t = rs, x.t, x.t
	return rs
}

// pos returns "file:line: " of the first caller, skip frames above pos,
// that is not a helper of sc (a function that called Helper on its T) and
// not heddle's.
//
//go:norace
func (sc *scope) pos(skip int) string {
	f, ok := sc.caller(skip + 1)
	if !ok {
		return ""
	}
	file := f.File
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	return fmt.Sprintf("%s:%d: ", file, f.Line)
}

// caller returns the first caller, skip frames above caller's caller,
// that is not a helper of sc and not heddle's: the line a failure or log
// of sc's T is reported at, as testing's common.frameSkip.
//
//go:norace
func (sc *scope) caller(skip int) (runtime.Frame, bool) {
	helpers := sc.helperScope().helpers
	var pcs [32]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !helpers[f.Function] && !strings.HasPrefix(f.Function, "heddle.dev/rt.") && !strings.HasPrefix(f.Function, "heddle.dev/internal/") {
			return f, true
		}
		if !more {
			return runtime.Frame{}, false
		}
	}
}

// helperScope is the scope whose helpers sc's Helper marks: a synctest
// bubble's T marks its parent's (testing's common.Helper).
//
//go:norace
func (sc *scope) helperScope() *scope {
	if sc.bubble && sc.parent != nil {
		return sc.parent
	}
	return sc
}

// destination is the scope a line logged on sc goes to: sc, or once it
// completed (or for a synctest bubble's T) its closest parent still
// running, as testing's common.destination. The root's parent, package
// testing's main test, runs until the run is over: a run always has one.
//
//go:norace
func (sc *scope) destination() *scope {
	if !sc.done && !sc.bubble {
		return sc
	}
	for p := sc.parent; p != nil; p = p.parent {
		if !p.done {
			return p
		}
	}
	return nil
}

// log logs s on sc, at the position skip frames above log's caller, and
// with fail fails sc: Error and Fatal log, then Fail, as Go's do.
//
//go:norace
func (t *runT) log(sc *scope, fail bool, s string) {
	if fail {
		// The step comes first, so that its message is logged in the
		// order the failing calls are explored in.
		t.failStep(sc)
	}
	d := sc.destination()
	if d == nil {
		d = sc
	}
	t.addLine(sc, fail, d.pos(2)+d.path()+s)
}

// addLine adds a line to the run's output, and with fail fails sc.
//
//go:norace
func (t *runT) addLine(sc *scope, fail bool, line string) {
	t.msgs = append(t.msgs, line)
	t.lastLogG = t.curG()
	if fail {
		sc.markFailed()
		t.failed = true
		if t.firstErr == "" {
			t.firstErr = line
		}
	}
}

// The printing methods (Error, Errorf, Log, Logf, Fatal, Fatalf, Skip,
// Skipf) format their arguments in a function the race detector sees
// enter (no //go:norace): a race report of fmt's read of the program's
// data (a map another goroutine writes) then names the line that called
// the method, as it does natively, which heddle test -racy needs to make
// that line a scheduling point. They touch nothing but their arguments:
// the run's state is the norace functions' they pass the line on to.

func (sc *scope) Error(args ...any) { sc.logLine(true, sprintln(args)) }

func (sc *scope) Errorf(format string, args ...any) { sc.logLine(true, fmt.Sprintf(format, args...)) }

func (sc *scope) Log(args ...any) { sc.logLine(false, sprintln(args)) }

func (sc *scope) Logf(format string, args ...any) { sc.logLine(false, fmt.Sprintf(format, args...)) }

// logLine logs s on sc, and with fail fails it (log).
//
//go:norace
func (sc *scope) logLine(fail bool, s string) { sc.rs.log(sc, fail, s) }

// sprintln is fmt.Sprintln without its newline, as testing's Log.
func sprintln(args []any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}

// Output returns a writer whose lines are the run's, like its logs: shown
// in the report of a failing run, not written for every run. They go to
// the scope a log line would go to now (testing's Output).
//
//go:norace
func (sc *scope) Output() io.Writer {
	d := sc.destination()
	if d == nil {
		d = sc
	}
	d.out.sc = d
	return &d.out
}

// runOutput is the writer of t.Output(): each complete line becomes a
// message of the run, under its test's or subtest's name.
type runOutput struct {
	sc      *scope
	partial []byte
}

//go:norace
func (o *runOutput) Write(p []byte) (int, error) {
	o.partial = append(o.partial, p...)
	rs := o.sc.rs
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		rs.msgs = append(rs.msgs, o.sc.path()+string(o.partial[:i]))
		o.partial = o.partial[i+1:]
	}
	return len(p), nil
}

// Attr passes the attribute on to the test once per exploration (go test
// prints "=== ATTR" for it), not once per run.
//
//go:norace
func (sc *scope) Attr(key, value string) {
	t := sc.rs
	// testing.TB has Attr from Go 1.25 on; the runtime builds with older
	// toolchains too.
	attr, ok := testing.TB(t.real).(interface{ Attr(string, string) })
	if !ok {
		return
	}
	if t.attrs != nil {
		kv := [2]string{key, value}
		if (*t.attrs)[kv] {
			return
		}
		if *t.attrs == nil {
			*t.attrs = map[[2]string]bool{}
		}
		(*t.attrs)[kv] = true
	}
	attr.Attr(key, value)
}

//go:norace
func (sc *scope) Fail() {
	t := sc.rs
	t.failStep(sc)
	sc.markFailed()
	t.failed = true
	if t.firstErr == "" {
		t.firstErr = t.loggedJustBefore()
	}
}

// headline is the message of a failing run: its first failing line.
//
//go:norace
func (t *runT) headline() string {
	if t.firstErr != "" {
		return t.firstErr
	}
	return t.failNowLine
}

// loggedJustBefore is the line the calling goroutine logged last, if it
// is the run's last: assertion libraries (gotest.tools) log the failure's
// message, then call Fail or FailNow, and that message is the report's
// headline, as it is what go test shows above the FAIL.
//
//go:norace
func (t *runT) loggedJustBefore() string {
	if len(t.msgs) == 0 || t.lastLogG == nil || t.lastLogG != t.curG() {
		return ""
	}
	return t.msgs[len(t.msgs)-1]
}

// curG is the controlled goroutine calling, nil outside the run's.
//
//go:norace
func (t *runT) curG() *engine.G {
	if t.exec == nil || engine.Current() != t.exec {
		return nil
	}
	return t.exec.Cur()
}

//go:norace
func (sc *scope) Failed() bool { return sc.failed }

//go:norace
func (sc *scope) Helper() {
	pc, _, _, ok := runtime.Caller(1)
	if !ok {
		return
	}
	sc.markHelper(pc)
}

// markHelper marks the function of pc a helper of sc's T.
//
//go:norace
func (sc *scope) markHelper(pc uintptr) {
	h := sc.helperScope()
	if h.helpers == nil {
		h.helpers = map[string]bool{}
	}
	h.helpers[runtime.FuncForPC(pc).Name()] = true
}

// Name is the name of the test or subtest, as testing's T.Name:
// "TestX/sub" for a subtest.
//
//go:norace
func (sc *scope) Name() string {
	for sc.bubble && sc.parent != nil {
		sc = sc.parent // a synctest bubble's test has its parent's name
	}
	if sc.parent != nil {
		return sc.full
	}
	return sc.rs.real.Name()
}

// Skipped reports whether the test or subtest was skipped: a subtest's
// skip is its own, not its parent's.
//
//go:norace
func (sc *scope) Skipped() bool { return sc.skipped }

//go:norace
func (sc *scope) FailNow() {
	t := sc.rs
	t.failStep(sc)
	sc.markFailed()
	t.failed = true
	if t.firstErr == "" {
		t.firstErr = t.loggedJustBefore()
	}
	if t.firstErr == "" && t.failNowLine == "" {
		t.failNowLine = sc.pos(1) + sc.path() + "FailNow called"
	}
	t.exitNow(sc, "FailNow")
}

func (sc *scope) Fatal(args ...any) { sc.fatal(sprintln(args), "Fatal") }

func (sc *scope) Fatalf(format string, args ...any) { sc.fatal(fmt.Sprintf(format, args...), "Fatalf") }

// fatal logs s on sc, fails it and ends the calling goroutine, as method
// (Fatal or Fatalf) does.
//
//go:norace
func (sc *scope) fatal(s, method string) {
	sc.rs.log(sc, true, s)
	sc.rs.exitNow(sc, method)
}

func (sc *scope) Skip(args ...any) { sc.skip(sprintln(args)) }

func (sc *scope) Skipf(format string, args ...any) { sc.skip(fmt.Sprintf(format, args...)) }

// skip logs s on sc and skips it.
//
//go:norace
func (sc *scope) skip(s string) {
	sc.rs.log(sc, false, s)
	sc.SkipNow()
}

//go:norace
func (sc *scope) SkipNow() {
	// After the test completed (a goroutine it left behind calls t.Skip),
	// testing has already reported it as passed or failed: Go's SkipNow
	// then only ends the calling goroutine, and the run is not a skipped
	// one (its Log line goes to the still-running parent: no panic).
	if !sc.done {
		sc.skipped = true
		if g := sc.rs.curG(); g != nil && g != sc.g {
			sc.skippedAside = true
		}
	}
	sc.rs.exitNow(sc, "")
}

//go:norace
func (sc *scope) Cleanup(f func()) { sc.rs.addCleanup(sc, f) }

//go:norace
func (sc *scope) TempDir() string {
	dir, err := os.MkdirTemp("", "heddle-"+sanitize(sc.Name())+"-")
	if err != nil {
		sc.Fatalf("TempDir: %v", err)
	}
	if x := engine.Current(); x != nil {
		x.StampFile(dir) // made now on the clock the test reads (StampFile)
	}
	sc.rs.addRestore(sc, func() { os.RemoveAll(dir) })
	return dir
}

//go:norace
func (sc *scope) Setenv(key, value string) {
	sc.checkParallel()
	// A step on the environment's object, as the rewritten os.Setenv
	// takes (conform TestSetenvVsGoroutine: natively a goroutine's
	// os.Getenv sees the value or not).
	engine.EnvAccess(engine.OpAtomicWrite)
	prev, had := os.LookupEnv(key)
	if err := os.Setenv(key, value); err != nil {
		sc.Fatalf("Setenv: %v", err)
	}
	sc.rs.addRestore(sc, func() {
		engine.EnvAccess(engine.OpAtomicWrite)
		if had {
			os.Setenv(key, prev)
		} else {
			os.Unsetenv(key)
		}
	})
}

//go:norace
func (sc *scope) Chdir(dir string) {
	sc.checkParallel()
	engine.EnvAccess(engine.OpAtomicWrite)
	prev, err := os.Getwd()
	if err != nil {
		sc.Fatalf("Chdir: %v", err)
	}
	if err := os.Chdir(dir); err != nil {
		sc.Fatalf("Chdir: %v", err)
	}
	sc.rs.addRestore(sc, func() {
		engine.EnvAccess(engine.OpAtomicWrite)
		os.Chdir(prev)
	})
}

// Context returns the context of the test or subtest, cancelled just
// before its cleanups run.
//
//go:norace
func (sc *scope) Context() context.Context {
	if sc.ctx == nil {
		sc.ctx, sc.cancel = sc.rs.exec.WithCancel(context.Background(), time.Time{}, nil)
	}
	return sc.ctx
}

// finish ends the test in the test goroutine: its parallel subtests run
// and end, its context is cancelled, then its cleanups run, last
// registered first.
//
//go:norace
func (t *runT) finish() {
	defer func() {
		// Also when a cleanup ended the goroutine (endScope).
		t.testStateStep(engine.OpTestDone)
		t.misuse.done = true
		t.root.done = true
	}()
	t.endScope(t.exec, &t.root)
}

// testStateStep makes the end of the test or of a subtest, and a failing
// call, scheduling points on the run's T: the call reads whether its test
// completed, the end writes it, so that an exploration reaches the call
// after the end (Go panics: "Fail in goroutine after TestX has
// completed") as a native run can; and the call writes the test's
// failure, whose first message is the one reported, so that two failing
// calls of different goroutines are explored in both orders. A failing
// call of the test's own goroutine took no step (it cannot come after the
// end), and neither order of two goroutines' failing calls was explored
// but the first: native runs show either message first.
//
//go:norace
func (t *runT) testStateStep(kind engine.OpKind) { t.testStateStepAt(kind, 0) }

// testStateStepAt is testStateStep at position pc (engine.AccessAt).
//
//go:norace
func (t *runT) testStateStepAt(kind engine.OpKind, pc uintptr) bool {
	x := t.exec
	if x == nil || engine.Current() != x || x.Cur() == nil || x.Unwinding() {
		return false
	}
	x.AccessAt(unsafe.Pointer(&t.misuse), kind, pc)
	return true
}

// failStep is the step of a failing call on sc's T (testStateStep). Called
// from a goroutine other than the one running sc's function, it also
// reads whether sc and each of its parents up to the test completed (the
// subtests' ends, endStep), each a step of its own: such a call may come
// after one of them ended, and then panics ("Fail in goroutine after
// TestX/sub has completed"). A subtest's end conflicts only with these
// calls, not with every failing call of the run: a parallel subtest's end
// is independent of its sibling's failures. The steps are at the line the
// call's message names: in a function that called t.Helper, the line that
// called it (failPC).
//
//go:norace
func (t *runT) failStep(sc *scope) {
	pc := failPC(sc)
	if t.testStateStepAt(engine.OpTestRead, pc) && t.failAt == 0 {
		t.failAt = t.exec.Steps()
	}
	x := t.exec
	if x == nil || engine.Current() != x || x.Cur() == nil || x.Unwinding() || x.Cur() == sc.g {
		return
	}
	for c := sc; c.parent != nil; c = c.parent {
		x.AccessAt(unsafe.Pointer(&c.done), engine.OpTestRead, pc)
	}
}

// failPC is the position of a failing call on sc's T when its caller is a
// helper of the T the call's message goes to (log): the first frame above
// the helpers, as a return address (engine.AccessAt). Without helpers it is
// 0, the first frame of the program above the call (the engine finds it).
//
//go:norace
func failPC(sc *scope) uintptr {
	d := sc.destination()
	if d == nil {
		d = sc
	}
	if len(d.helperScope().helpers) == 0 {
		return 0
	}
	f, ok := d.caller(1)
	if !ok || f.PC == 0 {
		return 0
	}
	return f.PC + 1
}

// endStep is the step of a subtest's end, which the failing calls of
// other goroutines on its T (or its subtests') read (failStep).
//
//go:norace
func (t *runT) endStep(sc *scope) {
	x := t.exec
	if x == nil || engine.Current() != x || x.Cur() == nil || x.Unwinding() {
		return
	}
	x.Access(unsafe.Pointer(&sc.done), engine.OpTestDone)
}

// TestPanicked is called when the test's goroutine panics while others
// may still run (engine.TestPanicker): finish's deferred call marked the
// test complete, but testing's tRunner does not when it panics, and a
// goroutine's t.Errorf meanwhile is a failure, not "Fail in goroutine
// after TestX has completed".
//
//go:norace
func (t *runT) TestPanicked(g *engine.G) {
	if t.root.g == g {
		t.root.done = false
		t.misuse.done = false
	}
}

// attach makes rs the T of run e.
//
//go:norace
func (t *runT) attach(e *engine.Exec) {
	t.exec = e
	e.T = t
}

//go:norace
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', ':', '*', '?', '"', '<', '>', '|', ' ':
			return '_'
		}
		return r
	}, s)
}

// TB returns the run's T for t during an exploration, and t otherwise:
// the scope of the test or subtest whose T t is. A T the run does not
// know (one kept from an earlier run, or a value that embeds a T) acts
// on the scope of the calling goroutine. A T that is no test's, which a
// test makes to see what a helper reports on it (testify's mockT :=
// new(testing.T)), is t itself (or the T TBArg's wrapper wraps).
//
//go:norace
func TB(t testing.TB) testing.TB {
	if x := engine.Current(); x != nil {
		if rs, ok := x.T.(*runT); ok {
			if a, ok := t.(tbArg); ok && noTest(a.TB) {
				return a.TB
			}
			if noTest(t) {
				return t
			}
			return rs.scopeFor(t)
		}
	}
	return t
}

// noTest reports whether t is a T, B or F of package testing that no test
// runs with: its name is empty (package testing names every test,
// subtest, benchmark and fuzz target).
//
//go:norace
func noTest(t testing.TB) bool {
	switch v := t.(type) {
	case *testing.T:
		return v != nil && v.Name() == ""
	case *testing.B:
		return v != nil && v.Name() == ""
	case *testing.F:
		return v != nil && v.Name() == ""
	}
	return false
}

// scopeFor returns the scope whose T is t.
//
//go:norace
func (t *runT) scopeFor(tb testing.TB) *scope {
	switch v := tb.(type) {
	case *testing.T:
		if v == t.real {
			return &t.root
		}
		if sc, ok := t.byT[v]; ok {
			return sc
		}
	case *scope:
		if v.rs == t {
			return v
		}
	case tbArg:
		return t.scopeFor(v.TB)
	}
	return t.current()
}

// scopeOfT is scopeFor for a *testing.T.
//
//go:norace
func (t *runT) scopeOfT(tt *testing.T) *scope {
	if tt == t.real {
		return &t.root
	}
	if sc, ok := t.byT[tt]; ok {
		return sc
	}
	return t.current()
}

// TBValue is TB for the closure the rewriter makes of a method value of
// a *testing.T or testing.TB (fail := t.Fatal, which quicktest passes
// around): that closure, the caller of rt.TBValue, is marked a helper of
// the run's T, so that a failure's position skips it, as Go's skips the
// method value's wrapper, and names the line that called it.
//
//go:norace
func TBValue(t testing.TB) testing.TB {
	tb := TB(t)
	if sc, ok := tb.(*scope); ok {
		if pc, _, _, ok := runtime.Caller(2); ok {
			sc.markHelper(pc)
		}
	}
	return tb
}

// Run runs subtest f of an explored test in a controlled goroutine of the
// same run and waits for it, as t.Run does: the subtest of t's test or
// subtest, whichever goroutine calls it.
//
//go:norace
func Run(t *testing.T, name string, f func(t *testing.T)) bool {
	x := engine.Current()
	if x == nil {
		return t.Run(name, f)
	}
	rs, ok := x.T.(*runT)
	if !ok {
		return t.Run(name, f)
	}
	return rs.runSubtest(x, rs.scopeOfT(t), name, f)
}

// Parallel is t.Parallel. During an exploration, a subtest that calls it
// runs concurrently with its parallel siblings once its parent's function
// returned, as with go test; a test that calls it does nothing: explored
// tests run one at a time.
//
//go:norace
func Parallel(t *testing.T) {
	x := engine.Current()
	if x == nil {
		t.Parallel()
		return
	}
	if rs, ok := x.T.(*runT); ok {
		rs.parallel(x, rs.scopeOfT(t))
	}
}

// Deadline is t.Deadline. During an exploration, on a synctest bubble's
// T it panics as package testing's T.Deadline does; otherwise it is the
// real test's deadline.
//
//go:norace
func Deadline(t *testing.T) (time.Time, bool) {
	if x := engine.Current(); x != nil {
		if rs, ok := x.T.(*runT); ok {
			if rs.scopeOfT(t).bubble {
				panic("testing: t.Deadline called inside synctest bubble")
			}
			return rs.real.Deadline()
		}
	}
	return t.Deadline()
}

// testMisuse is what a run's T keeps to catch the misuses of testing.T that
// Go itself detects: a method called after the test completed (Go panics),
// runtime.Goexit or panic(nil) in a test's goroutine (Go fails the test),
// FailNow from a goroutine other than the test's.
type testMisuse struct {
	done   bool   // the test function returned and its cleanups ran
	goexit string // a test goroutine that ended by runtime.Goexit, not by FailNow
}

// markFailed fails sc and its parents, the parents first, as testing's
// common.Fail: a scope that completed panics, as Go's does (its parents
// are failed already).
//
//go:norace
func (sc *scope) markFailed() {
	if sc.parent != nil {
		sc.parent.markFailed()
	}
	if sc.done {
		panic("Fail in goroutine after " + sc.Name() + " has completed")
	}
	sc.failed = true
}

// exitNow ends the calling goroutine for FailNow, Fatal or SkipNow on
// sc's T, which is then finished (testing's common.finished). Go's FailNow
// must be called from the goroutine running the test: from another
// goroutine it ends only that one, and the test goes on (or hangs waiting
// for it); the failing run's output says so.
//
//go:norace
func (t *runT) exitNow(sc *scope, fn string) {
	sc.finished = true
	if g := t.curG(); g != nil && fn != "" && g != sc.g {
		t.msgs = append(t.msgs, fmt.Sprintf("heddle: t.%s called from goroutine %s, not from the goroutine running the test: it ends only that goroutine (see testing.T.FailNow)", fn, g.ID))
	}
	runtime.Goexit()
}

// goexitMsg is what testing says of a test goroutine that ended by
// runtime.Goexit (or panic(nil)) other than through FailNow or SkipNow.
const goexitMsg = "test executed panic(nil) or runtime.Goexit"

// runBody runs the function of sc's test or subtest on the calling
// goroutine and notes if it ended by runtime.Goexit (or panic(nil) with
// GODEBUG=panicnil=1) with its T not finished (FailNow, Fatal or SkipNow
// on it), which Go reports as "test executed panic(nil) or
// runtime.Goexit". A subtest that ended so after FailNow on a parent's T
// (the parent is then finished) fails instead, and its t.Run ends the
// goroutine that called it (testing's tRunner and T.Run); a parallel one
// is the panic. A panic ends it too, and is the run's bug already.
//
//go:norace
func (t *runT) runBody(sc *scope, body func()) {
	g := t.exec.Cur()
	sc.g = g
	if sc.parent == nil {
		// A subtest's goroutine is marked when it panics (panicScope):
		// its end otherwise lets its parent go on (endScope's Fire),
		// which after a panic natively never comes.
		t.exec.MarkTestGoroutine()
	}
	returned := false
	defer func() {
		comeBack()
		if returned || sc.finished || t.exec.Unwinding() {
			return
		}
		for p := sc.parent; p != nil; p = p.parent {
			if p.finished {
				if !sc.isParallel {
					// testing's t.Errorf, at a line of its own.
					t.failStep(sc)
					t.addLine(sc, true, sc.path()+goexitMsg+": subtest may have called FailNow on a parent test")
					sc.aborted = true
					return
				}
				break
			}
		}
		if t.misuse.goexit == "" {
			t.misuse.goexit = g.ID
		}
	}()
	body()
	returned = true
	sc.finished = true
}

// comeBack is called where heddle's code takes over from the test's (its
// function or a cleanup returned) and goes on with the run directly
// (Exec.Fire, Exec.Wait, the scope's state), not through rewritten code:
// a goroutine that the run's monitor claimed or detached in the test's
// last wait outside heddle's control waits there to be scheduled, as it
// does when it enters the engine through rewritten code (engine.Current).
// go-retryablehttp's subtests end in a deferred httptest.Server.Close,
// which waits for the server's connections: the subtest's goroutine,
// detached there, came back into endScope's Fire as if it held the
// processor, took its step beside the one the run had picked, and was
// left parked forever, a leak ("blocked forever: close") that go test
// never shows.
//
//go:norace
func comeBack() { engine.Current() }

// goexitBug is the bug of a test goroutine that ended by runtime.Goexit,
// if any. In heddle run's main, Go ends the program with a fatal error
// once the other goroutines are done.
//
//go:norace
func (t *runT) goexitBug(res *engine.Result) *engine.Bug {
	if t.misuse.goexit == "" || (res.Bug != nil && res.Bug.Kind != engine.KindLeak) {
		return nil
	}
	g := res.Gs[0]
	for _, h := range res.Gs {
		if h.ID == t.misuse.goexit {
			g = h
		}
	}
	msg := goexitMsg
	if t.real.Name() == MainTest {
		msg = "fatal error: no goroutines (main called runtime.Goexit) - deadlock!"
	}
	return &engine.Bug{Kind: engine.KindFail, Message: msg + " (in " + g.ID + ")", G: g}
}
