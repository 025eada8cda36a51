package engine

import (
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// Step is one step of a run's trace: one visible operation and the local
// code after it.
type Step struct {
	N    int    // step number, from 1
	G    *G     // the goroutine; nil for a timer firing
	Kind OpKind // the operation
	// Obj is the address of its object: an address, not a pointer, so
	// that a run's trace does not keep the objects it touched reachable
	// (objects.go); two objects of a run may have had the same address.
	Obj  uintptr
	Case int // the select case taken, -1 if none
	// Group is, for a racy store's commit (OpRacyCommit), the address of
	// the group of racy statements it writes (RacyCommitGroup).
	Group uintptr
	// Cases are the channel operations of a send, receive or select (the
	// operation's own slice, not a copy): every channel a select could
	// take or waited on, and their capacities, which its dependence with
	// other steps depends on, not only the channel of the case taken.
	// For a close, the cases on other channels of the goroutines it
	// woke (Exec.CloseWakes).
	Cases []ChanCase
	Dflt  bool // a select with a default case
	// Arrived is set on the completion of a channel operation whose
	// goroutine had arrived (waited on its channels; OpArrive is the step
	// of its arrival): it leaves the queues of waiters it had joined.
	Arrived bool
	PC      uintptr // call site, when recorded
	// Recorded runs only:
	Enabled Keys          // the enabled choices
	VC      VC            // vector clock of the goroutine after the step
	Timer   string        // the timer's id, for a firing
	Early   time.Duration // a timer fired (or a sleeper woke) this long early
	// ReadsClock is set when the step read the virtual clock (time.Now,
	// Since, Until, arming a timer, ...: Exec.markClock): it is dependent
	// with the late wakes.
	ReadsClock bool
	// ClosedRecv is set on a receive (or a select's receive case) that
	// found its channel closed and empty: it received the zero value, a
	// read of the channel, which commutes with the other such receives.
	ClosedRecv bool
	Now        int64 // virtual time, ns since the epoch
}

// Trace returns the steps recorded so far.
//
//go:norace
func (e *Exec) Trace() []Step { return e.res.Trace }

// markClosedRecv marks g's running step, in a traced run, as a receive
// that found its channel closed (Step.ClosedRecv).
//
//go:norace
func (e *Exec) markClosedRecv(g *G) {
	if (e.cfg.Trace || e.cfg.Record) && g.stepIdx < len(e.res.Trace) && e.res.Trace[g.stepIdx].G == g {
		e.res.Trace[g.stepIdx].ClosedRecv = true
	}
}

// record appends the step g takes (op; g nil for a timer's firing) to the
// trace, when the run keeps one. op is a pointer, not a copy: an Op passed
// by value was copied twice through the stack at every step, the second
// time in 16-byte loads overlapping the first copy's stores, which the
// processor cannot forward (perf annotate: 14% of pick on conc's iter
// tests). record does not keep op.
//
//go:norace
func (e *Exec) record(g *G, op *Op, enabled []Choice, early time.Duration) {
	if !e.cfg.Trace && !e.cfg.Record {
		return
	}
	if e.cfg.TraceMax > 0 && len(e.res.Trace) >= e.cfg.TraceMax {
		if g != nil {
			g.stepIdx = len(e.res.Trace) // not in the trace
		}
		return
	}
	obj := op.Obj
	// The step is filled in place, field by field: a Step built on the
	// stack and appended was copied with 16-byte loads of fields just
	// stored one by one, which the processor cannot forward from its
	// store buffer (a stall at every traced step, perf annotate).
	n := len(e.res.Trace)
	e.res.Trace = append(growTo(e.res.Trace), Step{})
	s := &e.res.Trace[n]
	s.N, s.G, s.Kind, s.Case, s.PC, s.Early = e.steps, g, op.Kind, -1, op.PC, early
	if g != nil {
		switch op.Kind {
		case OpSend, OpRecv, OpSelect:
			s.Cases, s.Dflt, s.Arrived = op.Cases, op.Dflt, g.arrived
		case OpArrive:
			// Waiting synchronizes with nothing: no object, so the
			// vector clocks of recorded runs get no edge from it.
			s.Cases, obj = op.Cases, nil
		case OpRacyCommit:
			s.Group = uintptr(RacyCommitGroup(obj))
		case OpRacyRead, OpRacyWrite, OpRacyWriteEnd:
			s.Group = uintptr(op.Group) // a map access's group (MapIn), if any
		case OpClose:
			// The other cases of the goroutines the close wakes
			// (CloseWakes): not the operation's own cases.
			s.Cases = e.CloseWakes(obj)
		}
		if op.Kind == OpSelect {
			s.Case = g.sel
			if g.sel >= 0 && g.sel < len(op.Cases) {
				// The channel of the case taken; a default keeps Obj nil.
				obj = op.Cases[g.sel].Chan()
			}
		}
		g.stepIdx = n
	}
	if op.Kind == OpTimerFire && op.Timer != nil {
		s.Timer = op.Timer.ID()
		obj = unsafe.Pointer(op.Timer)
		if op.Timer.ch != nil {
			// A firing sends on the timer's channel: it is dependent with
			// the operations on that channel.
			obj = chanAddr(op.Timer.ch)
		}
	}
	s.Obj = uintptr(obj)
	if e.cfg.Record {
		bound := e.cfg.ClockBound
		if bound == 0 {
			bound = defaultClockBound
		}
		if e.vcBytes < bound {
			s.VC = e.clock(g, *op, obj)
			e.vcBytes += uint64(len(s.VC)) * uint64(unsafe.Sizeof(VCEntry{}))
		} else if e.res.ClocksTo == 0 {
			e.res.ClocksTo = n
		}
		s.Now = int64(e.now)
		s.Enabled = e.snapshot(enabled)
	}
	if e.cfg.Record {
		e.boundEnabled()
	}
}

// defaultClockBound bounds the vector clocks a recorded run computes for its steps:
// each step makes a new clock with an entry per goroutine it is ordered
// after, so 10,000 goroutines ordered through one channel (pond's
// TestPoolWithContextCanceled) took 1.8 GiB in 72,000 steps, and the replay
// of its report ended at the memory bound before the bug. Nothing but tests
// reads the clocks of a trace; the steps after the bound have none
// (Result.ClocksTo). Config.ClockBound changes it.
const defaultClockBound = 256 << 20

// clock advances the vector clocks of a recorded run for a step of g on obj
// and returns g's clock after it. Operations on the same object are ordered
// (the dependence-based happens-before of heddle.md §4), and a goroutine
// starts with its creator's clock. Clocks are never changed in place (Tick
// and Join make new ones), so steps, goroutines and objects share them.
//
//go:norace
func (e *Exec) clock(g *G, op Op, obj unsafe.Pointer) VC {
	if g == nil {
		// A timer firing: ordered after its creator's step that made it,
		// and with the other operations on its channel.
		if op.Timer == nil || op.Timer.creator == nil {
			return nil // a late wake's phantom timer (latewake.go)
		}
		vc := op.Timer.creator.vc
		key := unsafe.Pointer(op.Timer)
		if op.Timer.ch != nil {
			key = chanAddr(op.Timer.ch)
		}
		o := e.objs.obtain(key)
		vc.Join(o.vc)
		o.vc = vc
		return vc
	}
	if g.vc == nil && g.Parent != nil {
		g.vc = g.Parent.vc
	}
	g.vc.Tick(g.Index)
	if obj != nil {
		o := e.objs.obtain(obj)
		g.vc.Join(o.vc)
		o.vc = g.vc
	}
	return g.vc
}

// userPC returns the call site of the innermost caller outside heddle's
// runtime: the rewritten user code that made the operation.
//
//go:norace
func userPC() uintptr {
	var pcs [24]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == "runtime.goexit" {
			return 0 // only heddle's frames: no call site in the program
		}
		if !isRuntimeFunc(f.Function) && !isGoMachinery(f.Function) {
			return f.PC + 1 // a return address, as runtime.CallersFrames expects
		}
		if !more {
			return 0
		}
	}
}

