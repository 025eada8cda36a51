//go:build go1.24

package engine

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestObjRefCollected checks the cheap test objTable.get makes at every
// lookup (collected, which reads the weak pointer's handle) against
// weak.Pointer.Value, on a live object and on one the collector freed, and
// that on this Go the handle is read directly (not through the fallback).
func TestObjRefCollected(t *testing.T) {
	if !weakHandleReadable {
		t.Fatal("weak.Pointer's handle is not laid out as weakHandleWord expects: objTable.get falls back to Value, a third of a step")
	}
	x := new([64]byte)
	r := makeObjRef(unsafe.Pointer(&x[8]))
	if r.collected() || r.value() == nil {
		t.Fatalf("a live object: collected %v, value %p", r.collected(), r.value())
	}
	runtime.KeepAlive(x)
	g := makeObjRef(unsafe.Pointer(&weakProbeGlobal))
	runtime.GC()
	if g.collected() {
		t.Fatal("a global reads as collected")
	}
	runtime.GC()
	if !r.collected() {
		t.Fatal("an unreachable object still reads as live after two collections")
	}
	if r.value() != nil {
		t.Fatal("collected says freed, but Value still returns the object")
	}
}
