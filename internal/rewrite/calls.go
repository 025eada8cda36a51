package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// renamed lists the package functions replaced one for one by a function
// of heddle.dev/rt with the same signature, in calls and as values.
var renamed = map[string]string{
	"time.Sleep":                "Sleep",
	"time.Now":                  "Now",
	"time.Since":                "Since",
	"time.Until":                "Until",
	"time.After":                "After",
	"time.Tick":                 "Tick",
	"time.NewTimer":             "NewTimer",
	"time.NewTicker":            "NewTicker",
	"time.AfterFunc":            "AfterFunc",
	"context.WithCancel":        "WithCancel",
	"context.WithCancelCause":   "WithCancelCause",
	"context.WithTimeout":       "WithTimeout",
	"context.WithTimeoutCause":  "WithTimeoutCause",
	"context.WithDeadline":      "WithDeadline",
	"context.WithDeadlineCause": "WithDeadlineCause",
	"context.AfterFunc":         "ContextAfterFunc",
	"context.Cause":             "Cause",
	"runtime.Gosched":           "Gosched",
	"runtime.GC":                "GC",
	"runtime.Goexit":            "Goexit",
	"runtime.NumGoroutine":      "NumGoroutine",
	"runtime.GOMAXPROCS":        "GOMAXPROCS",
	"runtime.Stack":             "Stack",
	"runtime.Caller":            "Caller",
	"runtime.Callers":           "Callers",
	"runtime.ReadMemStats":      "ReadMemStats",
	"runtime/debug.Stack":       "DebugStack",
	"runtime/debug.PrintStack":  "DebugPrintStack",
	"testing.AllocsPerRun":      "AllocsPerRun",
	"runtime.SetFinalizer":      "SetFinalizer",
	"sync.OnceFunc":             "OnceFunc",
	"sync.OnceValue":            "OnceValue",
	"sync.OnceValues":           "OnceValues",
	"math/rand/v2.N":            "RandN",
	"hash/maphash.MakeSeed":     "MaphashMakeSeed",
	// The race detector does not see maps.Clone's read (rt/racymaps.go).
	"maps.Clone": "MapsCloneSeen",
	// A value rt.TBArg wrapped compares as the T it wraps (rt/testing.go).
	"reflect.DeepEqual": "DeepEqual",
	// reflect's channel operations (the methods of reflect.Value are in
	// valueMethodFuncs).
	"reflect.Select":   "ReflectSelect",
	"reflect.MakeChan": "ReflectMakeChan",
	// Coroutines: the iterator runs as the goroutine that calls next.
	"iter.Pull":  "Pull",
	"iter.Pull2": "Pull2",
	// testing/synctest: the bubble's goroutines are controlled.
	"testing/synctest.Test": "SynctestTest",
	"testing/synctest.Wait": "SynctestWait",
	// Ending the process: os.Exit, and the functions of the standard
	// library that call it (a call inside the standard library cannot be
	// rewritten). During an exploration they end the run, not heddle.
	"os.Exit": "Exit",
	// The environment is a step (rt/env.go): package syscall keeps it
	// under a lock of its own; so is the working directory.
	"os.Setenv":    "Setenv",
	"os.Unsetenv":  "Unsetenv",
	"os.Clearenv":  "Clearenv",
	"os.Getenv":    "Getenv",
	"os.LookupEnv": "LookupEnv",
	"os.Environ":   "Environ",
	"os.ExpandEnv": "ExpandEnv",
	"os.Chdir":     "Chdir",
	"os.Getwd":     "Getwd",
	"log.Fatal":    "Fatal",
	"log.Fatalf":   "Fatalf",
	"log.Fatalln":  "Fatalln",
	// A log entry is a step (rt/log.go): the logger's lock is in package
	// log, which is not rewritten.
	"log.Print":           "LogPrint",
	"log.Printf":          "LogPrintf",
	"log.Println":         "LogPrintln",
	"log.Panic":           "LogPanic",
	"log.Panicf":          "LogPanicf",
	"log.Panicln":         "LogPanicln",
	"log.Output":          "LogOutput",
	"log.SetOutput":       "LogSetOutput",
	"log.SetPrefix":       "LogSetPrefix",
	"log.SetFlags":        "LogSetFlags",
	"log.Prefix":          "LogPrefix",
	"log.Flags":           "LogFlags",
	"log.Writer":          "LogWriter",
	"log/slog.SetDefault": "SlogSetDefault",
	// A slog entry is a step too (rt/slog.go): the handlers' locks are in
	// package log/slog.
	"log/slog.Debug":        "SlogDebug",
	"log/slog.DebugContext": "SlogDebugContext",
	"log/slog.Info":         "SlogInfo",
	"log/slog.InfoContext":  "SlogInfoContext",
	"log/slog.Warn":         "SlogWarn",
	"log/slog.WarnContext":  "SlogWarnContext",
	"log/slog.Error":        "SlogError",
	"log/slog.ErrorContext": "SlogErrorContext",
	"log/slog.Log":          "SlogLog",
	"log/slog.LogAttrs":     "SlogLogAttrs",
	"flag.Parse":            "FlagParse",
	// Waiting for a signal: during an exploration the signal arrives once
	// the program has nothing else to do.
	"os/signal.Notify":        "SignalNotify",
	"os/signal.NotifyContext": "SignalNotifyContext",
	"os/signal.Stop":          "SignalStop",
	"os/signal.Ignore":        "SignalIgnore",
	"os/signal.Reset":         "SignalReset",
	"os/signal.Ignored":       "SignalIgnored",
	// A signal the program sends its own process (or a thread of it)
	// arrives through the run's model of os/signal (rt/signal.go); any
	// other is sent.
	"syscall.Kill":                 "Kill",
	"syscall.Tgkill":               "Tgkill",
	"golang.org/x/sys/unix.Kill":   "Kill",
	"golang.org/x/sys/unix.Tgkill": "Tgkill",
	// io.Pipe: package io is not rewritten, so its pipes wait natively;
	// heddle's model of it (rt/iopipe.go) returns its own types.
	"io.Pipe": "Pipe",
	// net.Pipe: the same, in package net (rt/netpipe.go); its ends are
	// net.Conn values, as net.Pipe's.
	"net.Pipe": "NetPipe",
	// A file read or written by the standard library at once, through
	// io.Writer or io.Reader, is a step when the value is dynamically an
	// *os.File (rt/file.go, fileSteps).
	"fmt.Fprint":          "Fprint",
	"fmt.Fprintf":         "Fprintf",
	"fmt.Fprintln":        "Fprintln",
	"fmt.Print":           "Print",
	"fmt.Printf":          "Printf",
	"fmt.Println":         "Println",
	"fmt.Fscan":           "Fscan",
	"fmt.Fscanf":          "Fscanf",
	"fmt.Fscanln":         "Fscanln",
	"io.WriteString":      "WriteString",
	"io.ReadAll":          "ReadAll",
	"io.ReadFull":         "ReadFull",
	"io.ReadAtLeast":      "ReadAtLeast",
	"io.Copy":             "Copy",
	"io.CopyN":            "CopyN",
	"io.CopyBuffer":       "CopyBuffer",
	"io/ioutil.ReadAll":   "ReadAll",
	"os.ReadFile":         "ReadFile",
	"os.WriteFile":        "WriteFile",
	"os.Create":           "Create",
	"os.Open":             "Open",
	"os.OpenFile":         "OpenFile",
	"os.Remove":           "Remove",
	"os.Rename":           "Rename",
	"os.Truncate":         "Truncate",
	"os.Stat":             "Stat",
	"os.Lstat":            "Lstat",
	"os.Mkdir":            "Mkdir",
	"os.MkdirAll":         "MkdirAll",
	"os.RemoveAll":        "RemoveAll",
	"os.ReadDir":          "ReadDir",
	"io/ioutil.ReadFile":  "ReadFile",
	"io/ioutil.WriteFile": "WriteFile",
	// Lookups, listings and changes of names the standard library
	// makes: steps on the file tree's names (rt/filetree.go).
	"os.Symlink":            "Symlink",
	"os.Link":               "Link",
	"os.Readlink":           "Readlink",
	"path/filepath.Walk":    "Walk",
	"path/filepath.WalkDir": "WalkDir",
	"path/filepath.Glob":    "Glob",
}

// replacedTypes lists the types of the standard library replaced by a type
// of heddle.dev/rt with the same methods, wherever rewritten code names
// them: the results of a replaced function (io.Pipe) are of these types.
var replacedTypes = map[string]string{
	"io.PipeReader": "PipeReader",
	"io.PipeWriter": "PipeWriter",
}