//go:norace
func isRuntimeFunc(fn string) bool {
	// explore/require calls a test's function (for testify's traces); a
	// step of the group's root goroutine has only heddle's frames and
	// this one, which is heddle's too.
	for _, p := range [...]string{"heddle.dev/rt.", "heddle.dev/internal/engine.", "heddle.dev/internal/explore.", "heddle.dev/internal/explore/require."} {
		if len(fn) >= len(p) && fn[:len(p)] == p {
			return true
		}
	}
	return false
}

// isGoMachinery reports whether fn is Go's runtime or package testing,
// which call an operation of the program only as a deferred call run by a
// panic or runtime.Goexit (a t.Fatal): the position of such a step is the
// program's line that panicked or failed (ctx_test.go:30), not panic.go.
//
//go:norace
func isGoMachinery(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "testing.")
}

// Position is a source position.
type Position struct {
	Func string
	File string
	Line int
}

// PositionOf resolves a call-site program counter.
//
//go:norace
func PositionOf(pc uintptr) Position {
	if pc == 0 {
		return Position{}
	}
	frames := runtime.CallersFrames([]uintptr{pc})
	f, _ := frames.Next()
	return Position{Func: SourceFunc(f.Function, f.File), File: f.File, Line: f.Line}
}

// SourceFunc returns the name the source gives the function fn, defined in
// file. The rewriter moves the body of a test function TestX into a
// function literal passed to rt.Explore, so the compiler names the body
// pkg.TestX.func1 and the body's N-th function literal pkg.TestX.func1.N;
// in the source they are pkg.TestX and pkg.TestX.funcN, and a report
// names them so.
//
//go:norace
func SourceFunc(fn, file string) string {
	if !strings.HasSuffix(file, "_test.go") {
		return fn
	}
	slash := strings.LastIndexByte(fn, '/') + 1
	dot := strings.IndexByte(fn[slash:], '.')
	if dot < 0 {
		return fn
	}
	name := fn[slash+dot+1:] // TestX.func1...
	test, rest, ok := strings.Cut(name, ".func1")
	if !ok || !isTestName(test) || strings.Contains(test, ".") {
		return fn
	}
	prefix := fn[:slash+dot+1] + test
	switch {
	case rest == "":
		return prefix
	case rest[0] == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9':
		return prefix + ".func" + rest[1:] // .func1.2.3 -> .func2.3
	case rest[0] == '.':
		return prefix + rest // .func1.gowrap1 -> .gowrap1
	}
	return fn // TestX.func12: a literal of TestX itself, not its body
}

