package explore

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"

	"heddle.dev/internal/engine"
)

// tbArg is a *testing.T (or testing.TB) that rewritten code hands to code
// that takes it as an interface of its own: testify's assert.TestingT and
// require.TestingT, gotest.tools' TestingT, a helper module's interface.
// That code is not rewritten, or calls the methods through its interface,
// so its t.Errorf would reach the real T directly: a failure heddle does
// not see. tbArg routes every method a scope has to the run's T, as rt.TB
// does for method calls in rewritten code (Name too: testify's assertions
// print the name of the subtest that failed); the others (ArtifactDir,
// testing.TB's unexported method) go to the embedded T. It is a value,
// not a pointer: two wrappers of one t (a helper's TestingT kept by two
// values, compared) are equal, as the two t are natively.
type tbArg struct {
	testing.TB
}

// TBArg wraps t for code that takes it as an interface other than
// testing.TB (see tbArg).
func TBArg(t testing.TB) testing.TB {
	if t == nil {
		return nil
	}
	if _, ok := t.(tbArg); ok {
		return t
	}
	return tbArg{TB: t}
}

// TBEqual is x == y for values of which one is a *testing.T or
// testing.TB, the other of an interface type: a value TBArg wrapped
// compares as the T itself.
func TBEqual(x, y any) bool {
	return TBUnwrap(x) == TBUnwrap(y)
}

// TBUnwrap is the T a value TBArg returned wraps, or v itself.
func TBUnwrap(v any) any {
	if a, ok := v.(tbArg); ok {
		return a.TB
	}
	return v
}

// TBRoute is the run's T for v when v is one of package testing's T, B
// or F during an exploration (as TB), for a method of testing.TB that
// rewritten code calls through an interface of its own; ok is false for
// any other value, which the call keeps (a helper's fake T, a logger).
func TBRoute(v any) (tb testing.TB, ok bool) {
	switch v := v.(type) {
	case *testing.T, *testing.B, *testing.F:
		if engine.Current() == nil {
			return nil, false
		}
		return TB(v.(testing.TB)), true
	}
	return nil, false
}

// TBArgOf is TBArg(v) when v is one of package testing's T, B or F, for
// a value of an interface of rewritten code's own passed on to code that
// is not rewritten; ok is false for any other value.
func TBArgOf(v any) (tb testing.TB, ok bool) {
	switch v := v.(type) {
	case *testing.T, *testing.B, *testing.F:
		return TBArg(v.(testing.TB)), true
	}
	return nil, false
}

func (a tbArg) run() testing.TB { return TB(a.TB) }

//go:norace
func (a tbArg) Error(args ...any) { a.run().Error(args...) }

//go:norace
func (a tbArg) Errorf(format string, args ...any) { a.run().Errorf(format, args...) }

//go:norace
func (a tbArg) Log(args ...any) { a.run().Log(args...) }

//go:norace
func (a tbArg) Logf(format string, args ...any) { a.run().Logf(format, args...) }

//go:norace
func (a tbArg) Fail() { a.run().Fail() }

//go:norace
func (a tbArg) Failed() bool { return a.run().Failed() }

//go:norace
func (a tbArg) FailNow() { a.run().FailNow() }

//go:norace
func (a tbArg) Fatal(args ...any) { a.run().Fatal(args...) }

//go:norace
func (a tbArg) Fatalf(format string, args ...any) { a.run().Fatalf(format, args...) }

//go:norace
func (a tbArg) Skip(args ...any) { a.run().Skip(args...) }

//go:norace
func (a tbArg) Skipf(format string, args ...any) { a.run().Skipf(format, args...) }

//go:norace
func (a tbArg) SkipNow() { a.run().SkipNow() }

//go:norace
func (a tbArg) Skipped() bool { return a.run().Skipped() }

//go:norace
func (a tbArg) Cleanup(f func()) { a.run().Cleanup(f) }

//go:norace
func (a tbArg) TempDir() string { return a.run().TempDir() }

//go:norace
func (a tbArg) Setenv(key, value string) { a.run().Setenv(key, value) }

// Chdir and Context are testing.TB's from Go 1.24 on; the runtime builds
// with older toolchains too, so they are not called through testing.TB.
//
//go:norace
func (a tbArg) Chdir(dir string) {
	if sc, ok := a.run().(*scope); ok {
		sc.Chdir(dir)
		return
	}
	a.TB.(interface{ Chdir(string) }).Chdir(dir)
}

//go:norace
func (a tbArg) Context() context.Context {
	if sc, ok := a.run().(*scope); ok {
		return sc.Context()
	}
	return a.TB.(interface{ Context() context.Context }).Context()
}

//go:norace
func (a tbArg) Name() string { return a.run().Name() }

// Output and Attr are testing.TB's from Go 1.25 on.
//
//go:norace
func (a tbArg) Output() io.Writer {
	if sc, ok := a.run().(*scope); ok {
		return sc.Output()
	}
	return a.TB.(interface{ Output() io.Writer }).Output()
}

//go:norace
func (a tbArg) Attr(key, value string) {
	if sc, ok := a.run().(*scope); ok {
		sc.Attr(key, value)
		return
	}
	a.TB.(interface{ Attr(string, string) }).Attr(key, value)
}

// Helper marks its caller as a helper of the run's T: runT.Helper would
// mark this method instead.
//
//go:norace
func (a tbArg) Helper() {
	sc, ok := a.run().(*scope)
	if !ok {
		a.TB.Helper()
		return
	}
	if pc, _, _, ok := runtime.Caller(1); ok {
		sc.markHelper(pc)
	}
}

// Format prints the T the wrapper wraps as fmt prints it natively (%v,
// %+v, %#v, %s, %d...), in any code: fmt asks a Formatter for every verb
// but %T and %p, which show the wrapper.
func (a tbArg) Format(f fmt.State, verb rune) {
	format := []byte{'%'}
	for _, flag := range "+-# 0" {
		if f.Flag(int(flag)) {
			format = append(format, byte(flag))
		}
	}
	if w, ok := f.Width(); ok {
		format = strconv.AppendInt(format, int64(w), 10)
	}
	if p, ok := f.Precision(); ok {
		format = strconv.AppendInt(append(format, '.'), int64(p), 10)
	}
	format = append(format, string(verb)...)
	fmt.Fprintf(f, string(format), a.TB)
}