// replacedType returns the rt type replacing a type name, if any.
func replacedType(obj types.Object) (string, bool) {
	tn, ok := obj.(*types.TypeName)
	if !ok || tn.Pkg() == nil || tn.IsAlias() {
		return "", false
	}
	name, ok := replacedTypes[tn.Pkg().Path()+"."+tn.Name()]
	return name, ok
}

// receiver-first replacements of methods: "pkg.Type.Method" -> rt function
// taking the receiver's address first.
var methodFuncs = map[string]string{
	"sync.Mutex.Lock":       "MutexLock",
	"sync.Mutex.Unlock":     "MutexUnlock",
	"sync.Mutex.TryLock":    "MutexTryLock",
	"sync.RWMutex.Lock":     "RWLock",
	"sync.RWMutex.Unlock":   "RWUnlock",
	"sync.RWMutex.RLock":    "RWRLock",
	"sync.RWMutex.RUnlock":  "RWRUnlock",
	"sync.RWMutex.TryLock":  "RWTryLock",
	"sync.RWMutex.TryRLock": "RWTryRLock",
	"sync.RWMutex.RLocker":  "RWRLocker",
	"sync.WaitGroup.Add":    "WaitGroupAdd",
	"sync.WaitGroup.Done":   "WaitGroupDone",
	"sync.WaitGroup.Wait":   "WaitGroupWait",
	"sync.WaitGroup.Go":     "WaitGroupGo",
	"sync.Once.Do":          "OnceDo",
	"sync.Cond.Wait":        "CondWait",
	"sync.Cond.Signal":      "CondSignal",
	"sync.Cond.Broadcast":   "CondBroadcast",
	"sync.Pool.Get":         "PoolGet",
	"sync.Pool.Put":         "PoolPut",
	"sync.Map.Range":        "SyncMapRange",
	"sync.Map.Clear":        "SyncMapClear",
	"os.Process.Signal":     "ProcessSignal",
	// A test's body is a function literal under heddle: its name, and
	// its literals', as natively (rt/callers.go).
	"runtime.Func.Name":            "FuncName",
	"runtime.Frames.Next":          "FramesNext",
	"time.Timer.Stop":              "TimerStop",
	"time.Timer.Reset":             "TimerReset",
	"time.Ticker.Stop":             "TickerStop",
	"time.Ticker.Reset":            "TickerReset",
	"log.Logger.Fatal":             "LoggerFatal",
	"log.Logger.Fatalf":            "LoggerFatalf",
	"log.Logger.Fatalln":           "LoggerFatalln",
	"log/slog.Logger.Debug":        "SlogLoggerDebug",
	"log/slog.Logger.DebugContext": "SlogLoggerDebugContext",
	"log/slog.Logger.Info":         "SlogLoggerInfo",
	"log/slog.Logger.InfoContext":  "SlogLoggerInfoContext",
	"log/slog.Logger.Warn":         "SlogLoggerWarn",
	"log/slog.Logger.WarnContext":  "SlogLoggerWarnContext",
	"log/slog.Logger.Error":        "SlogLoggerError",
	"log/slog.Logger.ErrorContext": "SlogLoggerErrorContext",
	"log/slog.Logger.Log":          "SlogLoggerLog",
	"log/slog.Logger.LogAttrs":     "SlogLoggerLogAttrs",
	"flag.FlagSet.Parse":           "FlagSetParse",
	// The goroutine profile is a dump of the run's goroutines, as
	// runtime.Stack's (rt/pprof.go).
	"runtime/pprof.Profile.WriteTo": "PprofWriteTo",
	"runtime/pprof.Profile.Count":   "PprofCount",

	// A command's context is read in package exec's code: each of these
	// is a read of it first (rt/exec.go).
	"os/exec.Cmd.Start":          "ExecStart",
	"os/exec.Cmd.Wait":           "ExecWait",
	"os/exec.Cmd.Run":            "ExecRun",
	"os/exec.Cmd.Output":         "ExecOutput",
	"os/exec.Cmd.CombinedOutput": "ExecCombinedOutput",
}

// valueMethodFuncs are the methods replaced by an rt function taking the
// receiver itself first, by value: "pkg.Type.Method" -> rt function.
var valueMethodFuncs = map[string]string{
	"reflect.Value.Send":    "ReflectSend",
	"reflect.Value.TrySend": "ReflectTrySend",
	"reflect.Value.Recv":    "ReflectRecv",
	"reflect.Value.TryRecv": "ReflectTryRecv",
	"reflect.Value.Close":   "ReflectClose",
	// A helper library calling *testing.T's Run or Parallel by reflection
	// (quicktest's C.Run).
	"reflect.Value.MethodByName": "ReflectMethodByName",
}

type methodKind int

const (
	mFunc   methodKind = iota // rt.F(recv, args...)
	mWrap                     // rt.F(recv).M(args...)
	mLocker                   // rt.LockerLock(recv) on an interface value
	mTB                       // rt.TB(recv).M(args...)
	mTFunc                    // rt.TRun(recv, args...) / rt.TParallel(recv) / rt.TDeadline(recv)
)

type methodPlan struct {
	kind      methodKind
	rtName    string
	path      []string // embedded fields from the selector's operand to the receiver
	needAddr  bool     // take the address of the receiver
	needDeref bool     // pass the value the receiver points to
}

