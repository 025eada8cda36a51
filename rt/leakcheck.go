package rt

import (
	"os"
	"reflect"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// go.uber.org/goleak finds leaked goroutines by listing every goroutine of
// the process (runtime.Stack). In a test binary heddle explores, it sees
// heddle's own goroutines (the exploration's, its watchdog and monitor) and
// the run's goroutines parked between two of their steps, which natively
// would have ended while goleak retried (its retries sleep on the wall
// clock, in code heddle does not rewrite, holding the run's processor):
// `defer goleak.VerifyNone(t)` failed every test on its first run, and
// goleak.VerifyTestMain failed every package. heddle checks for leaks
// itself, at the end of every run (a goroutine blocked forever, or still
// running, after the test returned, is a leak bug with its schedule), so
// during an exploration goleak's checks do nothing. The rewriter wraps
// the functions: goleak.VerifyNone becomes GoleakVerifyNone(goleak.VerifyNone),
// in calls and as a value.

// exploring reports whether heddle explores in this process: a run is
// going, or heddle started the binary.
func exploring() bool {
	if engine.Current() != nil {
		return true
	}
	_, ok := os.LookupEnv(explore.EnvConfig)
	return ok
}

// GoleakVerifyNone wraps goleak.VerifyNone(t, opts...): during an
// exploration it does nothing.
func GoleakVerifyNone[F any](f F) F { return noCheck(f) }

// GoleakFind wraps goleak.Find(opts...): during an exploration it finds
// nothing (a nil error).
func GoleakFind[F any](f F) F { return noCheck(f) }

// GoleakVerifyTestMain wraps goleak.VerifyTestMain(m, opts...): during an
// exploration it runs the tests and exits with their status, as TestMain's
// os.Exit(m.Run()) does.
func GoleakVerifyTestMain[F any](f F) F {
	if !exploring() {
		return f
	}
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.Type().NumIn() == 0 {
		return f
	}
	return reflect.MakeFunc(v.Type(), func(args []reflect.Value) []reflect.Value {
		m, ok := args[0].Interface().(interface{ Run() int })
		if !ok {
			return v.Call(args)
		}
		Exit(m.Run())
		return zeros(v.Type())
	}).Interface().(F)
}

// noCheck returns f, or during an exploration a function of f's type that
// does nothing and returns zero values.
func noCheck[F any](f F) F {
	if !exploring() {
		return f
	}
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func {
		return f
	}
	return reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value { return zeros(v.Type()) }).Interface().(F)
}

// zeros are the zero values of the results of function type t.
func zeros(t reflect.Type) []reflect.Value {
	out := make([]reflect.Value, t.NumOut())
	for i := range out {
		out[i] = reflect.Zero(t.Out(i))
	}
	return out
}
