package explore

import (
	"fmt"
	"testing"
)

// logger is an interface of a helper's own that testing.TB satisfies
// (zerolog's TestingLog).
type logger interface{ Log(args ...any) }

func TestTBEqual(t *testing.T) {
	var w logger = TBArg(t)
	if w == logger(t) {
		t.Fatal("the wrapper compares equal to t as an interface value: the test checks nothing")
	}
	if !TBEqual(w, t) || !TBEqual(t, w) || !TBEqual(w, TBArg(t)) {
		t.Errorf("TBEqual does not see through the wrapper of t")
	}
	var other testing.T
	if TBEqual(w, &other) || TBEqual(w, nil) || TBEqual(nil, t) {
		t.Errorf("TBEqual: the wrapper of t equals another T or nil")
	}
	if w != logger(TBArg(t)) {
		t.Errorf("two wrappers of t are not equal")
	}
	if !TBEqual(nil, nil) {
		t.Errorf("TBEqual(nil, nil) is false")
	}
}

// The wrapper prints as the T it wraps for every verb fmt asks a
// Formatter about, flags and width included.
func TestTBArgFormat(t *testing.T) {
	w := TBArg(t)
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%20.3v", "%-8s|"} {
		if got, want := fmt.Sprintf(format, w), fmt.Sprintf(format, t); got != want {
			t.Errorf("Sprintf(%q) of the wrapper = %.80s, want %.80s", format, got, want)
		}
	}
	if got := fmt.Sprintf("%T", w); got == fmt.Sprintf("%T", t) {
		t.Errorf("%%T of the wrapper is %s: the test checks nothing", got)
	}
}

// Outside an exploration TBRoute routes nothing; TBArgOf wraps testing's
// T, B and F and nothing else.
func TestTBRouteArgOf(t *testing.T) {
	if _, ok := TBRoute(t); ok {
		t.Errorf("TBRoute(t) routes outside an exploration")
	}
	if tb, ok := TBArgOf(t); !ok || TBUnwrap(tb) != any(t) {
		t.Errorf("TBArgOf(t) = %T, %v", tb, ok)
	}
	var fake logger = fakeLogger{}
	if _, ok := TBArgOf(fake); ok {
		t.Errorf("TBArgOf wraps a helper's fake T")
	}
	if _, ok := TBRoute(fake); ok {
		t.Errorf("TBRoute routes a helper's fake T")
	}
	if tb, ok := TBArgOf(TBArg(t)); ok {
		t.Errorf("TBArgOf wraps the wrapper again: %T", tb)
	}
}

type fakeLogger struct{}

func (fakeLogger) Log(args ...any) {}
