// Package rewrite is heddle's source rewriter. It loads the packages under
// test with full type information and rewrites, in the AST, every
// concurrency construct into a call into heddle.dev/rt: go statements,
// channel make/send/receive/close/len/cap, select, range over channels,
// sync (Mutex, RWMutex, WaitGroup, Once, OnceFunc/OnceValue(s), Cond, Map, Pool,
// interface Lock/Unlock), sync/atomic functions and typed atomics, time
// (Sleep, Now, Since, Until, After, Tick, NewTimer, NewTicker, AfterFunc,
// Timer/Ticker Stop/Reset), context (WithCancel(Cause), WithTimeout(Cause),
// WithDeadline(Cause), AfterFunc, Cause), runtime.Gosched/Goexit/GC/
// NumGoroutine/SetFinalizer/Stack/Caller/Callers/ReadMemStats and
// testing.AllocsPerRun, map iteration order (drawn per run), the top-level functions of math/rand
// and math/rand/v2 and the sources a program makes (math/rand.NewSource,
// math/rand/v2.New of NewPCG/NewChaCha8), testing/quick.Check and
// CheckEqual (seeded from the run), reflect's channel operations (reflect.Select, reflect.MakeChan,
// and the Send, Recv, TrySend, TryRecv and Close methods of reflect.Value,
// through a pointer too), iter.Pull and iter.Pull2 (whose iterator runs as
// the goroutine that calls next), testing/synctest.Test and Wait (the
// bubble's goroutines are controlled), calls on *testing.T and
// testing.TB (and Run/Parallel through an interface of a helper library
// over *testing.T), and what ends or
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
//     goroutines, use channels or select, import sync or sync/atomic, or
//     call a function that waits on the clock, yields or reads the
//     goroutines or the stack or allocation counts (time.Sleep, the
//     timers, runtime.Stack, runtime.Callers, ...: see
//     waitsOrInspects, which also has hash/maphash.MakeSeed), or declare a
//     body-less function linknamed to the runtime's clock (time.now,
//     runtime.nanotime, time.runtimeNano: the rewrite gives it a body
//     reading the virtual clock) or random numbers (runtime.cheaprand,
//     fastrand, rand, ...: a body drawing from the run's random source; see
//     clockLinks),
//     found by a syntactic scan, such as golang.org/x/sync/errgroup. Their
//     module cannot be overlaid in the read-only module cache, so the whole
//     module is copied into the cache directory, rewritten there, and
//     reported in Result.Replace for a replace directive. heddle's copy is
//     its own: a module whose go.mod declares a Go version older than
//     go1.18, or none (go1.16 for the go command), has its rewritten files
//     compiled as go1.21 through a //go:build constraint, since the
//     runtime's calls are generic; go1.21 keeps the old loop-variable rule,
//     so the code means what it meant. The copied modules are listed in
//     Options.Notes (heddle test -v).
//   - Never: the standard library, and the heddle.dev module itself
//     (heddle.dev/rt and heddle.dev/internal/...: the runtime must not be
//     rewritten). Other modules under the heddle.dev path, such as
//     heddle.dev/examples, are user code and are rewritten.
//
// Code that is not rewritten runs atomically between two scheduling points.
//
// # Writing types
//
// Where the rewrite must write a type (a conversion of a value sent on a
// channel of another type, the signature of a method value or method
// expression), the type is written as it reads at that point of the file:
// a local or parameter that shadows a package name is bypassed with an
// import alias of the rewriter's own, and one that shadows a package-level
// or predeclared type with a file-level type alias.
//
// # What is left alone
//
// cgo files (import "C"); make of a directional channel type; function
// values of math/rand functions (those of sync/atomic are wrapped: see
// rt.AtomicRMWFn); method values and method
// expressions whose signature mentions a type that cannot be named from the
// file (an unexported type of another package); a send whose value needs a
// conversion to such a type. These stay native: correct, but not
// scheduling points. Channel operations on a value whose type is a type
// parameter are rewritten through the parameter's core type; method
// expressions such as (*sync.Mutex).Lock are rewritten as the call on their
// first argument.
package rewrite
