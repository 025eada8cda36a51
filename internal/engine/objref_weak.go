//go:build go1.24

package engine

import (
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
