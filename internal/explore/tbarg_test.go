package explore

import "testing"

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
