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

// TestObjRefPerAllocation checks that the objects of one allocation (the
// elements of a slice a run makes) share one weak pointer, made at the
// start of the allocation: a weak pointer per element made every run walk
// the runtime's list of its span's handles once per element, which tripled
// the cost of a run of parbench's lastzero-11. It also checks that value
// still gives each object's own address, and that a global gets a weak
// pointer of its own.
func TestObjRefPerAllocation(t *testing.T) {
	if !findObjectWorks {
		t.Fatal("runtime.findObject does not give the start of an allocation: every object gets a weak pointer of its own")
	}
	var c refCache
	x := make([]int32, 12)
	a := c.make(unsafe.Pointer(&x[0]))
	b := c.make(unsafe.Pointer(&x[7]))
	if a.w != b.w {
		t.Error("two elements of one slice have different weak pointers")
	}
	if a.value() != unsafe.Pointer(&x[0]) || b.value() != unsafe.Pointer(&x[7]) {
		t.Errorf("value: %p %p, want %p %p", a.value(), b.value(), &x[0], &x[7])
	}
	if r := makeObjRef(unsafe.Pointer(&x[7])); r.w != b.w || r.value() != unsafe.Pointer(&x[7]) {
		t.Error("makeObjRef does not use the start of the allocation")
	}
	g := c.make(unsafe.Pointer(&weakProbeGlobal))
	if g.value() != unsafe.Pointer(&weakProbeGlobal) || g.collected() {
		t.Errorf("a global: value %p, collected %v", g.value(), g.collected())
	}
	runtime.KeepAlive(x)
}
