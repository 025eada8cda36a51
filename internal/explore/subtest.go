package explore

import (
	"context"
	"strings"
	"unsafe"

	"heddle.dev/internal/engine"
)

// scope is one test of a run: the test itself (the root) or a subtest
// started by t.Run, as package testing keeps a T per subtest. Subtests
// run in controlled goroutines of the run; the scope of a goroutine is its
// own if it runs a subtest, or else the scope of the goroutine that
// started it.
type scope struct {
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
	cleanups     []func()
	cleaning     bool // its cleanups have started: t.Run panics (testing's cleanupStarted)
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
	// parallel subtests then start), done when the subtest is over (its
	// parallel subtests ended, its cleanups ran).
	ready, bodyDone, done *engine.Event
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

// markFailed marks the current scope failed, and its ancestors, as a
// subtest's failure fails its parents.
//
//go:norace
func (t *runT) markFailed() {
	for sc := t.current(); sc != nil; sc = sc.parent {
		sc.failed = true
	}
}

// addCleanup registers f with the current scope. It is a scheduling
// point, a write of the scope's list of cleanups: two goroutines that
// register cleanups (or the test and a goroutine) do so in either order,
// and the cleanups run in the reverse order. It was no step, and an
// exhaustive search explored one order of such goroutines only.
//
//go:norace
func (t *runT) addCleanup(f func()) {
	sc := t.current()
	if x := t.exec; x != nil && engine.Current() == x && x.Cur() != nil && !x.Unwinding() {
		x.Access(unsafe.Pointer(&sc.cleanups), engine.OpAtomicWrite)
	}
	sc.cleanups = append(sc.cleanups, f)
}

// runSubtest is t.Run in a run: f runs in a controlled goroutine with a
// scope of its own; t.Run returns when f returned or called t.Parallel.
// Parallel subtests run, concurrently, once the function that started
// them returned, and their parent is over only when they are.
//
//go:norace
func (t *runT) runSubtest(x *engine.Exec, name string, f func()) bool {
	parent := t.current()
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
// scope under parent, and returns when f returned or called t.Parallel:
// t.Run's subtest, or one test of a group of parallel tests (group.go).
//
//go:norace
func (t *runT) startScope(x *engine.Exec, parent *scope, name, full string, f func()) bool {
	if parent.bodyDone == nil {
		parent.bodyDone = x.NewEvent()
	}
	sc := &scope{parent: parent, name: name, full: full, ready: x.NewEvent(), done: x.NewEvent()}
	parent.kids = append(parent.kids, sc)
	if t.scopes == nil {
		t.scopes = map[*engine.G]*scope{}
	}
	x.Go(func() {
		t.scopes[x.Cur()] = sc
		defer t.endScope(x, sc)
		f()
	})
	x.Wait(sc.ready)
	return !sc.failed
}

// endScope ends a scope whose test function returned (or called Goexit,
// through t.FailNow or t.SkipNow): its parallel subtests start, it waits
// for them, then its context is cancelled, then its cleanups run, last
// registered first.
//
//go:norace
func (t *runT) endScope(x *engine.Exec, sc *scope) {
	for _, k := range sc.kids {
		if k.parallel {
			x.Fire(sc.bodyDone)
			x.Wait(k.done)
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
		if sc.parallel {
			x.Fire(sc.done) // its parent waits for it
		}
		if sc.ready != nil {
			x.Fire(sc.ready) // t.Run returns, if it did not at t.Parallel
		}
	}()
	t.runCleanups(x, sc)
}

// runCleanups runs the cleanups of a scope, last registered first, on the
// goroutine that ran its function: as testing's runCleanup, a cleanup
// that ends by runtime.Goexit (t.FailNow, t.Fatal, t.SkipNow) or panics
// does not keep the ones registered before it from running, and a
// FailNow there is the test goroutine's.
//
//go:norace
func (t *runT) runCleanups(x *engine.Exec, sc *scope) {
	g := x.Cur()
	t.misuse.tests = append(t.misuse.tests, g)
	defer func() {
		comeBack() // a cleanup that ended its goroutine
		for i := len(t.misuse.tests) - 1; i >= 0; i-- {
			if t.misuse.tests[i] == g {
				t.misuse.tests = append(t.misuse.tests[:i], t.misuse.tests[i+1:]...)
				break
			}
		}
		if len(sc.cleanups) > 0 && !x.Unwinding() {
			t.runCleanups(x, sc)
		}
	}()
	for len(sc.cleanups) > 0 {
		f := sc.cleanups[len(sc.cleanups)-1]
		sc.cleanups = sc.cleanups[:len(sc.cleanups)-1]
		f()
		comeBack() // t.Cleanup(srv.Close)
	}
}

// parallel is t.Parallel in a run. A subtest lets its t.Run return and
// waits for its parent's function to return, as package testing does; the
// test itself does nothing: its exploration runs it alone, and notes that
// it called t.Parallel (go test runs it beside the other parallel tests,
// which heddle test explores together: group.go).
//
//go:norace
func (t *runT) parallel(x *engine.Exec) {
	sc := t.current()
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
func (t *runT) checkParallel() {
	sc := t.current()
	for c := sc; c != nil; c = c.parent {
		if c.isParallel {
			panic(parallelConflict)
		}
	}
	sc.denyParallel = true
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
		pname = t.TB.Name()
	}
	if t.subNames == nil {
		t.subNames = subNames{}
	}
	return t.subNames.unique(pname, rewriteName(name))
}