// classifyMethod decides how a method selector x.m, or a method
// expression T.m, is rewritten, or returns nil. It uses only type information: the method object, the
// receiver's type and the embedding path.
func (r *rewriter) classifyMethod(sel *ast.SelectorExpr) *methodPlan {
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() == types.FieldVal {
		return nil
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return nil
	}
	if mp := r.deadlinePlan(sel, s, fn); mp != nil {
		return mp
	}
	// Follow the embedding path to the value the method is declared on.
	t := s.Recv()
	var path []string
	idx := s.Index()
	for _, i := range idx[:len(idx)-1] {
		if isTestingT(t) || isTestingTB(t) {
			// Methods promoted from testing's unexported types: the
			// receiver is the *testing.T itself.
			return r.tbPlan(fn.Name(), path, t)
		}
		st, ok := derefStruct(t)
		if !ok {
			return nil
		}
		f := st.Field(i)
		path = append(path, f.Name())
		t = f.Type()
	}
	_, recvIsPtr := types.Unalias(t).Underlying().(*types.Pointer)
	if _, isTP := types.Unalias(t).(*types.TypeParam); isTP {
		recvIsPtr = false
	}

	// Lock/Unlock on an interface value (sync.Locker, Cond.L, type
	// parameters constrained by one).
	if types.IsInterface(t) {
		if isTestingTB(t) {
			return r.tbPlan(fn.Name(), path, t)
		}
		sig := fn.Signature()
		if (fn.Name() == "Lock" || fn.Name() == "Unlock") && sig.Params().Len() == 0 && sig.Results().Len() == 0 {
			return &methodPlan{kind: mLocker, rtName: "Locker" + fn.Name(), path: path}
		}
		if name := ifaceSyncMethod(fn.Name(), sig); name != "" {
			// A WaitGroup's, Cond's, Once's, RWMutex's, Timer's or
			// Ticker's method through an interface: rt decides by the
			// dynamic type (rt/iface.go).
			return &methodPlan{kind: mLocker, rtName: name, path: path}
		}
		if name, kind := ifaceSyncMapMethod(fn.Name(), sig); name != "" {
			// A sync.Map's method through an interface (rt.SyncMapIR).
			return &methodPlan{kind: kind, rtName: name, path: path}
		}
		if name := ifaceAtomicMethod(fn.Name(), sig); name != "" {
			// An atomic type's method through an interface: a
			// scheduling point if the value is one (rt.AtomicIR).
			return &methodPlan{kind: mWrap, rtName: name, path: path}
		}
		if fn.Name() == "Parallel" && sig.Params().Len() == 0 && sig.Results().Len() == 0 {
			// A test helper's interface over *testing.T (testscript's T).
			return &methodPlan{kind: mLocker, rtName: "ParallelAny", path: path}
		}
		if fn.Name() == "Run" && isSubtestRun(sig) {
			// An interface over *testing.T's Run: testify's suite runs its
			// methods through one (suite.Run's runner).
			return &methodPlan{kind: mLocker, rtName: "RunAny", path: path}
		}
		if fileOps[fn.Name()] {
			// w.Write on an io.Writer that may dynamically be an
			// *os.File: FileW's step when it is one (rt.FileI), a
			// listing's (FileDir) for the methods listing a directory.
			if dirOps[fn.Name()] {
				return &methodPlan{kind: mWrap, rtName: "FileDirI", path: path}
			}
			return &methodPlan{kind: mWrap, rtName: "FileI", path: path}
		}
		if tbLike(t) {
			// t.Errorf on a helper's TestingT, which may hold the
			// *testing.T itself (planTBArgs).
			return &methodPlan{kind: mTB, rtName: "TBRoute", path: path}
		}
		return nil
	}
	if isTestingT(t) {
		return r.tbPlan(fn.Name(), path, t)
	}
	if fn.Pkg() == nil {
		return nil
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return nil
	}
	rt := recv.Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	named, ok := types.Unalias(rt).(*types.Named)
	if !ok {
		return nil
	}
	key := fn.Pkg().Path() + "." + named.Obj().Name() + "." + fn.Name()
	if name, ok := r.racyFuncs[sel]; ok {
		// A method of reflect's iterating or writing a map on a racy
		// line (racyMapMethods): the receiver as declared.
		_, declPtr := recv.Type().(*types.Pointer)
		return &methodPlan{kind: mFunc, rtName: name, path: path, needAddr: declPtr && !recvIsPtr, needDeref: !declPtr && recvIsPtr}
	}
	if name, ok := methodFuncs[key]; ok {
		return &methodPlan{kind: mFunc, rtName: name, path: path, needAddr: !recvIsPtr}
	}
	if name, ok := valueMethodFuncs[key]; ok {
		return &methodPlan{kind: mFunc, rtName: name, path: path, needDeref: recvIsPtr}
	}
	switch fn.Pkg().Path() {
	case "sync":
		if named.Obj().Name() == "Map" {
			name := "SyncMapW"
			if fn.Name() == "Load" {
				name = "SyncMapR"
			}
			return &methodPlan{kind: mWrap, rtName: name, path: path, needAddr: !recvIsPtr}
		}
	case "log":
		if named.Obj().Name() == "Logger" && loggerWrites[fn.Name()] {
			return &methodPlan{kind: mWrap, rtName: "LoggerW", path: path, needAddr: !recvIsPtr}
		}
	case "expvar":
		// expvar's variables keep their values under locks and atomics of
		// package expvar, not rewritten: each method is an atomic access
		// of the variable.
		if expvarVars[named.Obj().Name()] {
			name := "AtomicW"
			if expvarReads[fn.Name()] {
				name = "AtomicR"
			}
			return &methodPlan{kind: mWrap, rtName: name, path: path, needAddr: !recvIsPtr}
		}
	case "net/http":
		// A ServeMux's patterns are kept under its own lock, in package
		// net/http, not rewritten: registering is a write of the mux,
		// looking up (or serving) a read (rt/stdreg.go).
		if named.Obj().Name() == "ServeMux" {
			switch fn.Name() {
			case "Handle", "HandleFunc":
				return &methodPlan{kind: mWrap, rtName: "AtomicW", path: path, needAddr: !recvIsPtr}
			case "Handler", "ServeHTTP":
				return &methodPlan{kind: mWrap, rtName: "AtomicR", path: path, needAddr: !recvIsPtr}
			}
		}
	case "os":
		// An os.File's offset and writes are ordered by package os's
		// own lock (its fdMutex), not rewritten: each call that reads or
		// writes the file, or moves its offset, is a step (rt/file.go).
		// Calls through io.Writer (fmt.Fprint) are not.
		if named.Obj().Name() == "File" && fileOps[fn.Name()] {
			if dirOps[fn.Name()] {
				// A listing reads the tree's names (rt.FileDir).
				return &methodPlan{kind: mWrap, rtName: "FileDir", path: path, needAddr: !recvIsPtr}
			}
			return &methodPlan{kind: mWrap, rtName: "FileW", path: path, needAddr: !recvIsPtr}
		}
	case "sync/atomic":
		name := "AtomicW"
		if strings.HasPrefix(fn.Name(), "Load") {
			name = "AtomicR"
		}
		return &methodPlan{kind: mWrap, rtName: name, path: path, needAddr: !recvIsPtr}
	}
	return nil
}

// ifaceSyncMethod returns the rt function replacing a call of the
// interface method name of signature sig, when it has the name and the
// signature of a method of *sync.WaitGroup, *sync.Cond, *sync.Once,
// *sync.Mutex, *sync.RWMutex, *time.Timer or *time.Ticker (rt/iface.go),
// or "".
func ifaceSyncMethod(name string, sig *types.Signature) string {
	params, results := sig.Params(), sig.Results()
	noResult := results.Len() == 0
	boolResult := results.Len() == 1 && types.Identical(results.At(0).Type(), types.Typ[types.Bool])
	oneParam := func(t types.Type) bool { return params.Len() == 1 && types.Identical(params.At(0).Type(), t) }
	funcParam := types.NewSignatureType(nil, nil, nil, nil, nil, false)
	switch {
	case sig.Variadic():
		return ""
	case params.Len() == 0 && noResult:
		switch name {
		case "Done", "Wait", "Signal", "Broadcast":
			return "Iface" + name
		case "RLock", "RUnlock":
			return "Locker" + name
		case "Stop":
			return "IfaceTickerStop"
		}
	case params.Len() == 0 && boolResult:
		switch name {
		case "TryLock", "TryRLock":
			return "Locker" + name
		case "Stop":
			return "IfaceTimerStop"
		}
	case oneParam(types.Typ[types.Int]) && noResult && name == "Add":
		return "IfaceAdd"
	case oneParam(funcParam) && noResult && (name == "Go" || name == "Do"):
		return "Iface" + name
	case params.Len() == 1 && isNamedType(params.At(0).Type(), "time", "Duration") && name == "Reset":
		if noResult {
			return "IfaceTickerReset"
		}
		if boolResult {
			return "IfaceTimerReset"
		}
	}
	return ""
}

// ifaceSyncMapMethod returns the rt function and the kind of rewrite of a
// call of the interface method name of signature sig, when it has the
// name and the signature of a method of *sync.Map: rt.SyncMapIR or
// SyncMapIW wrap the receiver of its loads and writes, rt's
// IfaceSyncMapRange and IfaceClear replace a Range and a Clear; or "".
func ifaceSyncMapMethod(name string, sig *types.Signature) (string, methodKind) {
	var shape []string
	for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := range tup.Len() {
			t := types.Unalias(tup.At(i).Type())
			switch u := t.(type) {
			case *types.Interface:
				if u.Empty() {
					shape = append(shape, "any")
					continue
				}
			case *types.Basic:
				if u.Kind() == types.Bool {
					shape = append(shape, "bool")
					continue
				}
			case *types.Signature:
				if u.Params().Len() == 2 && u.Results().Len() == 1 && !u.Variadic() &&
					types.Identical(u.Params().At(0).Type(), types.Universe.Lookup("any").Type()) &&
					types.Identical(u.Params().At(1).Type(), types.Universe.Lookup("any").Type()) &&
					types.Identical(u.Results().At(0).Type(), types.Typ[types.Bool]) {
					shape = append(shape, "f")
					continue
				}
			}
			shape = append(shape, "?")
		}
		shape = append(shape, "|")
	}
	if sig.Variadic() {
		return "", 0
	}
	want := map[string]string{
		"Load":             "any | any bool |",
		"Store":            "any any | |",
		"LoadOrStore":      "any any | any bool |",
		"LoadAndDelete":    "any | any bool |",
		"Delete":           "any | |",
		"Swap":             "any any | any bool |",
		"CompareAndSwap":   "any any any | bool |",
		"CompareAndDelete": "any any | bool |",
		"Range":            "f | |",
		"Clear":            "| |",
	}[name]
	if want == "" || strings.Join(shape, " ") != want {
		return "", 0
	}
	switch name {
	case "Load":
		return "SyncMapIR", mWrap
	case "Range":
		return "IfaceSyncMapRange", mLocker
	case "Clear":
		return "IfaceClear", mLocker
	}
	return "SyncMapIW", mWrap
}

