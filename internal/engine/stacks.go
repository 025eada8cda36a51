package engine

import (
	"reflect"
	"runtime"
	"strconv"
	"sync/atomic"
)

// nextGoid numbers the goroutines of every run in the process, as the
// runtime numbers goroutines: a run's goroutines run on pooled real
// goroutines, whose ids come back run after run, and a leak checker that
// remembers the ids alive at some point (goleak.IgnoreCurrent) would take
// a goroutine started later for one of those. The numbers start far above
// any real goroutine's id, so that none is mistaken for a goroutine
// outside the runs in a dump.
var nextGoid atomic.Int64

func init() { nextGoid.Store(1 << 32) }

// realGoid is the calling goroutine's id, from its stack dump's header.
//
//go:norace
func realGoid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	b = b[len(prefix):]
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	id, _ := strconv.ParseInt(string(b[:n]), 10, 64)
	return id
}

// DumpG is a goroutine of the run as a stack dump shows it to the program.
type DumpG struct {
	// ID is its goroutine id, never reused in the process.
	ID int64
	// Creator is the ID of the goroutine whose go statement created it, 0
	// for the run's first goroutine.
	Creator int64
	// Fn is its function (the literal the go statement became).
	Fn uintptr
	// GoPC is the return address of its go statement's call, when the run
	// records positions (0 otherwise).
	GoPC uintptr
	// Name is the native name of Fn (Exec.GoNamed), or "", relative to
	// Fn's package when it starts with ".".
	Name string
	// Target, if not 0, is the function Fn only calls: natively the
	// goroutine's function, Fn's frame not being there.
	Target uintptr
}

//go:norace
func (g *G) dump() DumpG {
	d := DumpG{ID: g.goid, Fn: g.fnPC, GoPC: g.GoPC, Name: g.goName, Target: g.goTarget}
	if g.Parent != nil {
		d.Creator = g.Parent.goid
	}
	return d
}

// Goroutines returns the run's goroutines that are alive, as a stack
// dump shows them: those that started, by the id of the real goroutine
// running each, and those created that have not started yet. Natively a
// goroutine not started yet already exists, runnable; here it has no
// real goroutine yet, so a dump of every goroutine's stack
// (runtime.Stack) must show it from this.
//
//go:norace
func (e *Exec) Goroutines() (started map[int64]DumpG, unstarted []DumpG) {
	started = make(map[int64]DumpG)
	for _, g := range e.gs {
		if g.state == gDone {
			continue
		}
		if g.fn != nil {
			// Not started: it has no real goroutine yet, or one that
			// waits for its first turn in heddle's frames only.
			unstarted = append(unstarted, g.dump())
			continue
		}
		if g.w != nil && g.w.realID != 0 {
			started[g.w.realID] = g.dump()
		}
	}
	return started, unstarted
}

// FuncPC is f's code address (0 for nil).
//
//go:norace
func FuncPC(f func()) uintptr { return funcPC(f) }

// funcPC is f's code address (0 for nil).
//
//go:norace
func funcPC(f func()) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}

// CurrentG is the calling goroutine of the run as a stack dump shows it.
//
//go:norace
func (e *Exec) CurrentG() (DumpG, bool) {
	if e.cur == nil {
		return DumpG{}, false
	}
	return e.cur.dump(), true
}
