//go:build !go1.24

package engine

import "unsafe"

// objRef is a shadow object's reference to its object. Without weak
// pointers (before Go 1.24) it is a pointer: the table keeps the run's
// objects reachable, so an address is never reused within a run.
type objRef struct{ p unsafe.Pointer }

//go:norace
func makeObjRef(p unsafe.Pointer) objRef { return objRef{p} }

// refCache has nothing to keep: a reference is the pointer.
type refCache struct{}

//go:norace
func (*refCache) make(p unsafe.Pointer) objRef { return objRef{p} }

//go:norace
func (r objRef) value() unsafe.Pointer { return r.p }

// collected reports whether the collector has freed the object: never,
// since the reference keeps it reachable.
//
//go:norace
func (r objRef) collected() bool { return false }

// heapObject reports whether p points into the heap: before Go 1.24 (no
// synctest bubbles), it says yes.
//
//go:norace
func heapObject(unsafe.Pointer) bool { return true }
