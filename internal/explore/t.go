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
	"heddle.dev/internal/explore/require"
)

// runT is the testing.TB of one run: failures, logs and cleanups belong to
// the run that made them, and a passing run leaves nothing on the real test.
// It embeds the real T for the methods it does not need to change
// (testing.TB's unexported method). What package testing keeps per test
// (the name, whether it failed or was skipped, its context, its cleanups)
// it keeps per scope: the test or the subtest the calling goroutine runs.
type runT struct {
	testing.TB
	exec     *engine.Exec
	failed   bool
	msgs     []string // errors and logs, in order, with their positions
	firstErr string
	lastLogG *engine.G // the goroutine that logged msgs' last line
	helpers  map[string]bool
	out      runOutput            // t.Output()'s partial last line
	attrs    *map[[2]string]bool  // the exploration's, to pass each t.Attr on once
	root     scope                // the test; subtests are its kids (subtest.go)
	scopes   map[*engine.G]*scope // the goroutines that run subtests
	subNames subNames             // the full names of the subtests started, made unique
	// unselected are the subtests -run or -skip did not select (not run)
	unselected []string
	misuse     testMisuse
	// topParallel is set when the test itself (not a subtest) calls
	// t.Parallel: the exploration's explorer.topParallel.
	topParallel *bool
}

// newRunT returns the T of a new run of x's test.
func (x *explorer) newRunT() *runT {
	return &runT{TB: x.t, attrs: &x.attrs, topParallel: &x.topParallel}
}