// ifaceAtomicMethod returns the rt function marking the access of a call
// of the interface method name of signature sig (rt.AtomicIR or
// rt.AtomicIW), when it has the name and the shape of a method of one of
// sync/atomic's types: Load() T, Store(T), Add, Swap, And or Or(T) T,
// CompareAndSwap(T, T) bool, with T an integer type of theirs, bool, any
// or a pointer; or "".
func ifaceAtomicMethod(name string, sig *types.Signature) string {
	params, results := sig.Params(), sig.Results()
	atomicType := func(t types.Type) bool {
		switch u := types.Unalias(t).(type) {
		case *types.Basic:
			switch u.Kind() {
			case types.Int32, types.Int64, types.Uint32, types.Uint64, types.Uintptr, types.Bool:
				return true
			}
		case *types.Pointer:
			return true
		case *types.Interface:
			return u.Empty()
		}
		return false
	}
	switch {
	case sig.Variadic():
	case name == "Load" && params.Len() == 0 && results.Len() == 1 && atomicType(results.At(0).Type()):
		return "AtomicIR"
	case name == "Store" && params.Len() == 1 && results.Len() == 0 && atomicType(params.At(0).Type()):
		return "AtomicIW"
	case (name == "Add" || name == "Swap" || name == "And" || name == "Or") && params.Len() == 1 && results.Len() == 1 &&
		atomicType(params.At(0).Type()) && types.Identical(params.At(0).Type(), results.At(0).Type()):
		return "AtomicIW"
	case name == "CompareAndSwap" && params.Len() == 2 && results.Len() == 1 && atomicType(params.At(0).Type()) &&
		types.Identical(params.At(0).Type(), params.At(1).Type()) && types.Identical(results.At(0).Type(), types.Typ[types.Bool]):
		return "AtomicIW"
	}
	return ""
}

// deadlineSetters are the methods setting a connection's, a listener's or
// a file's deadline from an instant (net.Conn's and *os.File's).
var deadlineSetters = map[string]bool{"SetDeadline": true, "SetReadDeadline": true, "SetWriteDeadline": true}

// deadlinePlan rewrites x.SetDeadline(t), SetReadDeadline or
// SetWriteDeadline, when the method may be one of the standard library's
// (declared in package net, os or crypto/tls, or on an interface: the
// value may be a *net.TCPConn), as rt.SetDeadline(x, t): the instant the
// test computed from the virtual clock is mapped onto the real one when
// the value keeps its deadlines in the runtime's poller (rt/deadline.go).
// A method of rewritten code (a multiplexer's stream) keeps virtual
// deadlines and is not rewritten.
func (r *rewriter) deadlinePlan(sel *ast.SelectorExpr, s *types.Selection, fn *types.Func) *methodPlan {
	if !deadlineSetters[fn.Name()] || fn.Pkg() == nil {
		return nil
	}
	sig := fn.Signature()
	if sig.Recv() == nil || sig.Params().Len() != 1 || sig.Results().Len() != 1 ||
		!isNamedType(sig.Params().At(0).Type(), "time", "Time") ||
		!types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type()) {
		return nil
	}
	if !types.IsInterface(sig.Recv().Type()) {
		switch fn.Pkg().Path() {
		case "net", "os", "crypto/tls":
		default:
			return nil
		}
	}
	// rt decides by the dynamic type of the value it is given, so it gets
	// the embedded value the method is promoted from (the net.Conn of a
	// struct embedding one), as far down as the fields are visible here
	// (not into *net.TCPConn's unexported conn). rt's function takes it as
	// an interface value holding the method: its own method set must have
	// it (a value of a struct type whose pointer has it does not).
	t := s.Recv()
	var path []string
	idx := s.Index()
	for _, i := range idx[:len(idx)-1] {
		st, ok := derefStruct(t)
		if !ok {
			return nil
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.pkg {
			break
		}
		path = append(path, f.Name())
		t = f.Type()
	}
	if types.NewMethodSet(t).Lookup(fn.Pkg(), fn.Name()) == nil {
		return nil
	}
	return &methodPlan{kind: mLocker, rtName: fn.Name(), path: path}
}

// isNamedType reports whether t is the named type path.name.
func isNamedType(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// loggerWrites are the methods of *log.Logger that write an entry (its
// Fatal methods are in methodFuncs) or use its settings.
var loggerWrites = map[string]bool{
	"Print": true, "Printf": true, "Println": true, "Panic": true, "Panicf": true, "Panicln": true, "Output": true,
	// The logger's settings are atomics of package log: their writes and
	// reads are ordered against its entries.
	"SetOutput": true, "SetPrefix": true, "SetFlags": true, "Writer": true, "Prefix": true, "Flags": true,
}

// expvarVars are expvar's types whose methods read or write the
// variable's value; expvarReads are the methods that only read it.
var (
	expvarVars  = map[string]bool{"Int": true, "Float": true, "String": true, "Map": true}
	expvarReads = map[string]bool{"Value": true, "String": true, "Get": true, "Do": true}
)

// stdStep is how a call of a function of the standard library that
// reads or writes a registry kept under the library's own lock becomes a
// step (rt/stdreg.go): on the object of registry reg (an rt.Registry
// constant) or, with reg empty, on http.DefaultServeMux.
type stdStep struct {
	reg   string
	write bool
}

// stdSteps are the functions of the standard library that read or write
// such a registry, by "path.Func".
var stdSteps = map[string]stdStep{
	"mime.AddExtensionType":        {"RegMime", true},
	"mime.TypeByExtension":         {"RegMime", false},
	"mime.ExtensionsByType":        {"RegMime", false},
	"expvar.Publish":               {"RegExpvar", true},
	"expvar.NewInt":                {"RegExpvar", true},
	"expvar.NewFloat":              {"RegExpvar", true},
	"expvar.NewString":             {"RegExpvar", true},
	"expvar.NewMap":                {"RegExpvar", true},
	"expvar.Get":                   {"RegExpvar", false},
	"expvar.Do":                    {"RegExpvar", false},
	"database/sql.Register":        {"RegSQLDrivers", true},
	"database/sql.Drivers":         {"RegSQLDrivers", false},
	"database/sql.Open":            {"RegSQLDrivers", false},
	"runtime/debug.SetGCPercent":   {"RegGCPercent", true},
	"runtime/debug.SetMemoryLimit": {"RegMemoryLimit", true},
	"runtime/debug.SetMaxStack":    {"RegMaxStack", true},
	"runtime/debug.SetMaxThreads":  {"RegMaxThreads", true},
	"net/http.Handle":              {"", true},
	"net/http.HandleFunc":          {"", true},
}

// planStdStep rewrites a call f(args) of a function of stdSteps as
// rt.StdW(rt.Reg, f)(args) (StdR for a read; rt.StdAtW(pkg.DefaultServeMux, f)
// for net/http's). Its step is taken when its function value is evaluated:
// in a go or defer statement, planGo and planDefer move it into the call.
func (r *rewriter) planStdStep(call *ast.CallExpr, st stdStep) {
	sel, _ := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if st.reg == "" && sel == nil {
		return // a dot-imported http.Handle: no name for DefaultServeMux
	}
	sig, _ := r.typeOf(call.Fun).(*types.Signature)
	var ptypes []types.Type
	if !r.tupleArg(call) {
		ptypes = argTypes(sig, len(call.Args), call.Ellipsis.IsValid())
	}
	r.plans[call] = func(c *astutil.Cursor) {
		call := c.Node().(*ast.CallExpr)
		pos := call.Fun.Pos()
		name := "StdR"
		if st.write {
			name = "StdW"
		}
		var obj ast.Expr
		if st.reg == "" {
			name = "StdAtW"
			obj = &ast.SelectorExpr{X: ast.Unparen(call.Fun).(*ast.SelectorExpr).X, Sel: ident("DefaultServeMux", pos)}
		} else {
			obj = r.rt(st.reg, pos)
		}
		call.Fun = r.rtCall(name, pos, obj, call.Fun)
		var slots []*ast.Expr
		for i := range call.Args {
			slots = append(slots, &call.Args[i])
		}
		r.operands[call] = slots
		r.early[call] = true
		if ptypes != nil {
			if e := r.stepLate(call, call, slots, ptypes, sig.Results()); e != ast.Expr(call) {
				c.Replace(e)
			}
		}
	}
}

// tupleArg reports whether call's only operand is a call of several
// results, f.M(g()), which no rewriting spreads over temporaries.
func (r *rewriter) tupleArg(call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	_, ok := r.typeOf(call.Args[0]).(*types.Tuple)
	return ok
}

// recvType returns the type of the receiver operand a rewritten method
// call passes to rt (recvOperand): the value the method is declared on,
// at the end of the embedding path, or its address.
func (r *rewriter) recvType(sel *ast.SelectorExpr, mp *methodPlan) types.Type {
	s, ok := r.info.Selections[sel]
	if !ok {
		return nil
	}
	t := s.Recv()
	idx := s.Index()
	for _, i := range idx[:len(idx)-1] {
		st, ok := derefStruct(t)
		if !ok {
			return nil
		}
		t = st.Field(i).Type()
	}
	switch {
	case mp.needAddr:
		t = types.NewPointer(t)
	case mp.needDeref:
		p, ok := types.Unalias(t).Underlying().(*types.Pointer)
		if !ok {
			return nil
		}
		t = p.Elem()
	}
	return t
}

// fileOps are the methods of *os.File that read or write it, or move its
// offset.
var fileOps = map[string]bool{
	"Read": true, "ReadAt": true, "ReadFrom": true, "Write": true, "WriteAt": true,
	"WriteString": true, "WriteTo": true, "Seek": true, "Truncate": true, "Close": true,
	// A directory's entries, read from its offset.
	"ReadDir": true, "Readdir": true, "Readdirnames": true,
}

// dirOps are the methods of fileOps that list a directory: their step
// also reads the names of the file tree (rt.FileDir).
var dirOps = map[string]bool{"ReadDir": true, "Readdir": true, "Readdirnames": true}

// isSubtestRun reports whether sig is testing.T.Run's signature:
// func(string, func(*testing.T)) bool.
func isSubtestRun(sig *types.Signature) bool {
	ps, rs := sig.Params(), sig.Results()
	if ps.Len() != 2 || rs.Len() != 1 || sig.Variadic() {
		return false
	}
	if b, ok := ps.At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return false
	}
	if b, ok := rs.At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.Bool {
		return false
	}
	f, ok := ps.At(1).Type().Underlying().(*types.Signature)
	return ok && f.Params().Len() == 1 && f.Results().Len() == 0 && !f.Variadic() && isTestingT(f.Params().At(0).Type())
}

