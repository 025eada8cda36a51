package explore

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore/require"
)

// scope is one test of a run: the test itself (the root) or a subtest
// started by t.Run, as package testing keeps a T per subtest. Each has a
// *testing.T of its own (t), and is the run's testing.TB for it (t.go):
// a method called on a T acts on its scope. Subtests run in controlled
// goroutines of the run.
type scope struct {
	// TB is the real test's T, for testing.TB's unexported method (and
	// what a scope does not change, such as ArtifactDir).
	testing.TB
	rs      *runT
	t       *testing.T // its T: the real one for the root, a copy for a subtest (newT)
	g       *engine.G  // the goroutine that runs its function and its cleanups
	parent  *scope
	name    string // the subtest's name, sanitized; "" for the root
	full    string // its full name as testing gives it ("TestX/sub#01"); "" for the root
	failed  bool
	skipped bool // it called t.Skip (or SkipNow); the root's skips the run
	// skippedAside: the skip came from a goroutine that runs no test (one
	// the test started), before the test completed: whether it comes
	// before or after depends on the schedule, so only the first run's
	// skips the exploration.
	skippedAside bool
	// finished: its function returned, or FailNow or SkipNow was called
	// on its T (testing's common.finished); done: it completed, its
	// function returned and its cleanups ran (common.done): a failing
	// call on its T then panics, and a line logged goes to its parent.
	finished, done bool
	// aborted: its function ended by runtime.Goexit after FailNow on a
	// parent's T: its t.Run ends the goroutine that called it.
	aborted  bool
	helpers  map[string]bool // the functions that called Helper on its T
	out      runOutput       // t.Output()'s partial last line
	cleanups []cleanup
	cleaning bool // its cleanups have started: t.Run panics (testing's cleanupStarted)
	// ctx is its t.Context(), made on first use, cancelled by cancel just
	// before its cleanups run.
	ctx      context.Context
	cancel   func(error)
	parallel bool // the subtest called t.Parallel
	// isParallel: the test or subtest called t.Parallel (the root too, on
	// which parallel is not set); denyParallel: it called t.Setenv or
	// t.Chdir. Package testing panics on t.Parallel twice, and on one
	// after the other.
	isParallel, denyParallel bool
	bubble                   bool // the test of a synctest bubble (synctest.go): it has its parent's name
	kids                     []*scope
	// ready happens when t.Run may return: the subtest ended or called
	// t.Parallel. bodyDone happens when the test function returned (its
	// parallel subtests then start), over when the subtest is over (its
	// parallel subtests ended, its cleanups ran).
	ready, bodyDone, over *engine.Event
}

// scopeOf returns the scope of goroutine g.
//
//go:norace
func (t *runT) scopeOf(g *engine.G) *scope {
	for ; g != nil; g = g.Parent {
		if sc, ok := t.scopes[g]; ok {
			return sc
		}
	}
	return &t.root
}

// current returns the scope of the running goroutine.
//
//go:norace
func (t *runT) current() *scope {
	if t.exec == nil || engine.Current() != t.exec {
		return &t.root
	}
	return t.scopeOf(t.exec.Cur())
}

