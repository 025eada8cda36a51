package engine

import (
	"math"
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// A *time.Timer or *time.Ticker that a run makes (NewTimer, AfterFunc,
// NewTicker) is not a timer of Go's runtime: its Stop and Reset work
// through the run that made it (ownedTimer). A program may keep one past
// its run, in a sync.Pool or a package variable, and Stop or Reset it in a
// later run of the same process: go-deadlock pools its lock entries, each
// with an AfterFunc timer that the next Lock Resets, and Go's own Reset
// panicked on it ("time: Reset called on uninitialized Timer"), which no
// native run does. The later run adopts such a timer: it becomes a
// stopped timer of that run, with the same channel or function, which
// Reset arms on the run's virtual clock as it arms one of its own.
//
// A timer of the runtime has its init flag set; heddle's have not. A
// Timer or Ticker whose flag is clear and whose channel is set was made by
// an earlier run (NewTimer, NewTicker: natively, Stop and Reset on such a
// hand-made timer panic, and they still would without a channel). An
// AfterFunc timer has no channel: its function is kept beside it, and
// such timers are known by address (rememberAfterFunc, afterfunc_weak.go).

// afterFuncTimer is the allocation behind the *time.Timer of a run's
// AfterFunc: the timer first, so that the *time.Timer points at it.
type afterFuncTimer struct {
	tm time.Timer
	f  func()
}

// initOffsets are the offsets of the init flags of time.Timer and
// time.Ticker (initTimer, initTicker), or -1 if this Go has none.
var initOffsets = sync.OnceValues(func() (timer, ticker uintptr) {
	off := func(t reflect.Type, name string) uintptr {
		if f, ok := t.FieldByName(name); ok && f.Type.Kind() == reflect.Bool {
			return f.Offset
		}
		return ^uintptr(0)
	}
	return off(reflect.TypeOf(time.Timer{}), "initTimer"), off(reflect.TypeOf(time.Ticker{}), "initTicker")
})

// heddleMade reports whether the Timer or Ticker at p, whose init flag is
// at off, was not made by Go's runtime.
//
//go:norace
func heddleMade(p unsafe.Pointer, off uintptr) bool {
	return off != ^uintptr(0) && !*(*bool)(unsafe.Add(p, off))
}

// adopt makes the timer behind p (a *time.Timer or *time.Ticker of an
// earlier run) a stopped timer of this run with channel ch or function f,
// and a period if it is a ticker.
//
//go:norace
func (e *Exec) adopt(p unsafe.Pointer, ch <-chan time.Time, f func(), ticker bool) {
	t := e.newTimer(0)
	e.stopTimer(t)
	if ch != nil {
		t.ch = *(*chan time.Time)(unsafe.Pointer(&ch))
		e.registerTimerChan(t.ch)
	}
	t.goFn = f
	if ticker {
		t.period = time.Hour // set again by Reset, the only way to start it
	}
	e.own(p, t)
}

// adoptTimer adopts tm if an earlier run made it, and reports whether it
// did.
//
//go:norace
func (e *Exec) adoptTimer(tm *time.Timer) bool {
	off, _ := initOffsets()
	p := unsafe.Pointer(tm)
	if tm == nil || !heddleMade(p, off) {
		return false
	}
	if tm.C != nil {
		e.adopt(p, tm.C, nil, false)
		return true
	}
	if ft := knownAfterFunc(p); ft != nil {
		e.adopt(p, nil, ft.f, false)
		return true
	}
	return false
}

// adoptTicker adopts tk if an earlier run made it, and reports whether it
// did.
//
//go:norace
func (e *Exec) adoptTicker(tk *time.Ticker) bool {
	_, off := initOffsets()
	p := unsafe.Pointer(tk)
	if tk == nil || tk.C == nil || !heddleMade(p, off) {
		return false
	}
	e.adopt(p, tk.C, nil, true)
	return true
}

// pendingAfterFuncs counts the AfterFunc timers still armed at the end of
// the run. Heddle's timers end with their run; the program's state may
// still hold such a timer as armed (a cache's next expiration check, in
// muesli/cache2go's package-level tables), and natively it fires after
// the run, during the next execution of the test (go test -count=2): a
// later run of the same process starts without it (explore's
// lefttimers.go tells such a run's failure from a bug).
//
//go:norace
func (e *Exec) pendingAfterFuncs() int {
	n := 0
	for _, t := range e.timers {
		if t.active && t.goFn != nil && t.when != math.MaxInt64 {
			n++
		}
	}
	return n
}