func (r *rewriter) tbPlan(method string, path []string, recvT types.Type) *methodPlan {
	switch method {
	case "Run":
		if isTestingT(recvT) {
			return &methodPlan{kind: mTFunc, rtName: "TRun", path: path}
		}
		return nil
	case "Parallel":
		if isTestingT(recvT) {
			return &methodPlan{kind: mTFunc, rtName: "TParallel", path: path}
		}
		return nil
	case "Deadline":
		if isTestingT(recvT) {
			return &methodPlan{kind: mTFunc, rtName: "TDeadline", path: path}
		}
		return nil
	}
	if tbHasMethod(r.pkg, method) {
		return &methodPlan{kind: mTB, rtName: "TB", path: path}
	}
	return nil
}

// tbHasMethod reports whether testing.TB has the method, as seen by the
// type checker of the package (so the toolchain's own testing package
// decides).
func tbHasMethod(pkg *types.Package, method string) bool {
	var testing *types.Package
	if pkg != nil {
		for _, imp := range allImports(pkg) {
			if imp.Path() == "testing" {
				testing = imp
				break
			}
		}
	}
	if testing == nil {
		return false
	}
	tb, ok := testing.Scope().Lookup("TB").(*types.TypeName)
	if !ok {
		return false
	}
	iface, ok := tb.Type().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < iface.NumMethods(); i++ {
		if iface.Method(i).Name() == method {
			return true
		}
	}
	return false
}

// allImports returns pkg's imports and theirs.
func allImports(pkg *types.Package) []*types.Package {
	seen := map[*types.Package]bool{}
	var out []*types.Package
	var walk func(p *types.Package)
	walk = func(p *types.Package) {
		for _, q := range p.Imports() {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
				walk(q)
			}
		}
	}
	walk(pkg)
	return out
}

func derefStruct(t types.Type) (*types.Struct, bool) {
	t = types.Unalias(t)
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	return s, ok
}

// recvOperand builds the receiver operand of a rewritten method call from
// the (already rewritten) operand x of the selector.
func (r *rewriter) recvOperand(mp *methodPlan, x ast.Expr) ast.Expr {
	e := x
	for _, f := range mp.path {
		e = &ast.SelectorExpr{X: e, Sel: ident(f, x.End())}
	}
	if mp.needAddr {
		e = addr(e)
	}
	if mp.needDeref {
		e = &ast.StarExpr{Star: x.Pos(), X: e}
	}
	return e
}

// buildMethodCall builds the replacement of x.m(args) and registers its
// evaluation slots for go statements.
func (r *rewriter) buildMethodCall(mp *methodPlan, sel *ast.SelectorExpr, call *ast.CallExpr) *ast.CallExpr {
	pos := sel.Pos()
	recv := r.recvOperand(mp, sel.X)
	switch mp.kind {
	case mWrap, mTB:
		inner := r.rtCall(mp.rtName, pos, recv)
		inner.Rparen = sel.Sel.Pos()
		out := &ast.CallExpr{Fun: &ast.SelectorExpr{X: inner, Sel: sel.Sel}, Lparen: call.Lparen, Args: call.Args, Ellipsis: call.Ellipsis, Rparen: call.Rparen}
		slots := []*ast.Expr{&inner.Args[0]}
		for i := range out.Args {
			slots = append(slots, &out.Args[i])
		}
		r.operands[out] = slots
		r.early[out] = mp.kind == mWrap
		return out
	default:
		out := r.rtCall(mp.rtName, pos, append([]ast.Expr{recv}, call.Args...)...)
		out.Lparen, out.Ellipsis, out.Rparen = call.Lparen, call.Ellipsis, call.Rparen
		var slots []*ast.Expr
		for i := range out.Args {
			slots = append(slots, &out.Args[i])
		}
		r.operands[out] = slots
		return out
	}
}

// funcObj returns the package-level function a call's function operand
// names, if any.
func (r *rewriter) funcObj(fun ast.Expr) *types.Func {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		fn, _ := r.info.Uses[f].(*types.Func)
		if fn != nil && fn.Signature().Recv() == nil {
			return fn
		}
	case *ast.SelectorExpr:
		if _, ok := r.info.Selections[f]; ok {
			return nil
		}
		fn, _ := r.info.Uses[f.Sel].(*types.Func)
		if fn != nil && fn.Signature().Recv() == nil {
			return fn
		}
	}
	return nil
}

func (r *rewriter) planCall(call *ast.CallExpr) {
	fun := ast.Unparen(call.Fun)
	// Builtins on channels.
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			r.planBuiltin(call, b.Name())
			return
		}
	}
	// Method calls.
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s, ok := r.info.Selections[sel]; ok && s.Kind() == types.MethodExpr {
			r.planMethodExprCall(call, sel)
			return
		}
		if r.planFuzz(call, sel) {
			return
		}
		if mp := r.classifyMethod(sel); mp != nil {
			r.skip[sel] = true // no method-value closure for the callee
			var ptypes []types.Type
			var results *types.Tuple
			// log.Logger.Output counts its caller's frames: a function
			// literal around it would be one more.
			if mp.kind == mWrap && !r.tupleArg(call) && !(mp.rtName == "LoggerW" && sel.Sel.Name == "Output") {
				if sig, ok := r.typeOf(sel).(*types.Signature); ok {
					if args := argTypes(sig, len(call.Args), call.Ellipsis.IsValid()); args != nil {
						ptypes = append([]types.Type{r.recvType(sel, mp)}, args...)
						results = sig.Results()
					}
				}
			}
			orig := call
			r.plans[call] = func(c *astutil.Cursor) {
				call := c.Node().(*ast.CallExpr)
				sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
				out := r.buildMethodCall(mp, sel, call)
				if r.early[out] && ptypes != nil {
					c.Replace(r.stepLate(orig, out, r.operands[out], ptypes, results))
					return
				}
				c.Replace(out)
			}
			return
		}
	}
	fn := r.funcObj(fun)
	if fn == nil || fn.Pkg() == nil {
		return
	}
	if st, ok := stdSteps[fn.Pkg().Path()+"."+fn.Name()]; ok {
		r.planStdStep(call, st)
		return
	}
	switch path := fn.Pkg().Path(); path {
	case "sync/atomic":
		if len(call.Args) == 0 {
			return
		}
		name := "AtomicW"
		if strings.HasPrefix(fn.Name(), "Load") {
			name = "AtomicR"
		}
		sig, _ := r.typeOf(call.Fun).(*types.Signature)
		var ptypes []types.Type
		if !r.tupleArg(call) {
			ptypes = argTypes(sig, len(call.Args), call.Ellipsis.IsValid())
		}
		r.plans[call] = func(c *astutil.Cursor) {
			orig := c.Node().(*ast.CallExpr)
			call := orig
			a := r.rtCall(name, call.Args[0].Pos(), call.Args[0])
			a.Rparen = call.Args[0].End()
			call.Args[0] = a
			r.changed = true
			// The step is in the first operand: in a go or defer
			// statement it is taken by the call, not before.
			slots := []*ast.Expr{&a.Args[0]}
			for i := range call.Args[1:] {
				slots = append(slots, &call.Args[1+i])
			}
			r.operands[call] = slots
			r.early[call] = true
			if ptypes != nil {
				if e := r.stepLate(orig, call, slots, ptypes, sig.Results()); e != ast.Expr(call) {
					c.Replace(e)
				}
			}
		}
	case "testing/quick":
		// quick.Check(f, c) -> rt.QuickCheck(quick.Check, f, c): the
		// config gets a Rand from the run's source when it has none
		// (testing/quick would seed one from the wall clock, and the test
		// would do something else under every run of one schedule).
		name := map[string]string{"Check": "QuickCheck", "CheckEqual": "QuickCheckEqual"}[fn.Name()]
		if name == "" || call.Ellipsis.IsValid() {
			return
		}
		r.plans[call] = func(c *astutil.Cursor) {
			call := c.Node().(*ast.CallExpr)
			out := r.rtCall(name, call.Pos(), append([]ast.Expr{call.Fun}, call.Args...)...)
			out.Lparen, out.Rparen = call.Lparen, call.Rparen
			c.Replace(out)
		}
	case "math/rand", "math/rand/v2":
		name := fn.Name()
		if r.planRandSource(call, path, name) {
			return
		}
		if name == "Seed" && path == "math/rand" && !call.Ellipsis.IsValid() {
			// rand.Seed(s) -> rt.RandSeed(s): where Seed is in effect,
			// the run's top-level functions draw its sequence, as natively.
			r.plans[call] = func(c *astutil.Cursor) {
				call := c.Node().(*ast.CallExpr)
				out := r.rtCall("RandSeed", call.Pos(), call.Args...)
				out.Lparen, out.Rparen = call.Lparen, call.Rparen
				c.Replace(out)
			}
			return
		}
		if name == "Seed" || name == "N" || strings.HasPrefix(name, "New") {
			return
		}
		randT, ok := fn.Pkg().Scope().Lookup("Rand").(*types.TypeName)
		if !ok {
			return
		}
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(randT.Type()), false, fn.Pkg(), name); obj == nil {
			return
		}
		src := "Rand"
		if path == "math/rand/v2" {
			src = "RandV2"
		}
		r.skip[fun] = true
		r.plans[call] = func(c *astutil.Cursor) {
			call := c.Node().(*ast.CallExpr)
			pos := call.Fun.Pos()
			call.Fun = &ast.SelectorExpr{X: r.rtCall(src, pos), Sel: ident(name, pos)}
		}
	}
}