// path is the prefix of the scope's log lines: "outer/inner: ".
//
//go:norace
func (sc *scope) path() string {
	var names []string
	for ; sc != nil && sc.parent != nil; sc = sc.parent {
		if !sc.bubble {
			names = append(names, sc.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return strings.Join(names, "/") + ": "
}

// addCleanup registers f with sc. It is a scheduling point, a write of
// the scope's list of cleanups: two goroutines that register cleanups (or
// the test and a goroutine) do so in either order, and the cleanups run
// in the reverse order. It was no step, and an exhaustive search explored
// one order of such goroutines only.
//
//go:norace
func (t *runT) addCleanup(sc *scope, f func()) {
	if x := t.exec; x != nil && engine.Current() == x && x.Cur() != nil && !x.Unwinding() {
		x.Access(unsafe.Pointer(&sc.cleanups), engine.OpAtomicWrite)
	}
	sc.cleanups = append(sc.cleanups, cleanup{f: f})
}

// addRestore registers f, heddle's own undoing of what t.Setenv, t.Chdir
// or t.TempDir did to the process, with sc: a cleanup that runs even when
// the run is unwound while a goroutine is away (runCleanups), so that the
// runs after it start from the same process state.
//
//go:norace
func (t *runT) addRestore(sc *scope, f func()) {
	t.addCleanup(sc, f)
	sc.cleanups[len(sc.cleanups)-1].restore = true
}

// cleanup is a function registered with t.Cleanup, or heddle's restore of
// the process state a method of T changed (addRestore).
type cleanup struct {
	f       func()
	restore bool
}

// runSubtest is t.Run on parent's T in a run: f runs in a controlled
// goroutine with a scope and a T of its own; t.Run returns when f
// returned or called t.Parallel. Parallel subtests run, concurrently,
// once the function that started them returned, and their parent is over
// only when they are.
//
//go:norace
func (t *runT) runSubtest(x *engine.Exec, parent *scope, name string, f func(*testing.T)) bool {
	if parent.bubble {
		panic("testing: t.Run called inside synctest bubble") // testing's T.Run
	}
	if parent.cleaning {
		panic("testing: t.Run called during t.Cleanup")
	}
	full := t.subtestName(parent, name)
	if !subtestMatcher().Selects(full) {
		// -run or -skip does not select it: t.Run returns true without
		// running it, as testing's does.
		t.unselected = append(t.unselected, full)
		return true
	}
	return t.startScope(x, parent, sanitize(name), full, f)
}

// startScope runs f, a test function, in a controlled goroutine with a new
// scope under parent and a T of its own, and returns when f returned or
// called t.Parallel: t.Run's subtest, or one test of a group of parallel
// tests (group.go). If f ended after FailNow on a parent's T, the calling
// goroutine ends too, as testing's T.Run ends it.
//
//go:norace
func (t *runT) startScope(x *engine.Exec, parent *scope, name, full string, f func(*testing.T)) bool {
	if parent.bodyDone == nil {
		parent.bodyDone = x.NewEvent()
	}
	sc := t.newScope(parent, name, full)
	sc.ready, sc.over = x.NewEvent(), x.NewEvent()
	parent.kids = append(parent.kids, sc)
	if t.scopes == nil {
		t.scopes = map[*engine.G]*scope{}
	}
	x.Go(func() {
		t.scopes[x.Cur()] = sc
		defer t.endScope(x, sc)
		t.runBody(sc, func() { require.Test(f, sc.t) })
	})
	x.Wait(sc.ready)
	if sc.aborted {
		runtime.Goexit()
	}
	return !sc.failed
}

// newScope returns a new scope under parent, with a T of its own.
//
//go:norace
func (t *runT) newScope(parent *scope, name, full string) *scope {
	sc := &scope{TB: t.real, rs: t, t: newT(t.real), parent: parent, name: name, full: full}
	if t.byT == nil {
		t.byT = map[*testing.T]*scope{}
	}
	t.byT[sc.t] = sc
	return sc
}

// endScope ends a scope whose test function returned (or called Goexit,
// through t.FailNow or t.SkipNow): its parallel subtests start, it waits
// for them, then its context is cancelled, then its cleanups run, last
// registered first; then it is done.
//
//go:norace
func (t *runT) endScope(x *engine.Exec, sc *scope) {
	if sc.parent != nil && !sc.bubble && engine.Panicking() {
		t.panicScope(x, sc)
		return
	}
	for _, k := range sc.kids {
		if k.parallel {
			x.Fire(sc.bodyDone)
			x.Wait(k.over)
		}
	}
	if sc.cancel != nil {
		sc.cancel(context.Canceled)
	}
	sc.cleaning = true
	// The scope ends even if a cleanup ends its goroutine (t.FailNow,
	// t.SkipNow, runtime.Goexit): testing reports the test from a
	// deferred call (its issue 41355).
	defer func() {
		if sc.parent != nil {
			// The root is done in finish.
			t.endStep(sc)
			sc.done = true
		}
		if sc.parallel {
			x.Fire(sc.over) // its parent waits for it
		}
		if sc.ready != nil {
			x.Fire(sc.ready) // t.Run returns, if it did not at t.Parallel
		}
	}()
	t.runCleanups(x, sc)
}

// panicScope ends a subtest whose function panicked, as testing's
// tRunner does before it panics again (its doPanic): the subtest fails,
// its context is cancelled and its cleanups run, then its parents', up to
// the root, on the subtest's goroutine. Its parallel subtests never start
// and its t.Run never returns: natively the process dies once the panic
// is through. Until then the other goroutines run, and one of them may
// crash it first: the goroutine ends the run at a step of its own
// (engine's panic window, MarkTestGoroutine).
//
//go:norace
func (t *runT) panicScope(x *engine.Exec, sc *scope) {
	for p := sc; p != nil; p = p.parent {
		p.failed = true
	}
	for p := sc; p != nil; p = p.parent {
		if p.cancel != nil {
			p.cancel(context.Canceled)
		}
		p.cleaning = true
		t.runCleanups(x, p)
	}
	x.MarkTestGoroutine()
}

// runCleanups runs the cleanups of a scope, last registered first, on the
// goroutine that ran its function: as testing's runCleanup, a cleanup
// that ends by runtime.Goexit (t.FailNow, t.Fatal, t.SkipNow) or panics
// does not keep the ones registered before it from running.
//
// A run unwound while one of its goroutines is away in code heddle does
// not control (its time budget ended while a subtest computed natively
// after a system call) runs only heddle's restores: natively the test's
// cleanups come after its subtests return, and that goroutine, which
// nothing stops, still uses what they free. ristretto's z package crashed
// the test binary (SIGSEGV in a copy into a buffer its cleanup had
// unmapped: TestBufferSimpleSort's subtest sorting an mmap'd buffer).
//
//go:norace
func (t *runT) runCleanups(x *engine.Exec, sc *scope) {
	defer func() {
		comeBack() // a cleanup that ended its goroutine
		if len(sc.cleanups) > 0 && !x.Unwinding() {
			t.runCleanups(x, sc)
		}
	}()
	for len(sc.cleanups) > 0 {
		c := sc.cleanups[len(sc.cleanups)-1]
		sc.cleanups = sc.cleanups[:len(sc.cleanups)-1]
		if !c.restore && x.Unwinding() && x.Away() {
			t.keptCleanups++
			continue
		}
		c.f()
		comeBack() // t.Cleanup(srv.Close)
	}
}

// parallel is t.Parallel on sc's T in a run. A subtest lets its t.Run
// return and waits for its parent's function to return, as package
// testing does; the test itself does nothing: its exploration runs it
// alone, and notes that it called t.Parallel (go test runs it beside the
// other parallel tests, which heddle test explores together: group.go).
//
//go:norace
func (t *runT) parallel(x *engine.Exec, sc *scope) {
	switch {
	case sc.isParallel:
		panic("testing: t.Parallel called multiple times")
	case sc.bubble:
		panic("testing: t.Parallel called inside synctest bubble")
	case sc.denyParallel:
		panic(parallelConflict)
	}
	sc.isParallel = true
	if sc.parent == nil && t.topParallel != nil {
		*t.topParallel = true
	}
	if sc.parent == nil || sc.parallel {
		return
	}
	sc.parallel = true
	x.Fire(sc.ready)
	x.Wait(sc.parent.bodyDone)
}

// checkParallel is what package testing does before t.Setenv and
// t.Chdir: it panics if the test or one of its parents called t.Parallel,
// and t.Parallel panics afterwards.
//
//go:norace
func (sc *scope) checkParallel() {
	for c := sc; c != nil; c = c.parent {
		if c.isParallel {
			panic(parallelConflict)
		}
	}
	sc.denyParallel = true
}

// newT returns a *testing.T for a subtest of a run: a copy of the real
// test's T, whose identity tells the subtest's scope (runT.byT). The
// rewritten calls on it go to that scope; a call that reaches it directly
// (code heddle does not rewrite) acts on the copy, which is made a child
// of the real T, so that a failure there fails the real T, as a failure
// on the real T does (realfail.go).
//
//go:norace
func newT(real *testing.T) *testing.T {
	c := new(testing.T)
	reflect.ValueOf(c).Elem().Set(reflect.ValueOf(real).Elem())
	parent := reflect.ValueOf(c).Elem().FieldByName("parent")
	common := reflect.ValueOf(real).Elem().FieldByName("common")
	if parent.IsValid() && common.IsValid() && parent.Type() == reflect.PointerTo(common.Type()) {
		p := reflect.NewAt(parent.Type(), unsafe.Pointer(parent.UnsafeAddr())).Elem()
		p.Set(reflect.NewAt(common.Type(), unsafe.Pointer(common.UnsafeAddr())))
	}
	return c
}

// subtestName is the full name testing gives subtest name of parent: its
// parent's name, a slash, the name rewritten and made unique in the run.
//
//go:norace
func (t *runT) subtestName(parent *scope, name string) string {
	for parent.bubble && parent.parent != nil {
		parent = parent.parent // a synctest bubble's test has its parent's name
	}
	pname := parent.full
	if parent.parent == nil {
		pname = t.real.Name()
	}
	if t.subNames == nil {
		t.subNames = subNames{}
	}
	return t.subNames.unique(pname, rewriteName(name))
}
