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
//
// The weak pointer is to the start of the heap allocation that holds the
// object, with the object's offset in it: the elements of an array or the
// fields of a struct share one weak handle. The runtime keeps a span's
// weak handles in a list sorted by address, which each new handle walks:
// a handle per element (an atomic per slot of a slice made by every run)
// made that walk most of a run's time, thousands of handles on one span
// between two collections. An allocation is freed whole, so its start's
// handle says what each of its objects' would.
type objRef struct {
	w   weak.Pointer[byte]
	off uintptr
}

//go:norace
func makeObjRef(p unsafe.Pointer) objRef {
	if base := allocBase(p); base != nil {
		return objRef{weak.Make((*byte)(base)), uintptr(p) - uintptr(base)}
	}
	return objRef{w: weak.Make((*byte)(p))}
}

// refCache keeps the weak pointers last made for the starts of a few
// allocations, so that the objects of one allocation (a slice's elements,
// a struct's fields) share a weak pointer without the runtime's walk of
// its span's handles for each: weak.Make finds an allocation's handle in
// that list too, but the walk is as long as the list.
type refCache struct {
	base [16]uintptr
	w    [16]weak.Pointer[byte]
}

// make returns the reference of a shadow object for the object at p.
//
//go:norace
func (c *refCache) make(p unsafe.Pointer) objRef {
	base := allocBase(p)
	if base == nil {
		return objRef{w: weak.Make((*byte)(p))}
	}
	b := uintptr(base)
	i := (b >> 4) & uintptr(len(c.base)-1)
	// The cached pointer is this allocation's while the collector has not
	// freed it: the address can only hold another allocation after that.
	if c.base[i] != b || (objRef{w: c.w[i]}).collected() {
		c.base[i], c.w[i] = b, weak.Make((*byte)(base))
	}
	return objRef{c.w[i], uintptr(p) - b}
}

// value is the object, or nil once the collector has freed it.
//
//go:norace
func (r objRef) value() unsafe.Pointer {
	b := unsafe.Pointer(r.w.Value())
	if b == nil {
		return nil
	}
	return unsafe.Add(b, r.off)
}

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

// findObject is the runtime's: the start of the heap allocation p points
// into (0 if p is not in the heap). Its signature is kept for the programs
// that link to it (runtime/mbitmap.go, go.dev/issue/67401).
//
//go:linkname findObject runtime.findObject
//go:noescape
func findObject(p, refBase, refOff uintptr) (base uintptr, s unsafe.Pointer, objIndex uintptr)

// allocBase returns the start of the heap allocation p points into, or nil
// if p is not in the heap or findObject does not answer as expected.
//
//go:norace
func allocBase(p unsafe.Pointer) unsafe.Pointer {
	if !findObjectWorks {
		return nil
	}
	base, _, _ := findObject(uintptr(p), 0, 0)
	if base == 0 || base > uintptr(p) {
		return nil
	}
	return unsafe.Add(p, -int(uintptr(p)-base)) // derived from p: a pointer the collector knows
}

// findObjectWorks is whether findObject gives the start of a heap
// allocation, and nothing for a global, as checked once.
var findObjectWorks = func() bool {
	findProbe = new([64]byte) // on the heap: a global holds it
	x := findProbe
	b, _, _ := findObject(uintptr(unsafe.Pointer(&x[40])), 0, 0)
	g, _, _ := findObject(uintptr(unsafe.Pointer(&weakProbeGlobal)), 0, 0)
	findProbe = nil
	return b == uintptr(unsafe.Pointer(x)) && g == 0
}()

var findProbe *[64]byte

// heapObject reports whether p points into the heap (a package variable
// does not), as the runtime's bubble association needs (spanOfHeap in
// getOrSetBubbleSpecial). If findObject does not answer as expected, it
// says yes.
//
//go:norace
func heapObject(p unsafe.Pointer) bool {
	return !findObjectWorks || allocBase(p) != nil
}
