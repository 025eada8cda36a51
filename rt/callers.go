package rt

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"heddle.dev/internal/explore"
)

// The program's view of its own stack. Under heddle a goroutine's function
// is called by heddle's runtime (engine.(*Exec).goroutine on a pooled
// goroutine), a test's function by explore's machinery, and a function
// passed to a construct heddle models (Once.Do, t.Run, ...) by heddle's
// code: natively none of these frames exist. Callers and Caller replace
// runtime's: they leave out every frame of heddle's runtime, so that a
// goroutine's bottom frame is its function (then runtime.goexit) as
// natively, and a test's (or subtest's) function is called by
// testing.tRunner, as natively. testify's Error Trace, a logger's
// file:line, or anything else that walks the stack sees the program's
// frames only, with the original file and line (rewritten files carry
// //line directives).

// testTail holds the bottom frames of a test's goroutine natively: the pc
// of testing.tRunner's call of the test and runtime.goexit's. Explore
// records them from the real test goroutine.
var testTail atomic.Pointer[[]uintptr]

// testTailText is testTail as a stack dump shows it: from testing.tRunner's
// frame to the line that says which goroutine created the test's.
var testTailText atomic.Pointer[string]

// recordTestTail records testTail and testTailText from the calling
// goroutine, a test's (called by testing.tRunner), once.
func recordTestTail() {
	if testTail.Load() != nil {
		return
	}
	if s := string(debug.Stack()); strings.Contains(s, "\ntesting.tRunner(") {
		tail := s[strings.Index(s, "\ntesting.tRunner(")+1:]
		testTailText.Store(&tail)
	}
	pcs := callersFrom(1)
	for i, pc := range pcs {
		if funcName(pc) == "testing.tRunner" {
			tail := append([]uintptr(nil), pcs[i:]...)
			testTail.Store(&tail)
			return
		}
	}
}

// exampleTail and exampleTailText are testTail and testTailText for an
// example: natively go test's main goroutine calls it, from
// testing.runExample down to runtime.goexit (conc's panics
// ExampleCatcher_callers prints them). Example records them from that
// goroutine before it explores the example.
var (
	exampleTail     atomic.Pointer[[]uintptr]
	exampleTailText atomic.Pointer[string]
)

// recordExampleTail records exampleTail and exampleTailText from the
// calling goroutine, go test's main goroutine calling an example (through
// Example), once: the frames below the example's function.
func recordExampleTail() {
	if exampleTail.Load() != nil {
		return
	}
	if s := string(debug.Stack()); strings.Contains(s, "\ntesting.runExample(") {
		tail := s[strings.Index(s, "\ntesting.runExample(")+1:]
		exampleTailText.Store(&tail)
	}
	pcs := callersFrom(1)
	for i, pc := range pcs {
		if name := funcName(pc); name != "runtime.Callers" && !isHeddleFunc(name) {
			// The example's function: its caller's frames are the tail.
			tail := append([]uintptr(nil), pcs[i+1:]...)
			exampleTail.Store(&tail)
			return
		}
	}
}

// heddleTestCaller is the heddle function that calls a test's (or
// subtest's) function: natively, testing.tRunner does.
const heddleTestCaller = "heddle.dev/internal/explore/require.Test"

// heddleExampleCaller is the heddle function that calls an example's
// function in a run (under heddleTestCaller): natively, testing.runExample
// does.
const heddleExampleCaller = "heddle.dev/internal/explore.exampleRun"

// callersFrom returns the pcs of the calling goroutine's logical frames
// (one per frame, inlined ones included, as runtime.Callers returns them),
// skip frames up: 0 is runtime.Callers itself, 1 callersFrom.
func callersFrom(skip int) []uintptr {
	buf := make([]uintptr, 64)
	for {
		n := runtime.Callers(skip, buf)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]uintptr, 2*len(buf))
	}
}

