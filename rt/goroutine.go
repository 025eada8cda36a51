package rt

import (
	"runtime"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// Go starts f in a new goroutine. The rewriter turns `go f(a, b)` into a call
// that evaluates f, a and b first and then calls Go(func() { f(a, b) }).
func Go(f func()) {
	if x := engine.Current(); x != nil {
		x.Go(f)
		return
	}
	go f()
}

// Gosched replaces runtime.Gosched.
func Gosched() {
	if x := engine.Current(); x != nil {
		x.Gosched()
		return
	}
	runtime.Gosched()
}

// Goexit replaces runtime.Goexit.
func Goexit() {
	runtime.Goexit()
}

// NumGoroutine replaces runtime.NumGoroutine. During an exploration it counts
// the controlled goroutines of the run that are still alive, and the test
// binary's main goroutine, which natively waits in t.Run for a test.
func NumGoroutine() int {
	if x := engine.Current(); x != nil {
		return x.NumGoroutine()
	}
	return runtime.NumGoroutine()
}

// Stack replaces runtime.Stack: heddle's own goroutines and frames are
// left out of the dump, so that a leak checker reading it (goleak) sees
// the program's goroutines as it would natively.
func Stack(buf []byte, all bool) int {
	return explore.Stack(buf, all)
}

// GOMAXPROCS replaces runtime.GOMAXPROCS. heddle explores on one processor;
// during an exploration the program sees, and may change, the value it
// would have natively, without it taking effect.
func GOMAXPROCS(n int) int {
	if x := engine.Current(); x != nil {
		return x.GOMAXPROCS(n)
	}
	return runtime.GOMAXPROCS(n)
}

// GoAs replaces a go statement whose function natively is f, named name
// relative to the package (".TestX.gowrap1", ".TestX.func2"): a stack
// dump shows it so.
func GoAs(name string, f func()) {
	if x := engine.Current(); x != nil {
		x.GoNamed(f, name, 0)
		return
	}
	go f()
}

// GoCall replaces go fn() of a func() fn (a declared function or a
// function value) evaluated at the go statement: f calls fn, and a stack
// dump shows the goroutine as fn's, as natively.
func GoCall(fn func(), f func()) {
	if x := engine.Current(); x != nil {
		x.GoNamed(f, "", engine.FuncPC(fn))
		return
	}
	go f()
}

// FuncNames tells a stack dump the native names of a package's function
// literals whose compiled names the rewriter changed, in pairs of
// (compiled, native) names relative to the package (".TestX.func1.3",
// ".TestX.func2"). The rewritten package calls it in its initialization
// (var _ = rt.FuncNames(...)).
func FuncNames(pairs ...string) int {
	pc, _, _, _ := runtime.Caller(1)
	if f := runtime.FuncForPC(pc); f != nil {
		explore.FuncNames(f.Name(), pairs)
	}
	return 0
}
