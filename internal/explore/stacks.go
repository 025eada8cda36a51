package explore

import (
	"fmt"
	"reflect"
	"runtime"
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
	var b strings.Builder
	for _, blk := range strings.Split(dump, "\n\n") {
		blk = strings.TrimRight(blk, "\n")
		if blk == "" {
			continue
		}
		if !strings.Contains(blk, "heddle.dev/") {
			writeBlock(&b, blk)
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
		writeBlock(&b, trimmed)
	}
	if x := engine.Current(); x != nil && all {
		fns, goPCs := x.Unstarted()
		for i, fn := range fns {
			writeBlock(&b, unstartedBlock(unstartedID+int64(i), fn, goPCs[i]))
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

// unstartedID is the goroutine id of the first goroutine of the run that
// has not started yet, in a dump.
const unstartedID = 1 << 40

// unstartedBlock is the dump of a goroutine that has not started: its
// function, and the go statement that created it if known.
func unstartedBlock(id int64, fn, goPC uintptr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d [runnable]:\n", id)
	if f := runtime.FuncForPC(fn); f != nil {
		file, line := f.FileLine(f.Entry())
		fmt.Fprintf(&b, "%s()\n\t%s:%d +0x0", f.Name(), file, line)
	}
	if f := runtime.FuncForPC(goPC); goPC != 0 && f != nil {
		file, line := f.FileLine(goPC - 1) // goPC is the return address of the go statement's call
		fmt.Fprintf(&b, "\ncreated by %s\n\t%s:%d +0x0", f.Name(), file, line)
	}
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
