package explore

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// Stack is runtime.Stack as the program would see it natively: the
// goroutines of heddle's own machinery (the exploration, its watchdog, the
// idle goroutines of its pool) are left out, and the stack of a goroutine
// heddle runs shows the program's frames without heddle's. Leak checkers
// that read every goroutine's stack (go.uber.org/goleak) would otherwise
// report heddle's goroutines, and the program's as blocked in heddle.
//
// A goroutine the run created that has not started yet exists natively,
// runnable at its function's start: the dump shows it so (with an id of
// its own, above any real goroutine's), so that a leak checker sees it,
// waits on the virtual clock, and lets it run.
func Stack(buf []byte, all bool) int {
	dump := fullStack(all)
	var started map[int64]engine.DumpG
	var unstarted []engine.DumpG
	if x := engine.Current(); x != nil {
		started, unstarted = x.Goroutines()
	}
	var b strings.Builder
	for _, blk := range strings.Split(dump, "\n\n") {
		blk = strings.TrimRight(blk, "\n")
		if blk == "" {
			continue
		}
		if !strings.Contains(blk, "heddle.dev/") {
			if !heddleSignals(blk) {
				writeBlock(&b, blk)
			}
			continue
		}
		if !strings.Contains(blk, "heddle.dev/internal/engine.(*Exec).goroutine(") {
			continue // heddle's own goroutine
		}
		trimmed := trimStack(blk)
		if !strings.Contains(trimmed, "\n") {
			continue // not started yet: shown below
		}
		switch {
		case strings.Contains(blk, "heddle.dev/internal/explore.(*runT).runSubtest("):
			trimmed = inTesting(trimmed, (*testing.T).Run)
		case strings.Contains(blk, "heddle.dev/internal/explore.(*runT).parallel("):
			trimmed = inTesting(trimmed, (*testing.T).Parallel)
		}
		if g, ok := started[blockID(trimmed)]; ok {
			trimmed = entryFrame(nativeNames(withID(trimmed, g.ID)), g) + nativeNames(createdBy(g))
		} else {
			trimmed = nativeNames(trimmed)
		}
		writeBlock(&b, trimmed)
	}
	for _, g := range unstarted {
		if all {
			writeBlock(&b, unstartedBlock(g))
		}
	}
	return copy(buf, b.String())
}

// inTesting is the dump of a goroutine of the run that waits in t.Run for
// its subtest (runSubtest), or in t.Parallel for its parent's function to
// return, as natively: receiving from a channel in testing.(*T).Run, or
// Parallel (fn), which leak checkers leave out (goleak's isTestStack looks
// at the first function and the state). With heddle's frames left out, it
// showed the test's function on top, "waiting", and a check in a subtest
// reported its parent, or a paused parallel sibling, as a leak.
func inTesting(blk string, fn any) string {
	header, frames, ok := strings.Cut(blk, "\n")
	if !ok {
		return blk
	}
	if i, j := strings.IndexByte(header, '['), strings.IndexByte(header, ']'); i >= 0 && j > i {
		header = header[:i+1] + "chan receive" + header[j:]
	}
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return blk
	}
	file, line := f.FileLine(f.Entry())
	return fmt.Sprintf("%s\n%s(...)\n\t%s:%d +0x0\n%s", header, f.Name(), file, line, frames)
}

// CurrentStack is the calling goroutine's stack dump, from which
// heddle's frames were left out (rt's runtime/debug.Stack), with the
// goroutine id and "created by" line the program sees (Stack's) if it is
// a goroutine of the run.
func CurrentStack(dump string) string {
	x := engine.Current()
	if x == nil {
		return dump
	}
	g, ok := x.CurrentG()
	if !ok {
		return dump
	}
	dump = entryFrame(nativeNames(withID(dump, g.ID)), g)
	if !strings.Contains(dump, "\ncreated by ") {
		dump = strings.TrimRight(dump, "\n") + nativeNames(createdBy(g)) + "\n"
	}
	return dump
}