// pos returns "file:line: " of the first caller, skip frames above pos,
// that is not a helper (a function that called t.Helper) and not heddle's.
//
//go:norace
func (t *runT) pos(skip int) string {
	var pcs [32]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !t.helpers[f.Function] && !strings.HasPrefix(f.Function, "heddle.dev/rt.") && !strings.HasPrefix(f.Function, "heddle.dev/internal/") {
			file := f.File
			if i := strings.LastIndexAny(file, `/\`); i >= 0 {
				file = file[i+1:]
			}
			return fmt.Sprintf("%s:%d: ", file, f.Line)
		}
		if !more {
			return ""
		}
	}
}

//go:norace
func (t *runT) prefix() string {
	return t.current().path()
}

//go:norace
func (t *runT) log(fail bool, s string) {
	if fail {
		// The step comes first, so that its message is logged in the
		// order the failing calls are explored in.
		t.testStateStep(engine.OpTestRead)
	}
	t.checkDone("Log", s)
	line := t.pos(2) + t.prefix() + s
	t.msgs = append(t.msgs, line)
	t.lastLogG = t.curG()
	if fail {
		t.checkDone("Fail", "") // Error, Fatal: log, then Fail, as Go's do
		t.failed = true
		t.markFailed()
		if t.firstErr == "" {
			t.firstErr = line
		}
	}
}

//go:norace
func (t *runT) Error(args ...any) { t.log(true, fmt.Sprintln(args...)[:len(fmt.Sprintln(args...))-1]) }

//go:norace
func (t *runT) Errorf(format string, args ...any) { t.log(true, fmt.Sprintf(format, args...)) }

//go:norace
func (t *runT) Log(args ...any) { t.log(false, fmt.Sprintln(args...)[:len(fmt.Sprintln(args...))-1]) }

//go:norace
func (t *runT) Logf(format string, args ...any) { t.log(false, fmt.Sprintf(format, args...)) }

// Output returns a writer whose lines are the run's, like its logs: shown
// in the report of a failing run, not written for every run.
//
//go:norace
func (t *runT) Output() io.Writer {
	t.out.t = t
	return &t.out
}

// runOutput is the writer of t.Output(): each complete line becomes a
// message of the run, under the current test's or subtest's name.
type runOutput struct {
	t       *runT
	partial []byte
}

//go:norace
func (o *runOutput) Write(p []byte) (int, error) {
	o.t.checkDone("Output", string(p))
	o.partial = append(o.partial, p...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		o.t.msgs = append(o.t.msgs, o.t.prefix()+string(o.partial[:i]))
		o.partial = o.partial[i+1:]
	}
	return len(p), nil
}

// Attr passes the attribute on to the test once per exploration (go test
// prints "=== ATTR" for it), not once per run.
//
//go:norace
func (t *runT) Attr(key, value string) {
	// testing.TB has Attr from Go 1.25 on; the runtime builds with older
	// toolchains too.
	attr, ok := t.TB.(interface{ Attr(string, string) })
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
func (t *runT) Fail() {
	t.testStateStep(engine.OpTestRead)
	t.checkDone("Fail", "")
	t.failed = true
	t.markFailed()
	if t.firstErr == "" {
		t.firstErr = t.loggedJustBefore()
	}
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
func (t *runT) Failed() bool { return t.current().failed }

//go:norace
func (t *runT) Helper() {
	pc, _, _, ok := runtime.Caller(1)
	if !ok {
		return
	}
	if t.helpers == nil {
		t.helpers = map[string]bool{}
	}
	t.helpers[runtime.FuncForPC(pc).Name()] = true
}

// Name is the name of the test or subtest the caller runs, as testing's
// T.Name: "TestX/sub" in a subtest.
//
//go:norace
func (t *runT) Name() string {
	sc := t.current()
	for sc.bubble && sc.parent != nil {
		sc = sc.parent // a synctest bubble's test has its parent's name
	}
	if sc.parent != nil {
		return sc.full
	}
	return t.TB.Name()
}

// Skipped reports whether the caller's test or subtest was skipped: a
// subtest's skip is its own, not its parent's.
//
//go:norace
func (t *runT) Skipped() bool { return t.current().skipped }

//go:norace
func (t *runT) FailNow() {
	t.testStateStep(engine.OpTestRead)
	t.checkDone("Fail", "")
	t.failed = true
	t.markFailed()
	if t.firstErr == "" {
		t.firstErr = t.loggedJustBefore()
	}
	if t.firstErr == "" {
		t.firstErr = t.pos(1) + t.prefix() + "FailNow called"
	}
	t.exitNow("FailNow")
}

//go:norace
func (t *runT) Fatal(args ...any) {
	s := fmt.Sprintln(args...)
	t.log(true, s[:len(s)-1])
	t.exitNow("Fatal")
}

//go:norace
func (t *runT) Fatalf(format string, args ...any) {
	t.log(true, fmt.Sprintf(format, args...))
	t.exitNow("Fatalf")
}

//go:norace
func (t *runT) Skip(args ...any) {
	s := fmt.Sprintln(args...)
	t.log(false, s[:len(s)-1])
	t.SkipNow()
}

//go:norace
func (t *runT) Skipf(format string, args ...any) {
	t.log(false, fmt.Sprintf(format, args...))
	t.SkipNow()
}

//go:norace
func (t *runT) SkipNow() {
	// After the test completed (a goroutine it left behind calls t.Skip),
	// testing has already reported it as passed or failed: Go's SkipNow
	// then only ends the calling goroutine, and the run is not a skipped
	// one (its Log line goes to the still-running parent: no panic).
	if sc := t.current(); !t.misuse.done {
		sc.skipped = true
		if g := t.curG(); g != nil && !t.isTestGoroutine(g) {
			sc.skippedAside = true
		}
	}
	t.exitNow("")
}

//go:norace
func (t *runT) Cleanup(f func()) { t.addCleanup(f) }

//go:norace
func (t *runT) TempDir() string {
	dir, err := os.MkdirTemp("", "heddle-"+sanitize(t.Name())+"-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	if x := engine.Current(); x != nil {
		x.StampFile(dir) // made now on the clock the test reads (StampFile)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

//go:norace
func (t *runT) Setenv(key, value string) {
	t.checkParallel()
	// A step on the environment's object, as the rewritten os.Setenv
	// takes (conform TestSetenvVsGoroutine: natively a goroutine's
	// os.Getenv sees the value or not).
	engine.EnvAccess(engine.OpAtomicWrite)
	prev, had := os.LookupEnv(key)
	if err := os.Setenv(key, value); err != nil {
		t.Fatalf("Setenv: %v", err)
	}
	t.Cleanup(func() {
		engine.EnvAccess(engine.OpAtomicWrite)
		if had {
			os.Setenv(key, prev)
		} else {
			os.Unsetenv(key)
		}
	})
}

//go:norace
func (t *runT) Chdir(dir string) {
	t.checkParallel()
	engine.EnvAccess(engine.OpAtomicWrite)
	prev, err := os.Getwd()
	if err != nil {
		t.Fatalf("Chdir: %v", err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatalf("Chdir: %v", err)
	}
	t.Cleanup(func() {
		engine.EnvAccess(engine.OpAtomicWrite)
		os.Chdir(prev)
	})
}

// Context returns the context of the caller's test or subtest, cancelled
// just before its cleanups run.
//
//go:norace
func (t *runT) Context() context.Context {
	sc := t.current()
	if sc.ctx == nil {
		sc.ctx, sc.cancel = t.exec.WithCancel(context.Background(), time.Time{}, nil)
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
	}()
	t.endScope(t.exec, &t.root)
}

// testStateStep makes the test's end, and a failing call, scheduling
// points on the run's T: the call reads whether the test completed, the
// end writes it, so that an exploration reaches the call after the end
// (Go panics: "Fail in goroutine after TestX has completed") as a native
// run can; and the call writes the test's failure, whose first message
// is the one reported, so that two failing calls of different goroutines
// are explored in both orders. A failing call of the test's own goroutine
// took no step (it cannot come after the end), and neither order of two
// goroutines' failing calls was explored but the first: native runs show
// either message first.
//
//go:norace
func (t *runT) testStateStep(kind engine.OpKind) {
	x := t.exec
	if x == nil || engine.Current() != x || x.Cur() == nil || x.Unwinding() {
		return
	}
	x.Access(unsafe.Pointer(&t.misuse), kind)
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

// TB returns the run's T during an exploration, and t otherwise.
//
//go:norace
func TB(t testing.TB) testing.TB {
	if x := engine.Current(); x != nil {
		if rt, ok := x.T.(*runT); ok {
			return rt
		}
	}
	return t
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
	if rt, ok := tb.(*runT); ok {
		if pc, _, _, ok := runtime.Caller(2); ok {
			if rt.helpers == nil {
				rt.helpers = map[string]bool{}
			}
			rt.helpers[runtime.FuncForPC(pc).Name()] = true
		}
	}
	return tb
}

// Run runs subtest f of an explored test in a controlled goroutine of the
// same run and waits for it, as t.Run does.
//
//go:norace
func Run(t *testing.T, name string, f func(t *testing.T)) bool {
	x := engine.Current()
	if x == nil {
		return t.Run(name, f)
	}
	rt, ok := x.T.(*runT)
	if !ok {
		return t.Run(name, f)
	}
	return rt.runSubtest(x, name, func() { rt.runBody(func() { require.Test(f, t) }) })
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
	if rt, ok := x.T.(*runT); ok {
		rt.parallel(x)
	}
}

// Deadline is t.Deadline. During an exploration, called in a synctest
// bubble (a goroutine of the bubble's scope, as for t.Run and t.Parallel)
// it panics as package testing's T.Deadline does on the bubble's T;
// otherwise it is t's deadline.
//
//go:norace
func Deadline(t *testing.T) (time.Time, bool) {
	if x := engine.Current(); x != nil {
		if rt, ok := x.T.(*runT); ok && rt.current().bubble {
			panic("testing: t.Deadline called inside synctest bubble")
		}
	}
	return t.Deadline()
}

// testMisuse is what a run's T keeps to catch the misuses of testing.T that
// Go itself detects: a method called after the test completed (Go panics),
// runtime.Goexit or panic(nil) in a test's goroutine (Go fails the test),
// FailNow from a goroutine other than the test's.
type testMisuse struct {
	done    bool               // the test function returned and its cleanups ran
	tests   []*engine.G        // the goroutines running the test and its subtests, innermost last
	exiting map[*engine.G]bool // goroutines that called FailNow or SkipNow
	goexit  string             // a test goroutine that ended by runtime.Goexit, not by FailNow
}

// checkDone panics as Go's testing does when what (Log or Fail) is called
// after the test completed: natively it crashes the test binary.
//
//go:norace
func (t *runT) checkDone(what, s string) {
	if !t.misuse.done {
		return
	}
	if what == "Log" {
		// Go logs a completed test's line to its parent, which for a
		// top-level test is still running: no panic (testing's
		// common.destination). Only a subtest whose parents are all done
		// panics with "Log in goroutine after ...", which a run cannot
		// show: its top-level test is never done before the run ends.
		return
	}
	panic("Fail in goroutine after " + t.Name() + " has completed")
}

// exitNow ends the calling goroutine for FailNow, Fatal or SkipNow. Go's
// FailNow must be called from the goroutine running the test: from another
// goroutine it ends only that one, and the test goes on (or hangs waiting
// for it); the failing run's output says so.
//
//go:norace
func (t *runT) exitNow(fn string) {
	if t.exec != nil {
		g := t.exec.Cur()
		if t.misuse.exiting == nil {
			t.misuse.exiting = map[*engine.G]bool{}
		}
		t.misuse.exiting[g] = true
		if fn != "" && !t.isTestGoroutine(g) {
			t.msgs = append(t.msgs, fmt.Sprintf("heddle: t.%s called from goroutine %s, not from the goroutine running the test: it ends only that goroutine (see testing.T.FailNow)", fn, g.ID))
		}
	}
	runtime.Goexit()
}

//go:norace
func (t *runT) isTestGoroutine(g *engine.G) bool {
	for _, tg := range t.misuse.tests {
		if tg == g {
			return true
		}
	}
	return false
}

// runBody runs the function of a test or subtest on the calling goroutine
// and notes if it ended by runtime.Goexit (or panic(nil) with
// GODEBUG=panicnil=1) other than through FailNow, Fatal or SkipNow, which
// Go reports as "test executed panic(nil) or runtime.Goexit". A panic ends
// it too, and is the run's bug already.
//
//go:norace
func (t *runT) runBody(body func()) {
	g := t.exec.Cur()
	t.misuse.tests = append(t.misuse.tests, g)
	returned := false
	defer func() {
		comeBack()
		// Not the last one necessarily: parallel subtests, and the tests
		// of a group (group.go), end in any order.
		for i := len(t.misuse.tests) - 1; i >= 0; i-- {
			if t.misuse.tests[i] == g {
				t.misuse.tests = append(t.misuse.tests[:i], t.misuse.tests[i+1:]...)
				break
			}
		}
		if !returned && !t.misuse.exiting[g] && !t.exec.Unwinding() && t.misuse.goexit == "" {
			t.misuse.goexit = g.ID
		}
	}()
	body()
	returned = true
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
	msg := "test executed panic(nil) or runtime.Goexit"
	if t.TB.Name() == MainTest {
		msg = "fatal error: no goroutines (main called runtime.Goexit) - deadlock!"
	}
	return &engine.Bug{Kind: engine.KindFail, Message: msg + " (in " + g.ID + ")", G: g}
}
