package rt

import (
	"reflect"
	"runtime"
	"time"

	"heddle.dev/internal/engine"
)

// SetFinalizer replaces runtime.SetFinalizer.
//
// Natively a finalizer runs in a goroutine of its own some time after a
// garbage collection found its object unreachable, if ever. During an
// exploration that timing would make runs differ under one schedule (a
// finalizer that stops a goroutine, such as go-cache's janitor, ran in
// some runs and not in others, and from a goroutine heddle does not
// control), so a finalizer set by a run's controlled goroutine does not
// run natively. Instead, at each runtime.GC() the run calls, and when the
// test (with its cleanups) returns, heddle collects garbage and runs, in
// one controlled goroutine started then and in the order they were set,
// the finalizers of the run's objects that are then unreachable: the run
// is that of a program whose collector ran at its runtime.GC() calls and
// right after the test, as it eventually does in a process that goes on
// (collections the heap's growth starts are not modelled). The
// objects still reachable then keep their finalizer unrun, as in a
// program that exits first. Before Go 1.24 (no weak pointers, which tell
// synchronously what the collection freed) a run's finalizers never run.
//
// Its state is the run's, written by the controlled goroutine that runs:
// the race detector must not see heddle's bookkeeping as the program's.
//
//go:norace
func SetFinalizer(obj any, finalizer any) {
	runtime.SetFinalizer(obj, finalizer) // Go's own checks and panics
	x := engine.Current()
	if x == nil || obj == nil {
		return
	}
	fs := runFinalizers(x)
	p := reflect.ValueOf(obj).UnsafePointer()
	if finalizer == nil || reflect.ValueOf(finalizer).IsNil() {
		delete(fs.byObj, uintptr(p))
		return
	}
	runtime.SetFinalizer(obj, nil)
	gone := weakGone(p)
	if gone == nil {
		return // no weak pointers: the finalizer never runs in a run
	}
	f := &finalizer1{fn: reflect.ValueOf(finalizer), gone: gone, delivered: make(chan struct{}), pc: x.CallerPC(), addr: uintptr(p)}
	runtime.SetFinalizer(obj, func(o any) {
		// The collector found obj unreachable: hand it over. A run
		// that has ended no longer waits for it.
		f.obj = o
		close(f.delivered)
	})
	fs.byObj[uintptr(p)] = f
	fs.order = append(fs.order, f)
}

// finalizer1 is a finalizer set during a run.
type finalizer1 struct {
	fn        reflect.Value
	gone      func() bool // the object was found unreachable
	delivered chan struct{}
	obj       any // the object, once delivered
	pc        uintptr
	addr      uintptr // the object's address, its key in byObj
}

// finalizers are those set during one run.
type finalizers struct {
	x     *engine.Exec
	byObj map[uintptr]*finalizer1 // by the object's address (not a pointer: it must not keep the object)
	order []*finalizer1
}

// curFinalizers is the run's: only one run is in progress at a time, and
// its controlled goroutines run one at a time.
var curFinalizers *finalizers

//go:norace
func runFinalizers(x *engine.Exec) *finalizers {
	if fs := curFinalizers; fs != nil && fs.x == x {
		return fs
	}
	fs := &finalizers{x: x, byObj: map[uintptr]*finalizer1{}}
	curFinalizers = fs
	x.AtMainReturn(fs.mainReturned)
	return fs
}

// finalizerWait bounds the real time heddle waits for Go's finalizer
// goroutine to hand over an object it found unreachable; it is busy only
// if a native finalizer blocks.
const finalizerWait = 2 * time.Second

// mainReturned runs on g0 when the test has returned.
//
//go:norace
func (fs *finalizers) mainReturned() {
	if curFinalizers == fs {
		curFinalizers = nil
	}
	runtime.GC()
	fs.start(fs.takeReady())
}

// collected runs when a goroutine of the run called runtime.GC(), after
// the collection: the finalizers of the run's objects it found
// unreachable run in a controlled goroutine started now, as Go's
// finalizer goroutine runs them after a collection, concurrently with the
// program (conform TestFinalizerVsTest: before, they waited for the test
// to return, and a test that collected and then waited for its finalizer
// never saw it run).
//
//go:norace
func (fs *finalizers) collected() {
	fs.start(fs.takeReady())
}

// takeReady returns the finalizers, in the order they were set, whose
// objects the last collection found unreachable, and forgets them.
//
//go:norace
func (fs *finalizers) takeReady() []*finalizer1 {
	set := map[*finalizer1]bool{} // not cleared since
	for _, f := range fs.byObj {
		set[f] = true
	}
	var ready []*finalizer1
	var kept []*finalizer1
	for _, f := range fs.order {
		if !set[f] {
			continue
		}
		if !f.gone() {
			kept = append(kept, f)
			continue
		}
		t := time.NewTimer(finalizerWait)
		select {
		case <-f.delivered:
			ready = append(ready, f)
			if fs.byObj[f.addr] == f {
				delete(fs.byObj, f.addr)
			}
		case <-t.C:
			kept = append(kept, f)
		}
		t.Stop()
	}
	fs.order = kept
	return ready
}

// start runs the finalizers ready in a new controlled goroutine.
//
//go:norace
func (fs *finalizers) start(ready []*finalizer1) {
	if len(ready) == 0 {
		return
	}
	fs.x.GoFrom(ready[0].pc, func() {
		for _, f := range ready {
			f.fn.Call([]reflect.Value{reflect.ValueOf(f.obj)})
		}
	})
}
