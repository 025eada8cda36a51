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

func TestArgs(t *testing.T) {
	equal(t, 1, 2)          // wrapped: TestingT
	must(t, equal(t, 1, 1)) // both wrapped
	all(t, t)               // variadic: each wrapped
	a := newAsserter(t)     // wrapped
	_ = a
	var x testing.TB = t
	equal(x, 1, 2) // a testing.TB is wrapped too
	tb(t)          // testing.TB parameter: left alone
	anything(t)    // empty interface: left alone
	sub(t)         // not satisfied by testing.TB: left alone
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