// isTestName reports whether name is one go test runs as a test: Test
// followed by nothing or by a character that is not a lower-case letter.
//
//go:norace
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && name != "TestMain" && (rest == "" || rest[0] < 'a' || rest[0] > 'z')
}

// VC is a vector clock: for each goroutine (by creation index) whose steps
// happened before, how many; the others count 0. It is sparse, sorted by
// goroutine: in a run of thousands of goroutines a step is ordered after
// few of them, and a dense clock per recorded step cost O(goroutines) in
// time and memory (Cockroach3710 as shipped, 40,000 goroutines, ran out of
// memory replaying its schedule for the report).
type VC []VCEntry

// VCEntry is one goroutine's count in a VC.
type VCEntry struct {
	G int    // the goroutine's creation index
	N uint32 // its steps
}

// Get returns goroutine i's count.
//
//go:norace
func (v VC) Get(i int) uint32 {
	lo, hi := 0, len(v)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if v[m].G < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(v) && v[lo].G == i {
		return v[lo].N
	}
	return 0
}

// Join sets v to the pointwise maximum of v and w, in a new clock: the
// old one may be shared.
//
//go:norace
func (v *VC) Join(w VC) {
	a := *v
	if len(w) == 0 || w.Leq(a) {
		return
	}
	out := make(VC, 0, len(a)+len(w))
	i, j := 0, 0
	for i < len(a) || j < len(w) {
		switch {
		case j == len(w) || (i < len(a) && a[i].G < w[j].G):
			out = append(out, a[i])
			i++
		case i == len(a) || w[j].G < a[i].G:
			out = append(out, w[j])
			j++
		default:
			x := a[i]
			if w[j].N > x.N {
				x.N = w[j].N
			}
			out = append(out, x)
			i++
			j++
		}
	}
	*v = out
}

// Tick increments component i, in a new clock.
//
//go:norace
func (v *VC) Tick(i int) {
	a := *v
	out := make(VC, 0, len(a)+1)
	done := false
	for _, x := range a {
		if !done && x.G >= i {
			if x.G == i {
				x.N++
			} else {
				out = append(out, VCEntry{G: i, N: 1})
			}
			done = true
		}
		out = append(out, x)
	}
	if !done {
		out = append(out, VCEntry{G: i, N: 1})
	}
	*v = out
}

// Leq reports whether v happens before or equals w.
//
//go:norace
func (v VC) Leq(w VC) bool {
	j := 0
	for _, x := range v {
		for j < len(w) && w[j].G < x.G {
			j++
		}
		if x.N == 0 {
			continue
		}
		if j == len(w) || w[j].G != x.G || x.N > w[j].N {
			return false
		}
	}
	return true
}

// Copy returns a copy of v.
//
//go:norace
func (v VC) Copy() VC {
	w := make(VC, len(v))
	//lint:ignore S1001 copy's runtime code reports its accesses to the race detector.
	for i, x := range v {
		w[i] = x
	}
	return w
}