func (r *rewriter) planBuiltin(call *ast.CallExpr, name string) {
	if len(call.Args) == 0 {
		return
	}
	switch name {
	case "make":
		ct := chanOf(r.typeOf(call.Args[0]))
		if ct == nil || ct.Dir() != types.SendRecv {
			return
		}
		var sizeConv bool
		if len(call.Args) > 1 {
			st := r.typeOf(call.Args[1])
			if b, ok := st.(*types.Basic); !ok || (b.Kind() != types.Int && b.Info()&types.IsUntyped == 0) {
				sizeConv = true
			}
		}
		r.plans[call] = func(c *astutil.Cursor) {
			call := c.Node().(*ast.CallExpr)
			pos := call.Pos()
			var size ast.Expr = &ast.BasicLit{ValuePos: call.Rparen, Kind: token.INT, Value: "0"}
			if len(call.Args) > 1 {
				size = call.Args[1]
				if sizeConv {
					intT, err := r.typeExprAt(types.Typ[types.Int], size.Pos())
					if err != nil {
						intT = ident("int", size.Pos())
					}
					size = &ast.CallExpr{Fun: intT, Lparen: size.Pos(), Args: []ast.Expr{size}, Rparen: size.End()}
				}
			}
			fun := &ast.IndexExpr{X: r.rt("MakeChan", pos), Lbrack: pos, Index: call.Args[0], Rbrack: pos}
			r.static[fun] = true
			out := &ast.CallExpr{Fun: fun, Lparen: call.Lparen, Args: []ast.Expr{size}, Rparen: call.Rparen}
			c.Replace(out)
		}
	case "close", "len", "cap":
		t := r.typeOf(call.Args[0])
		ct := chanOf(t)
		if ct == nil {
			return
		}
		fname := map[string]string{"close": "Close", "len": "Len", "cap": "Cap"}[name]
		if name != "close" && ct.Dir() == types.SendOnly {
			fname += "S"
		}
		r.plans[call] = func(c *astutil.Cursor) {
			call := c.Node().(*ast.CallExpr)
			out := r.rtCall(fname, call.Pos(), call.Args[0])
			out.Lparen, out.Rparen = call.Lparen, call.Rparen
			r.operands[out] = []*ast.Expr{&out.Args[0]}
			c.Replace(out)
		}
	}
}

