package engine

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

//go:norace
func stackOf() string {
	buf := make([]byte, 64<<10)
	return string(buf[:runtime.Stack(buf, false)])
}

// Computing reports whether the goroutine that holds heddle's processor is
// computing (running, runnable or preempted in the runtime's terms) rather
// than waiting (on a channel, a lock, I/O, a system call, a sleep) in code
// heddle does not control. The watchdog asks it when a run has taken no
// step for long: a long computation on a loaded machine is slow, not
// blocked. It may be called from any goroutine; when the goroutine cannot
// be found in the runtime's stack dump, it reports false.
//
//go:norace
func (e *Exec) Computing() bool {
	g := e.cur
	if g == nil || g.state == gDone {
		return false
	}
	buf := allStacks()
	state, ok := goroutineState(string(buf), e, g)
	if !ok {
		return false
	}
	switch {
	case state == "running", state == "runnable", state == "preempted", strings.HasPrefix(state, "GC"):
		return true
	}
	return false
}

// goroutineState finds in dump (runtime.Stack's, of all goroutines) the
// goroutine running g, by the arguments of its (*Exec).goroutine frame, and
// returns its state: "running", "chan receive", "select", "IO wait", ...
//
//go:norace
func goroutineState(dump string, e *Exec, g *G) (string, bool) {
	frame := fmt.Sprintf("(*Exec).goroutine(%#x", uintptr(unsafe.Pointer(e)))
	arg := fmt.Sprintf(", %#x", uintptr(unsafe.Pointer(g)))
	for _, block := range strings.Split(dump, "\n\n") {
		i := strings.Index(block, frame)
		if i < 0 {
			continue
		}
		rest := strings.TrimPrefix(block[i+len(frame):], "?")
		if !strings.HasPrefix(rest, arg) {
			continue
		}
		// "goroutine 17 [chan receive, 2 minutes]:"
		open, end := strings.IndexByte(block, '['), strings.IndexByte(block, ']')
		if open < 0 || end < open {
			return "", false
		}
		state := block[open+1 : end]
		if c := strings.IndexByte(state, ','); c >= 0 {
			state = state[:c]
		}
		return state, true
	}
	return "", false
}

// allStacks is the runtime's dump of every goroutine's stack, up to 64 MiB.
//
//go:norace
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