// entryFrame is a dump block (nativeNames applied) of a started
// goroutine of the run whose bottom frame is its go statement's literal,
// rt.Go's argument, with that frame as natively: a function literal
// named as the compiler names it (pkg.TestX.func2: the literal's own name
// is numbered after the rewriter's literals too), or left out when the
// literal only calls the goroutine's function (go g(), go fn()) or is
// the go statement's wrapper (pkg.TestX.gowrap1), which natively a
// traceback shows only before the goroutine started.
func entryFrame(blk string, g engine.DumpG) string {
	if g.Name == "" && g.Target == 0 {
		return blk
	}
	f := runtime.FuncForPC(g.Fn)
	if f == nil {
		return blk
	}
	frames, created := blk, ""
	if i := strings.Index(blk, "\ncreated by "); i >= 0 {
		frames, created = blk[:i], blk[i:]
	}
	trail := len(frames) - len(strings.TrimRight(frames, "\n"))
	frames, end := frames[:len(frames)-trail], frames[len(frames)-trail:]
	lines := strings.Split(frames, "\n")
	n := len(lines)
	if n < 3 || !strings.HasPrefix(lines[n-1], "\t") || !strings.HasPrefix(lines[n-2], testBodyName(f.Name())+"(") {
		return blk
	}
	if g.Target != 0 || strings.Contains(g.Name, ".gowrap") {
		// A traceback leaves a go statement's wrapper out once it
		// called the function (the runtime's elideWrapperCalling).
		lines = lines[:n-2]
	} else {
		lines[n-2] = nativeName(g) + lines[n-2][strings.IndexByte(lines[n-2], '('):]
	}
	return strings.Join(lines, "\n") + end + created
}

// nativeName is the native name of a goroutine's function (the one it
// starts in), as a dump shows it.
func nativeName(g engine.DumpG) string {
	if g.Target != 0 {
		if f := runtime.FuncForPC(g.Target); f != nil {
			return testBodyName(f.Name())
		}
	}
	f := runtime.FuncForPC(g.Fn)
	if f == nil {
		return ""
	}
	if g.Name == "" {
		return testBodyName(f.Name())
	}
	if !strings.HasPrefix(g.Name, ".") {
		return g.Name
	}
	return pkgPrefix(f.Name()) + g.Name
}

// pkgPrefix is the package part of a function's linker name: example.com/a
// of example.com/a.(*T).M.func1.
func pkgPrefix(fn string) string {
	slash := strings.LastIndexByte(fn, '/') + 1
	if dot := strings.IndexByte(fn[slash:], '.'); dot >= 0 {
		return fn[:slash+dot]
	}
	return fn
}

// funcNames maps the compiled names of function literals whose names the
// rewriter changed to their native names (FuncNames). It is written only
// by the rewritten packages' initialization, before main runs, and read
// after.
var funcNames = map[string]string{}

// FuncNames records the native names of a package's function literals
// (rt.FuncNames), in pairs of names relative to the package; in is the
// name of a function of the package (its initialization).
func FuncNames(in string, pairs []string) {
	prefix := pkgPrefix(in)
	for i := 0; i+1 < len(pairs); i += 2 {
		funcNames[prefix+pairs[i]] = prefix + pairs[i+1]
	}
}

// testBodyName is the name Go gives a function of a test's body natively.
// The rewriter makes a test's body a function literal (TestX becomes
// rt.Explore(t, func(t *testing.T) { body })), named pkg.TestX.func1, so
// that the body's own literals are pkg.TestX.func1.N, natively
// pkg.TestX.funcN. A dump shows them as natively (goleak's tests look for
// their test's frame).
func testBodyName(fn string) string {
	if n, ok := funcNames[fn]; ok {
		return n
	}
	slash := strings.LastIndexByte(fn, '/') + 1
	dot := strings.IndexByte(fn[slash:], '.')
	if dot < 0 {
		return fn
	}
	pkg, rest := fn[:slash+dot+1], fn[slash+dot+1:]
	test, after, ok := strings.Cut(rest, ".func1")
	if !ok || !strings.HasPrefix(test, "Test") || strings.ContainsAny(test, ".()[]") {
		return fn
	}
	if t := test[4:]; t != "" && t[0] >= 'a' && t[0] <= 'z' {
		return fn
	}
	switch {
	case after == "":
		return pkg + test
	case after[0] != '.':
		return fn // TestX.func12
	}
	n := after[1:]
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	if n != "" && strings.Trim(n, "0123456789") == "" {
		return pkg + test + ".func" + after[1:]
	}
	return pkg + test + after
}

// NativeFuncName is the name of a function as the program would see it
// natively (testBodyName): rt's runtime.Func.Name and runtime.Frames.Next
// name a test's body and its literals as runtime.Stack's dump does.
func NativeFuncName(fn string) string {
	if !strings.Contains(fn, ".func") {
		return fn
	}
	return testBodyName(fn)
}

