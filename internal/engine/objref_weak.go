//go:build go1.24

package engine

import (
	"runtime"
	"sync/atomic"
	"unsafe"
	"weak"
)

// objRef is a shadow object's reference to its object: a weak pointer, so
// that the object table does not keep the program's objects reachable
// (objects.go).
type objRef struct{ w weak.Pointer[byte] }

//go:norace
func makeObjRef(p unsafe.Pointer) objRef { return objRef{weak.Make((*byte)(p))} }

// value is the object, or nil once the collector has freed it.
//
//go:norace
func (r objRef) value() unsafe.Pointer { return unsafe.Pointer(r.w.Value()) }

// collected reports whether the collector has freed the object. It is
// what objTable.get asks at every lookup, and Value costs a third of a
// step there (it makes sure the object's span is swept and shades the
// object while the collector marks), so it reads the weak pointer's
// handle instead: the word the runtime clears when it frees the object,
// which it does before the memory can be allocated again. A handle not
// cleared yet may be an object that died and whose span is not swept, but
// then nothing was allocated at its address since, so the object the
// caller holds at that address is still this one. Where the handle is not
// laid out as weakHandleWord expects (another Go), it falls back to Value.
//
//go:norace
func (r objRef) collected() bool {
	if !weakHandleReadable {
		return r.w.Value() == nil
	}
	return weakHandleWord(&r.w) == 0
}

// weakHandleWord returns the word of w's handle: the address w was made
// from, or 0 once the object was freed (runtime/mheap.go,
// getOrAddWeakHandle). A weak.Pointer is one pointer to its handle.
//
//go:norace
func weakHandleWord(w *weak.Pointer[byte]) uintptr {
	h := *(*unsafe.Pointer)(unsafe.Pointer(w))
	if h == nil {
		return 0
	}
	return atomic.LoadUintptr((*uintptr)(h))
}

// weakHandleReadable is whether weakHandleWord reads what it expects, as
// checked once on an object of the heap and on a global.
var weakHandleReadable = func() bool {
	if unsafe.Sizeof(weak.Pointer[byte]{}) != unsafe.Sizeof(unsafe.Pointer(nil)) {
		return false
	}
	x := new([64]byte)
	w := weak.Make(&x[8])
	g := weak.Make(&weakProbeGlobal)
	ok := weakHandleWord(&w) == uintptr(unsafe.Pointer(&x[8])) &&
		weakHandleWord(&g) == uintptr(unsafe.Pointer(&weakProbeGlobal))
	runtime.KeepAlive(x)
	return ok
}()

var weakProbeGlobal byte