// programCallers returns the calling goroutine's stack as the program
// would see it natively, from runtime.Callers's own frame (pcs[0]) down:
// heddle's frames are left out, and a test's function is called by
// testing.tRunner (an example's by testing.runExample).
func programCallers() []uintptr {
	pcs := callersFrom(0)
	out := pcs[:0]
	example := false
	for _, pc := range pcs {
		name := funcName(pc)
		if !isHeddleFunc(name) {
			out = append(out, pc)
			continue
		}
		example = example || name == heddleExampleCaller
		if name == heddleTestCaller {
			tail := testTail.Load()
			if example {
				tail = exampleTail.Load()
			}
			if tail != nil {
				out = append(out, *tail...)
				break
			}
		}
	}
	return out
}

// funcName returns the name of the function of a pc that runtime.Callers
// returned (a return address, or one past an inlined call's mark).
func funcName(pc uintptr) string {
	if f := runtime.FuncForPC(pc - 1); f != nil {
		return f.Name()
	}
	return ""
}

// isHeddleFunc reports whether a function is part of heddle's runtime.
func isHeddleFunc(name string) bool {
	return strings.HasPrefix(name, "heddle.dev/rt.") || strings.HasPrefix(name, "heddle.dev/internal/")
}

// Callers replaces runtime.Callers: the pcs of the program's frames,
// without heddle's (see above).
func Callers(skip int, pc []uintptr) int {
	pcs := programCallers()
	if skip < 0 {
		skip = 0
	}
	if skip >= len(pcs) {
		return 0
	}
	return copy(pc, pcs[skip:])
}

// Caller replaces runtime.Caller: the frame skip frames above its caller
// among the program's frames, without heddle's (see above).
func Caller(skip int) (pc uintptr, file string, line int, ok bool) {
	pcs := programCallers()
	// pcs[0] is runtime.Callers's frame, pcs[1] the caller of Caller.
	if skip < 0 || skip+1 >= len(pcs) {
		return 0, "", 0, false
	}
	frame, _ := runtime.CallersFrames(pcs[skip+1 : skip+2]).Next()
	return frame.PC, frame.File, frame.Line, frame.PC != 0
}

// DebugStack replaces runtime/debug.Stack: the calling goroutine's stack as
// the program would see it natively (see above).
func DebugStack() []byte {
	return []byte(explore.CurrentStack(programStack(string(debug.Stack()))))
}

// DebugPrintStack replaces runtime/debug.PrintStack, which writes
// debug.Stack to standard error.
func DebugPrintStack() {
	os.Stderr.Write(DebugStack())
}

// programStack returns a goroutine's stack dump (runtime.Stack's format)
// without heddle's frames, and with a test's function called by
// testing.tRunner as natively (an example's by testing.runExample). The
// goroutine that created one of the run's goroutines is not known: the dump
// has no "created by" line for it.
func programStack(dump string) string {
	lines := strings.Split(strings.TrimRight(dump, "\n"), "\n")
	out := lines[:1]
	example := false
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		hasFile := i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t")
		if name := strings.TrimPrefix(l, "created by "); isHeddleFunc(name) {
			example = example || strings.HasPrefix(name, heddleExampleCaller+"(")
			if strings.HasPrefix(name, heddleTestCaller+"(") {
				tail := testTailText.Load()
				if example {
					tail = exampleTailText.Load()
				}
				if tail != nil {
					out = append(out, strings.TrimRight(*tail, "\n"))
					break
				}
			}
			if hasFile {
				i++
			}
			continue
		}
		out = append(out, l)
		if hasFile {
			out = append(out, lines[i+1])
			i++
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// FuncName replaces (*runtime.Func).Name: a test's body and its function
// literals named as natively (TestX, TestX.funcN), as in Stack's dump;
// heddle runs the body as a function literal of its own. pkg/errors'
// frames (%n, %+v) are printed with this name.
func FuncName(f *runtime.Func) string {
	return explore.NativeFuncName(f.Name()) // Name of a nil *Func is ""
}

// FramesNext replaces (*runtime.Frames).Next: the frame's Function named
// as natively (FuncName).
func FramesNext(frames *runtime.Frames) (runtime.Frame, bool) {
	frame, more := frames.Next()
	frame.Function = explore.NativeFuncName(frame.Function)
	return frame, more
}