// planSelector handles package functions used through a qualified name
// (time.Sleep -> rt.Sleep, in calls and as values) and method values of
// rewritten methods (f := mu.Unlock).
func (r *rewriter) planSelector(sel *ast.SelectorExpr) {
	r.skip[sel.Sel] = true
	if _, ok := r.info.Selections[sel]; ok {
		if r.callee[sel] {
			return
		}
		if r.info.Selections[sel].Kind() == types.MethodExpr {
			r.planMethodExpr(sel)
			return
		}
		r.planMethodValue(sel)
		return
	}
	if name, ok := replacedType(r.info.Uses[sel.Sel]); ok {
		r.plans[sel] = func(c *astutil.Cursor) {
			c.Replace(r.rt(name, c.Node().Pos()))
		}
		return
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Signature().Recv() != nil {
		return
	}
	if fn.Pkg().Path() == "sync/atomic" {
		r.planAtomicFuncValue(sel, fn)
		return
	}
	name, ok := r.racyFuncs[sel]
	if !ok {
		name, ok = renamed[fn.Pkg().Path()+"."+fn.Name()]
	}
	if !ok {
		return
	}
	r.plans[sel] = func(c *astutil.Cursor) {
		sel := c.Node().(*ast.SelectorExpr)
		c.Replace(r.rt(name, sel.Pos()))
	}
}

// planAtomicFuncValue wraps a function of package sync/atomic used as a
// value (add := atomic.AddInt32) in rt's wrapper of its kind, of the same
// type, whose calls are scheduling points as the direct calls are
// (rt/atomic.go). A call of the function itself is planCall's.
func (r *rewriter) planAtomicFuncValue(sel *ast.SelectorExpr, fn *types.Func) {
	if r.callee[sel] {
		return
	}
	var name string
	switch n := fn.Name(); {
	case strings.HasPrefix(n, "Load"):
		name = "AtomicLoadFn"
	case strings.HasPrefix(n, "Store"):
		name = "AtomicStoreFn"
	case strings.HasPrefix(n, "CompareAndSwap"):
		name = "AtomicCASFn"
	case strings.HasPrefix(n, "Add"), strings.HasPrefix(n, "Swap"), strings.HasPrefix(n, "And"), strings.HasPrefix(n, "Or"):
		name = "AtomicRMWFn"
	default:
		return
	}
	r.plans[sel] = func(c *astutil.Cursor) {
		sel := c.Node().(*ast.SelectorExpr)
		out := r.rtCall(name, sel.Pos(), sel)
		out.Rparen = sel.End()
		c.Replace(out)
	}
}

// planIdent handles dot-imported package functions.
func (r *rewriter) planIdent(id *ast.Ident) {
	if obj := r.info.Uses[id]; obj != nil && obj.Pkg() != r.pkg {
		if name, ok := replacedType(obj); ok {
			r.plans[id] = func(c *astutil.Cursor) {
				c.Replace(r.rt(name, c.Node().Pos()))
			}
			return
		}
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg() == r.pkg || fn.Signature().Recv() != nil {
		return // not a package function (log.Logger.Fatal is not log.Fatal)
	}
	name, ok := renamed[fn.Pkg().Path()+"."+fn.Name()]
	if !ok {
		return
	}
	r.plans[id] = func(c *astutil.Cursor) {
		c.Replace(r.rt(name, c.Node().Pos()))
	}
}

// planMethodExprCall rewrites a call of a method expression,
// (*sync.Mutex).Lock(&mu) or sync.Locker.Lock(l), as the call on its first
// argument: rt.MutexLock(&mu), rt.LockerLock(l).
func (r *rewriter) planMethodExprCall(call *ast.CallExpr, sel *ast.SelectorExpr) {
	mp := r.classifyMethod(sel)
	if mp == nil || len(call.Args) == 0 {
		return
	}
	if _, tuple := r.typeOf(call.Args[0]).(*types.Tuple); tuple {
		return
	}
	r.skip[sel] = true
	r.plans[call] = func(c *astutil.Cursor) {
		call := c.Node().(*ast.CallExpr)
		sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		recv := &ast.SelectorExpr{X: call.Args[0], Sel: sel.Sel}
		rest := &ast.CallExpr{Fun: recv, Lparen: call.Lparen, Args: call.Args[1:], Ellipsis: call.Ellipsis, Rparen: call.Rparen}
		c.Replace(r.buildMethodCall(mp, recv, rest))
	}
}

// planMethodExpr turns a method expression of a rewritten method, used as
// a value, into a function literal that makes the rewritten call on its
// first argument:
//
//	lock := (*sync.Mutex).Lock  ->  lock := func(p *sync.Mutex) { rt.MutexLock(p) }
//
// It leaves the method expression alone if the signature cannot be spelled.
func (r *rewriter) planMethodExpr(sel *ast.SelectorExpr) {
	mp := r.classifyMethod(sel)
	if mp == nil {
		return
	}
	sig, ok := r.typeOf(sel).(*types.Signature)
	if !ok || sig.Params().Len() == 0 {
		return
	}
	r.plans[sel] = func(c *astutil.Cursor) {
		sel := c.Node().(*ast.SelectorExpr)
		pos := sel.Pos()
		names, args := r.paramNames(sig, pos)
		ft, err := r.funcTypeAt(sig, names, pos)
		if err != nil {
			return
		}
		ft.Func = pos
		fake := &ast.CallExpr{Fun: &ast.SelectorExpr{X: args[0], Sel: sel.Sel}, Lparen: pos, Args: args[1:], Rparen: pos}
		if sig.Variadic() {
			fake.Ellipsis = pos
		}
		call := r.buildMethodCall(mp, fake.Fun.(*ast.SelectorExpr), fake)
		var stmt ast.Stmt = &ast.ExprStmt{X: call}
		if sig.Results().Len() > 0 {
			stmt = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
		}
		c.Replace(&ast.FuncLit{Type: ft, Body: block(pos, stmt)})
	}
}

// paramNames makes a fresh name for each parameter of sig, and the
// identifiers that pass them on, for a function literal that wraps a
// method.
func (r *rewriter) paramNames(sig *types.Signature, pos token.Pos) ([]string, []ast.Expr) {
	var names []string
	var args []ast.Expr
	for i := 0; i < sig.Params().Len(); i++ {
		n := r.tmp("p")
		names = append(names, n)
		args = append(args, ident(n, pos))
	}
	return names, args
}

// planMethodValue turns a method value of a rewritten method into a
// closure over the receiver evaluated now:
//
//	f := mu.Unlock  ->  f := func() func() { r := &mu; return func() { rt.MutexUnlock(r) } }()
//
// It leaves the method value alone if the signature cannot be spelled.
func (r *rewriter) planMethodValue(sel *ast.SelectorExpr) {
	mp := r.classifyMethod(sel)
	if mp == nil {
		return
	}
	sig, ok := r.info.Selections[sel].Type().(*types.Signature)
	if !ok {
		return
	}
	r.plans[sel] = func(c *astutil.Cursor) {
		sel := c.Node().(*ast.SelectorExpr)
		pos := sel.Pos()
		names, args := r.paramNames(sig, pos)
		inner, err := r.funcTypeAt(sig, names, pos)
		if err != nil {
			return
		}
		outer, err := r.funcTypeAt(sig, nil, pos)
		if err != nil {
			return
		}
		hr := r.tmp("r")
		fake := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(hr, pos), Sel: sel.Sel}, Lparen: pos, Args: args, Rparen: pos}
		if sig.Variadic() {
			fake.Ellipsis = pos
		}
		recv := r.recvOperand(mp, sel.X)
		// The call is built on the temporary receiver, which already is
		// the receiver operand: no path, no address.
		rtName := mp.rtName
		if mp.kind == mTB {
			// The closure is a helper of the run's T.
			rtName = "TBValue"
			if mp.rtName == "TBRoute" {
				rtName = "TBRouteValue"
			}
		}
		call := r.buildMethodCall(&methodPlan{kind: mp.kind, rtName: rtName}, fake.Fun.(*ast.SelectorExpr), fake)
		var stmt ast.Stmt = &ast.ExprStmt{X: call}
		if sig.Results().Len() > 0 {
			stmt = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
		}
		lit := &ast.FuncLit{Type: inner, Body: block(pos, stmt)}
		wrapper := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: outer}}}},
			Body: block(pos,
				define(pos, idents(pos, hr), recv),
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{lit}}),
		}
		c.Replace(&ast.CallExpr{Fun: wrapper, Lparen: pos, Rparen: pos})
	}
}

// ---- imports ----

// fixImports adds heddle.dev/rt and any import needed to spell types, and
// removes imports the rewrite left unused.
func (r *rewriter) fixImports() {
	used := map[string]bool{}
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if pn, ok := r.info.Uses[x].(*types.PkgName); ok {
					used[pn.Imported().Path()] = true
					return false
				} else if _, known := r.info.Uses[x]; !known {
					for p, name := range r.imported {
						if name == x.Name {
							used[p] = true
						}
					}
				}
			}
		case *ast.Ident:
			if obj := r.info.Uses[n]; obj != nil && obj.Pkg() != nil && obj.Pkg() != r.pkg && obj.Parent() == obj.Pkg().Scope() {
				used["."+obj.Pkg().Path()] = true // a dot-imported name
			}
		}
		return true
	})
	var firstImport *ast.GenDecl
	var decls []ast.Decl
	for _, d := range r.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			decls = append(decls, d)
			continue
		}
		var specs []ast.Spec
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			keep := true
			switch {
			case path == "C":
			case is.Name != nil && is.Name.Name == "_":
			case is.Name != nil && is.Name.Name == ".":
				keep = used["."+path]
			default:
				keep = used[path]
			}
			if keep {
				specs = append(specs, s)
			}
		}
		gd.Specs = specs
		if len(specs) == 0 {
			continue
		}
		if firstImport == nil {
			firstImport = gd
		}
		decls = append(decls, gd)
	}
	r.file.Decls = decls
	var imports []*ast.ImportSpec
	for _, d := range decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			for _, s := range gd.Specs {
				imports = append(imports, s.(*ast.ImportSpec))
			}
		}
	}
	add := map[string]string{rtPath: r.rtName}
	for p, n := range r.added {
		add[p] = n
	}
	if firstImport == nil {
		firstImport = &ast.GenDecl{TokPos: r.file.Name.End(), Tok: token.IMPORT, Lparen: r.file.Name.End(), Rparen: r.file.Name.End()}
		r.file.Decls = append([]ast.Decl{firstImport}, r.file.Decls...)
	}
	if !firstImport.Lparen.IsValid() {
		firstImport.Lparen = firstImport.TokPos
		firstImport.Rparen = firstImport.End()
	}
	paths := make([]string, 0, len(add))
	for p := range add {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		is := &ast.ImportSpec{Name: ast.NewIdent(add[p]), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(p)}}
		firstImport.Specs = append(firstImport.Specs, is)
		imports = append(imports, is)
	}
	r.file.Imports = imports
}

// ioMethods are the methods of an interface by which the standard library
// reads or writes a file handed to it.
var ioMethods = map[string]bool{
	"Read": true, "Write": true, "WriteString": true, "ReadFrom": true, "WriteTo": true, "ReadAt": true, "WriteAt": true,
}

