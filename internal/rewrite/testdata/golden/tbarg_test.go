package tbarg

import (
	"testing"
)

// TestingT is an assertion library's own interface over *testing.T, as
// testify's assert.TestingT.
type TestingT interface {
	Errorf(format string, args ...any)
}

type fatalT interface {
	TestingT
	FailNow()
	Helper()
}

type runner interface {
	Run(name string, f func(t *testing.T)) bool
}

func equal(t TestingT, a, b int) bool {
	if a != b {
		t.Errorf("%d != %d", a, b)
		return false
	}
	return true
}

func must(t fatalT, ok bool) {
	t.Helper()
	if !ok {
		t.FailNow()
	}
}

func all(ts ...TestingT) {}

func tb(t testing.TB) {}

func anything(x any) {}

func sub(r runner) {}

type asserter struct{ t TestingT }

func newAsserter(t TestingT) *asserter { return &asserter{t} }

// checker is a callee the rewriter cannot name: what it calls may not be
// rewritten.
type checker interface {
	Equal(t TestingT, a, b int) bool
}

var (
	eq  = equal
	chk checker
)

func TestArgs(t *testing.T) {
	eq(t, 1, 2)          // wrapped: TestingT, a function value
	must(t, eq(t, 1, 1)) // must is rewritten: t as it is
	chk.Equal(t, 1, 2)   // wrapped: an interface's method
	equal(t, 1, 2)       // rewritten: t as it is
	all(t, t)            // rewritten, variadic
	a := newAsserter(t)  // rewritten
	eq(a.t, 1, 1)        // a TestingT passed on: wrapped if a *testing.T
	_ = a
	var x testing.TB = t
	eq(x, 1, 2)   // a testing.TB is wrapped too
	tb(t)         // testing.TB parameter: left alone
	anything(t)   // empty interface, a *testing.T: left alone
	anything(a.t) // empty interface, a TestingT: unwrapped
	anything(x)   // and a testing.TB
	sub(t)        // not satisfied by testing.TB: left alone
}

// Type assertions and switches on a value that may hold the wrapper see
// the T when they ask for what the T has and the wrapper has not.
func TestAssert(t *testing.T) {
	a := newAsserter(t)
	_, _ = a.t.(*testing.T) // unwrapped
	_, _ = a.t.(testing.TB) // unwrapped
	_, _ = a.t.(runner)     // unwrapped
	_, _ = a.t.(fatalT)     // left alone: the wrapper has these
	var x any = a.t
	_, _ = x.(interface{ Parallel() }) // unwrapped
	_, _ = x.(error)                   // left alone
	switch v := a.t.(type) {           // unwrapped
	case fatalT:
		_ = v
	case *testing.T:
	}
	switch x.(type) { // left alone
	case error, int:
	}
	f := a.t.Errorf // a method value of a TestingT
	f("%d", 1)
}

// A comparison of t with a value of an interface type, which may hold
// the wrapper, sees through it; one of t with a *testing.T, or with nil,
// is left alone.
func TestCompare(t *testing.T) {
	a := newAsserter(t)
	var x testing.TB = t
	var o *testing.T
	_ = a.t == t || a.t != x || x != a.t
	_ = t == o || t != nil || a.t == nil
}

type embeds struct{ TestingT }

func gen[T TestingT](t T) { t.Errorf("generic") }

// Calls through a TestingT go to the run's T when it holds a *testing.T:
// a method expression, a promoted method, a type parameter, a deferred
// call.
func TestRoute(t *testing.T) {
	a := newAsserter(t)
	TestingT.Errorf(a.t, "method expression")
	embeds{a.t}.Errorf("promoted")
	gen(a.t)
	gen(t)
	defer a.t.Errorf("deferred")
}

// A key of a map keyed by a TestingT that may hold the wrapper is
// unwrapped; one that is a *testing.T, or the key of another map, is left
// alone.
func TestKeys(t *testing.T) {
	a := newAsserter(t)
	m := map[TestingT]int{a.t: 1, t: 2}
	_ = m[a.t]
	m[a.t]++
	if _, ok := m[a.t]; ok {
		delete(m, a.t)
	}
	n := map[int]TestingT{1: a.t}
	_ = n[1]
}
