// Package rewrite is heddle's source rewriter. It loads the packages under
// test with full type information and rewrites, in the AST, every
// concurrency construct into a call into heddle.dev/rt: go statements,
// channel make/send/receive/close/len/cap, select, range over channels,
// sync (Mutex, RWMutex, WaitGroup, Once, OnceFunc/OnceValue(s), Cond, Map,
// interface Lock/Unlock), sync/atomic functions and typed atomics, time
// (Sleep, Now, Since, Until, After, Tick, NewTimer, NewTicker, AfterFunc,
// Timer/Ticker Stop/Reset), context (WithCancel(Cause), WithTimeout(Cause),
// WithDeadline(Cause), AfterFunc, Cause), runtime.Gosched/Goexit/
// NumGoroutine, map iteration order, the top-level functions of math/rand
// and math/rand/v2, calls on *testing.T and testing.TB, and what ends or
// suspends a process: os.Exit, log.Fatal/Fatalf/Fatalln and the Fatal*
// methods of *log.Logger, flag.Parse and (*flag.FlagSet).Parse (which
// exit on a bad flag), os/signal.Notify and NotifyContext. Each top-level
// TestXxx(t *testing.T) of a _test.go file gets its body wrapped in
// rt.Explore. Every construct is identified through go/types, never by name
// alone. Rewritten files carry //line directives, so that compile errors,
// panics and runtime.Caller name the original file and line. The user's
// tree is never touched: the rewritten files are written, content-addressed,
// into a cache directory and used through go build -overlay.
//
// # Which packages are rewritten
//
//   - The packages matched by the patterns, with their _test.go files and
//     external _test packages.
//   - Every package of the main module that they import, transitively.
//   - Packages of other modules in their import graph that start
//     goroutines, use channels or select, or import sync or sync/atomic
//     (found by a syntactic scan), such as golang.org/x/sync/errgroup. Their
//     module cannot be overlaid in the read-only module cache, so the whole
//     module is copied into the cache directory, rewritten there, and
//     reported in Result.Replace for a replace directive. A module that
//     declares a Go version older than go1.18 is left alone (the runtime's
//     calls are generic), and says so in the verbose output.
//   - Never: the standard library, and the heddle.dev module itself
//     (heddle.dev/rt and heddle.dev/internal/...: the runtime must not be
//     rewritten). Other modules under the heddle.dev path, such as
//     heddle.dev/examples, are user code and are rewritten.
//
// Code that is not rewritten runs atomically between two scheduling points.
//
// # What is left alone
//
// cgo files (import "C"); channel operations on values whose type is a
// type parameter; make of a directional channel type; method expressions
// such as (*sync.Mutex).Lock; function values of sync/atomic and math/rand
// functions; method values whose signature mentions a type that cannot be
// named from the file; a `v, ok = <-ch` whose ok has a named boolean type
// when it sits in an if/switch/for header. These stay native: correct, but
// not scheduling points.
package rewrite