// planFileKeep marks the arguments of a call of the standard library that
// may be files it keeps, to read or write them later in no step
// (bufio.NewWriter(f), log.New(f, ...), json.NewEncoder(f)): an argument
// of type *os.File or of an interface type, passed as an interface with
// one of ioMethods. Each is wrapped in rt.FileKeep, which counts the run's
// unstepped files when it is one (rt/file.go). The calls renamed to a
// step of their own (fmt.Fprint, io.Copy) use the file at once.
func (r *rewriter) planFileKeep(call *ast.CallExpr) {
	var fn *types.Func
	fun := ast.Unparen(call.Fun)
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s, ok := r.info.Selections[sel]; ok {
			if s.Kind() != types.MethodVal {
				return
			}
			fn, _ = s.Obj().(*types.Func)
		}
	}
	if fn == nil {
		fn = r.funcObj(fun)
	}
	if fn == nil || fn.Pkg() == nil || !r.notRewritten(fn.Pkg().Path()) {
		return
	}
	if fn.Signature().Recv() == nil {
		if _, ok := renamed[fn.Pkg().Path()+"."+fn.Name()]; ok && fileSteps[renamed[fn.Pkg().Path()+"."+fn.Name()]] {
			return
		}
	}
	sig, ok := types.Unalias(r.typeOf(call.Fun)).(*types.Signature)
	if !ok {
		return
	}
	params := sig.Params()
	if params.Len() == 0 || (len(call.Args) == 1 && params.Len() > 1) {
		return // none, or f(g()) with g's results
	}
	key := fn.Pkg().Path() + "." + fn.Name()
	if recv := fn.Signature().Recv(); recv != nil {
		rt := recv.Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := types.Unalias(rt).(*types.Named); ok {
			key = fn.Pkg().Path() + "." + n.Obj().Name() + "." + fn.Name()
		}
	}
	writer := fileWriterCalls[key]
	for i, a := range call.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= params.Len()-1:
			if call.Ellipsis.IsValid() {
				continue
			}
			sl, ok := params.At(params.Len() - 1).Type().Underlying().(*types.Slice)
			if !ok {
				continue
			}
			pt = sl.Elem()
		case i < params.Len():
			pt = params.At(i).Type()
		default:
			continue
		}
		if ioInterface(pt) && mayBeFile(r.typeOf(a)) {
			r.keep[a] = true
			if writer && isIOWriter(pt) {
				r.keepWriter[a] = true
			}
		}
	}
}

// fileWriterCalls are the functions and methods of the standard library
// that keep an io.Writer to write it later, with no lock of their own
// held while they write, and that look at its dynamic type only for
// io.StringWriter, io.ReaderFrom or types of their own (checked in Go
// 1.26's sources): an *os.File passed to one is wrapped by rt.FileWriter,
// whose writes are the file's steps. log.New is not one (it writes under
// its mutex, and Logger.Writer hands the writer back), nor encoding/gob's
// Encoder (its mutex).
var fileWriterCalls = map[string]bool{
	"bufio.NewWriter":              true,
	"bufio.NewWriterSize":          true,
	"bufio.Writer.Reset":           true,
	"encoding/json.NewEncoder":     true,
	"encoding/xml.NewEncoder":      true,
	"encoding/csv.NewWriter":       true,
	"text/tabwriter.NewWriter":     true,
	"text/tabwriter.Writer.Init":   true,
	"compress/gzip.NewWriter":      true,
	"compress/gzip.NewWriterLevel": true,
	"compress/gzip.Writer.Reset":   true,
	"compress/flate.NewWriter":     true,
	"compress/flate.Writer.Reset":  true,
}

// isIOWriter reports whether t is io.Writer.
func isIOWriter(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "io" && n.Obj().Name() == "Writer"
}

// fileSteps are the rt functions that replace a call of the standard
// library reading or writing a file at once, in a step of their own.
var fileSteps = map[string]bool{
	"Fprint": true, "Fprintf": true, "Fprintln": true, "Fscan": true, "Fscanf": true, "Fscanln": true,
	"WriteString": true, "ReadAll": true, "ReadFull": true, "ReadAtLeast": true,
	"Copy": true, "CopyN": true, "CopyBuffer": true,
}

// notRewritten reports whether the package of an import path is not
// rewritten: the standard library, or, when the rewriter knows the
// packages it rewrites (Rewrite), a dependency it leaves alone.
func (r *rewriter) notRewritten(path string) bool {
	if r.pkg != nil && path == r.pkg.Path() {
		return false
	}
	first, _, _ := strings.Cut(path, "/")
	if stdRoots[first] {
		return true
	}
	return r.rewritten != nil && !r.rewritten[path]
}

// stdRoots are the first elements of the standard library's import paths.
var stdRoots = map[string]bool{
	"archive": true, "bufio": true, "bytes": true, "cmp": true, "compress": true, "container": true,
	"context": true, "crypto": true, "database": true, "debug": true, "embed": true, "encoding": true,
	"errors": true, "expvar": true, "flag": true, "fmt": true, "go": true, "hash": true, "html": true,
	"image": true, "index": true, "internal": true, "io": true, "iter": true, "log": true, "maps": true,
	"math": true, "mime": true, "net": true, "os": true, "path": true, "plugin": true, "reflect": true,
	"regexp": true, "runtime": true, "slices": true, "sort": true, "strconv": true, "strings": true,
	"structs": true, "sync": true, "syscall": true, "testing": true, "text": true, "time": true,
	"unicode": true, "unique": true, "unsafe": true, "weak": true,
}

// ioInterface reports whether t is an interface with one of ioMethods.
func ioInterface(t types.Type) bool {
	if t == nil {
		return false
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < it.NumMethods(); i++ {
		if ioMethods[it.Method(i).Name()] {
			return true
		}
	}
	return false
}

// mayBeFile reports whether a value of type t may be an *os.File, or
// write one through its methods: t is *os.File, an interface, or a
// struct (or a pointer to one) that embeds an *os.File or an os.File
// (rt.FileKeep finds it).
func mayBeFile(t types.Type) bool {
	if t == nil {
		return false
	}
	t = types.Unalias(t)
	if _, ok := t.(*types.TypeParam); ok {
		return true
	}
	if types.IsInterface(t) {
		return true
	}
	if p, ok := t.(*types.Pointer); ok {
		if isOSFile(p.Elem()) {
			return true
		}
		t = p.Elem()
	}
	return embedsFile(t, 0)
}

// isOSFile reports whether t is os.File.
func isOSFile(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "os" && n.Obj().Name() == "File"
}

// embedsFile reports whether t is a struct with an embedded *os.File or
// os.File, directly or through embedded structs (to the depth rt.FileKeep
// looks).
func embedsFile(t types.Type, depth int) bool {
	if depth > 3 || isOSFile(t) {
		return false
	}
	st, ok := types.Unalias(t).Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		ft := types.Unalias(f.Type())
		if p, ok := ft.(*types.Pointer); ok {
			ft = p.Elem()
		}
		if isOSFile(ft) || embedsFile(ft, depth+1) {
			return true
		}
	}
	return false
}

// planFileField marks the value stored into an interface-typed field of a
// struct of a package heddle does not rewrite, when it may be a file
// (cmd.Stdout = f, &exec.Cmd{Stdout: f}): that package may write it
// later in no step (rt.FileKeep counts it; an exec.Cmd hands its file to
// the child process).
func (r *rewriter) planFileField(n ast.Node) {
	keep := func(field *types.Var, v ast.Expr) {
		if field == nil || field.Pkg() == nil || !r.notRewritten(field.Pkg().Path()) {
			return
		}
		if ioInterface(field.Type()) && mayBeFile(r.typeOf(v)) {
			r.keep[v] = true
		}
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok != token.ASSIGN || len(n.Lhs) != len(n.Rhs) {
			return
		}
		for i, l := range n.Lhs {
			sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
			if !ok {
				continue
			}
			if s, ok := r.info.Selections[sel]; ok && s.Kind() == types.FieldVal {
				f, _ := s.Obj().(*types.Var)
				keep(f, n.Rhs[i])
			}
		}
	case *ast.CompositeLit:
		st, ok := types.Unalias(r.typeOf(n)).Underlying().(*types.Struct)
		if !ok {
			return
		}
		for i, e := range n.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					f, _ := r.info.Uses[id].(*types.Var)
					keep(f, kv.Value)
				}
			} else if i < st.NumFields() {
				keep(st.Field(i), e)
			}
		}
	}
}

// wrapKeep replaces the argument at c, as the plans of its own node left
// it, by rt.FileKeep(argument), or rt.FileWriter(argument) when it is
// kept as an io.Writer only.
func (r *rewriter) wrapKeep(c *astutil.Cursor, writer bool) {
	name := "FileKeep"
	if writer {
		name = "FileWriter"
	}
	wrap := func(slot *ast.Expr) {
		a := *slot
		w := r.rtCall(name, a.Pos(), a)
		w.Rparen = a.End()
		*slot = w
	}
	switch p := c.Parent().(type) {
	case *ast.CallExpr:
		if c.Name() == "Args" && c.Index() >= 0 && c.Index() < len(p.Args) {
			wrap(&p.Args[c.Index()])
		}
	case *ast.AssignStmt:
		if c.Name() == "Rhs" && c.Index() >= 0 && c.Index() < len(p.Rhs) {
			wrap(&p.Rhs[c.Index()])
		}
	case *ast.CompositeLit:
		if c.Name() == "Elts" && c.Index() >= 0 && c.Index() < len(p.Elts) {
			wrap(&p.Elts[c.Index()])
		}
	case *ast.KeyValueExpr:
		if c.Name() == "Value" {
			wrap(&p.Value)
		}
	}
}
