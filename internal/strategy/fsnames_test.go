package strategy

import (
	"testing"
	"unsafe"

	"heddle.dev/internal/engine"
)

// TestFSStepsShareTreeNames: file-system steps on the objects of two
// different names are dependent when one of them changes the tree's
// names (engine.OpFSWrite), as a listing of a directory and a create
// under it are; two lookups or listings (OpFSRead) are not; and a file
// step is ordered with a plain access of its own object only.
func TestFSStepsShareTreeNames(t *testing.T) {
	var x, y int
	a, b := uintptr(unsafe.Pointer(&x)), uintptr(unsafe.Pointer(&y))
	g, h := new(engine.G), new(engine.G)
	ev := func(gr *engine.G, k engine.OpKind, obj uintptr) *event {
		e := &event{}
		e.addSide(gr, k, obj, 0, -1, nil, false, false)
		return e
	}
	for _, c := range []struct {
		k1, k2 engine.OpKind
		same   bool
		want   bool
	}{
		{engine.OpFSRead, engine.OpFSRead, false, false},
		{engine.OpFSRead, engine.OpFSRead, true, true},
		{engine.OpFSRead, engine.OpFSWrite, false, true},
		{engine.OpFSWrite, engine.OpFSRead, false, true},
		{engine.OpFSWrite, engine.OpFSWrite, false, true},
		{engine.OpFSWrite, engine.OpAtomicWrite, false, false},
		{engine.OpFSRead, engine.OpAtomicWrite, true, true},
		{engine.OpFSWrite, engine.OpAtomicLoad, true, true},
	} {
		o2 := b
		if c.same {
			o2 = a
		}
		if got := dependent(ev(g, c.k1, a), ev(h, c.k2, o2), false); got != c.want {
			t.Errorf("%v and %v, same object %v: dependent %v, want %v", c.k1, c.k2, c.same, got, c.want)
		}
	}
	// POS's filter of the pending operations that may race with a step:
	// a file-system operation on another name may, through the tree's
	// names.
	s := &POS{}
	s.objs = stepObjects(s.objs[:0], ev(g, engine.OpFSWrite, a))
	if !s.mayShare(engine.Op{Kind: engine.OpFSRead, Obj: unsafe.Pointer(&y)}) {
		t.Error("POS: a pending listing does not share the tree's names with a create of another name")
	}
}
