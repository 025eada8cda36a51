package rt

import (
	"reflect"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// Explore runs body under heddle's scheduler many times, one interleaving
// per run, and reports the first bug on t. The rewriter turns
//
//	func TestX(t *testing.T) { body }
//
// into
//
//	func TestX(t *testing.T) { rt.Explore(t, func(t *testing.T) { body }) }
//
// How many runs, with which strategy and where schedules go is read from
// the environment that `heddle test` sets; see heddle.dev/internal/explore.
func Explore(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	recordTestTail()
	explore.Test(t, body)
}

// TB replaces the receiver of a method call on a *testing.T or testing.TB:
// t.Errorf(...) becomes rt.TB(t).Errorf(...). During a run it returns the
// run's own T, so that failures, logs and cleanups belong to that run;
// otherwise it returns t.
func TB(t testing.TB) testing.TB {
	return explore.TB(t)
}

// TBValue replaces the receiver in the closure the rewriter makes of a
// method value of a *testing.T or testing.TB (f := t.Fatal): TB, with that
// closure marked a helper, so that failures name its caller's line.
func TBValue(t testing.TB) testing.TB {
	return explore.TBValue(t)
}

// TRun replaces t.Run(name, f). Inside an exploration the subtest runs in a
// controlled goroutine of the same run, and TRun waits for it.
func TRun(t *testing.T, name string, f func(t *testing.T)) bool {
	return explore.Run(t, name, f)
}

// ParallelAny replaces x.Parallel() on a value of interface type, such as a
// test helper's interface over *testing.T. When x is, or embeds, a
// *testing.T, it does what TParallel does; otherwise it calls x.Parallel().
func ParallelAny(x interface{ Parallel() }) {
	if t, ok := testingT(reflect.ValueOf(x)); ok {
		TParallel(t)
		return
	}
	x.Parallel()
}

// RunAny replaces x.Run(name, f) on a value of an interface type with
// testing.T's Run method, such as the runner testify's suite.Run runs its
// test methods through. When x is, or embeds, a *testing.T, it does what
// TRun does; otherwise it calls x.Run(name, f).
func RunAny(x interface {
	Run(string, func(*testing.T)) bool
}, name string, f func(*testing.T)) bool {
	if t, ok := testingT(reflect.ValueOf(x)); ok {
		return TRun(t, name, f)
	}
	return x.Run(name, f)
}

// ReflectMethodByName replaces v.MethodByName(name). During an
// exploration, the Run and Parallel methods of a *testing.T (or of a value
// that embeds one), which helper libraries call by reflection (quicktest's
// C.Run finds c.TB's Run so), are functions of the same type that do what
// t.Run and t.Parallel do under heddle: the subtest runs in the run. Any
// other method is v's.
func ReflectMethodByName(v reflect.Value, name string) reflect.Value {
	m := v.MethodByName(name)
	if !m.IsValid() || (name != "Run" && name != "Parallel") || engine.Current() == nil {
		return m
	}
	t, ok := testingT(v)
	if !ok {
		return m
	}
	switch run := func(name string, f func(*testing.T)) bool { return TRun(t, name, f) }; {
	case name == "Run" && m.Type() == reflect.TypeOf(run):
		return reflect.ValueOf(run)
	case name == "Parallel" && m.Type() == reflect.TypeOf(t.Parallel):
		return reflect.ValueOf(func() { TParallel(t) })
	}
	return m
}

// testingT finds the *testing.T that v is or embeds.
func testingT(v reflect.Value) (*testing.T, bool) {
	for depth := 0; depth < 8 && v.IsValid(); depth++ {
		if t, ok := v.Interface().(*testing.T); ok {
			return t, t != nil
		}
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return nil, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, false
		}
		var next reflect.Value
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Anonymous {
				next = v.Field(i)
				break
			}
		}
		if !next.IsValid() || !next.CanInterface() {
			return nil, false
		}
		v = next
	}
	return nil, false
}

// TParallel replaces t.Parallel(). Explored tests run one at a time, so
// inside an exploration it does nothing.
func TParallel(t *testing.T) {
	explore.Parallel(t)
}

// TDeadline replaces t.Deadline() on a *testing.T: inside a synctest
// bubble it panics, as package testing's does.
func TDeadline(t *testing.T) (time.Time, bool) {
	return explore.Deadline(t)
}

// TBArg replaces a *testing.T or testing.TB passed where code takes it as
// an interface of its own (testify's assert.Equal(t, ...), require.New(t),
// a helper's TestingT): the value it returns satisfies every such
// interface and routes failures, logs and cleanups to the run's T, so that
// a failure reported through that code is a bug of the run.
func TBArg(t testing.TB) testing.TB {
	return explore.TBArg(t)
}

// TBRoute replaces the receiver x of a call of one of testing.TB's
// methods through an interface of the code's own that testing.TB
// satisfies (assert.TestingT's t.Errorf in a rewritten testify): a
// *testing.T in x is passed to rewritten callees as it is, so their calls
// through the interface go to the run's T here, as rt.TB's do. Any other
// value (a helper's fake T, a logger) is x itself.
func TBRoute[I any](x I) I {
	if tb, ok := explore.TBRoute(x); ok {
		if y, ok := tb.(I); ok {
			return y
		}
	}
	return x
}

// TBRouteValue is TBRoute for the closure the rewriter makes of a method
// value (f := x.Errorf): as TBValue, that closure is marked a helper.
func TBRouteValue[I any](x I) I {
	if _, ok := explore.TBRoute(x); ok {
		if y, ok := explore.TBValue(any(x).(testing.TB)).(I); ok {
			return y
		}
	}
	return x
}

// TBArgOf replaces x, of an interface of rewritten code's own, passed
// where code that is not rewritten takes an interface of its own: TBArg's
// wrapper when x holds a *testing.T, x itself otherwise.
func TBArgOf[I any](x I) I {
	if tb, ok := explore.TBArgOf(x); ok {
		if y, ok := tb.(I); ok {
			return y
		}
	}
	return x
}

// TBUnwrap replaces x in a type assertion or type switch on a value that
// may hold TBArg's wrapper, where the asserted type is one the T has but
// the wrapper has not (x.(*testing.T)), and a value of such an interface
// passed as an empty interface (fmt's %T, reflect.TypeOf): the T the
// wrapper wraps, or x itself.
func TBUnwrap(x any) any {
	return explore.TBUnwrap(x)
}

// TBKey replaces the key k of a map whose keys are testing.TB or a
// helper's TestingT (m[k], delete(m, k)): the T TBArg's wrapper wraps, or
// k itself.
func TBKey[K any](k K) K {
	if y, ok := explore.TBUnwrap(k).(K); ok {
		return y
	}
	return k
}

// TBEqual replaces x == y where one of x, y is a *testing.T or
// testing.TB and the other of an interface type, which may hold TBArg's
// wrapper of it: the wrapper compares as the T it wraps.
func TBEqual(x, y any) bool {
	return explore.TBEqual(x, y)
}

// DeepEqual replaces reflect.DeepEqual: an argument that is TBArg's
// wrapper compares as the T it wraps (testify's assert.Equal(t, w.T, t)).
// A wrapper nested in a value (a field) is compared as it is.
func DeepEqual(x, y any) bool {
	return reflect.DeepEqual(explore.TBUnwrap(x), explore.TBUnwrap(y))
}