// nativeNames is a dump block with the names of a test's body's functions
// as natively (testBodyName).
func nativeNames(blk string) string {
	if !strings.Contains(blk, ".func") {
		return blk
	}
	lines := strings.Split(blk, "\n")
	for i, l := range lines {
		if i == 0 || strings.HasPrefix(l, "\t") {
			continue
		}
		prefix, name := "", l
		if after, ok := strings.CutPrefix(l, "created by "); ok {
			prefix, name = "created by ", after
		}
		end := strings.IndexAny(name, "( ")
		if end < 0 {
			end = len(name)
		}
		lines[i] = prefix + testBodyName(name[:end]) + name[end:]
	}
	return strings.Join(lines, "\n")
}

// heddleSignals reports whether a dump block is os/signal's goroutine
// and heddle's signal.Notify started it (watchInterrupt): natively it
// would not exist unless the program called signal.Notify.
func heddleSignals(blk string) bool {
	id := interruptGoid.Load()
	if id == 0 {
		return false
	}
	i := strings.Index(blk, "\ncreated by os/signal.")
	if i < 0 {
		return false
	}
	created, _, _ := strings.Cut(blk[i+1:], "\n")
	return strings.HasSuffix(created, " in goroutine "+strconv.FormatInt(id, 10))
}

// blockID is the goroutine id in a dump block's header ("goroutine 7
// [running]:"), or 0.
func blockID(blk string) int64 {
	rest, ok := strings.CutPrefix(blk, "goroutine ")
	if !ok {
		return 0
	}
	n := strings.IndexByte(rest, ' ')
	if n < 0 {
		return 0
	}
	id, err := strconv.ParseInt(rest[:n], 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// withID is a dump block with the goroutine id id in its header.
func withID(blk string, id int64) string {
	rest, ok := strings.CutPrefix(blk, "goroutine ")
	if !ok {
		return blk
	}
	n := strings.IndexByte(rest, ' ')
	if n < 0 {
		return blk
	}
	return "goroutine " + strconv.FormatInt(id, 10) + rest[n:]
}

// createdBy is the "created by" line of a goroutine of the run's dump
// (with its leading newline), as natively: the function that holds the go
// statement, the creating goroutine's id, and the go statement's
// position. Without a recorded position (GoPC), the go statement's
// function literal (rt.Go's argument, which the rewriter makes at the go
// statement) gives both: it is named after the function that holds it,
// and starts on the go statement's line. The run's first goroutine (the
// test's) has none: its creator is heddle's.
func createdBy(g engine.DumpG) string {
	if g.Creator == 0 {
		return ""
	}
	var name, file string
	var line int
	if fr, _ := runtime.CallersFrames([]uintptr{g.GoPC}).Next(); g.GoPC != 0 && fr.Function != "" {
		// A return address: CallersFrames takes it so, and names the
		// function the go statement is in, inlined or not.
		name, file, line = fr.Function, fr.File, fr.Line
	} else if f := runtime.FuncForPC(g.Fn); g.Fn != 0 && f != nil {
		name = enclosingFunc(f.Name())
		file, line = f.FileLine(f.Entry())
	} else {
		return ""
	}
	return fmt.Sprintf("\ncreated by %s in goroutine %d\n\t%s:%d +0x0", name, g.Creator, file, line)
}

// enclosingFunc is the name of the function that holds the function
// literal named lit: pkg.F for pkg.F.func2, pkg.F.func1 for pkg.F.func1.3
// (the compiler numbers a literal nested in a literal so).
func enclosingFunc(lit string) string {
	i := strings.LastIndexByte(lit, '.')
	if i < 0 {
		return lit
	}
	n := strings.TrimPrefix(lit[i+1:], "func")
	if n == "" || strings.Trim(n, "0123456789") != "" {
		return lit
	}
	return lit[:i]
}

// unstartedBlock is the dump of a goroutine that has not started: its
// function, and the go statement that created it.
func unstartedBlock(g engine.DumpG) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d [runnable]:\n", g.ID)
	pc := g.Fn
	if g.Target != 0 {
		pc = g.Target
	}
	if f := runtime.FuncForPC(pc); f != nil {
		file, line := f.FileLine(f.Entry())
		fmt.Fprintf(&b, "%s()\n\t%s:%d", nativeName(g), file, line)
	}
	b.WriteString(nativeNames(createdBy(g)))
	return b.String()
}

func writeBlock(b *strings.Builder, blk string) {
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(blk)
}

// fullStack returns runtime.Stack's whole dump, growing its buffer until
// it fits.
func fullStack(all bool) string {
	for n := 64 << 10; ; n *= 2 {
		buf := make([]byte, n)
		if m := runtime.Stack(buf, all); m < n {
			return string(buf[:m])
		}
	}
}
