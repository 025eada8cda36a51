package strategy

import (
	"testing"
	"unsafe"

	"heddle.dev/internal/engine"
)

// TestPOSSimpleAccesses checks POS's shortcut (simpleAcc, touches)
// against dependent on the events it stands for: for every kind of
// pending operation it classifies and every step of one goroutine that
// does not write virtual time, on the same object or another, the
// shortcut says what dependent says.
func TestPOSSimpleAccesses(t *testing.T) {
	var x, y int
	objs := []uintptr{uintptr(unsafe.Pointer(&x)), uintptr(unsafe.Pointer(&y))}
	g, h := new(engine.G), new(engine.G)
	n := 0
	for k := range 256 {
		a := simpleAcc[k]
		if a == 0 {
			continue
		}
		n++
		pend := &event{}
		pend.addSide(g, engine.OpKind(k), objs[0], 0, -1, nil, false, false)
		for j := range int(engine.OpTestDone) + 1 {
			for _, o := range objs {
				step := &event{}
				step.addSide(h, engine.OpKind(j), o, 0, -1, []engine.ChanCase(nil), false, false)
				if racesWithAll(step) {
					continue
				}
				want := dependent(step, pend, false)
				got := a != posWorld && touches(step, objs[0], a == posWrite)
				if got != want {
					t.Errorf("pending %v, step %v on the same object %v: shortcut says %v, dependent %v", engine.OpKind(k), engine.OpKind(j), o == objs[0], got, want)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d kinds of operation take the shortcut", n)
	}
}

// TestSimpleAccessesAsAppendAccesses: the accesses takeSimple builds for
// a simple step (appendSimple, from two tables) are those appendAccesses
// computes, for every kind simpleAcc classifies and two objects; and a
// simple step never writes virtual time (resetRacing skips racesWithAll
// for it).
func TestSimpleAccessesAsAppendAccesses(t *testing.T) {
	var x, y int
	n := 0
	for k := range 256 {
		if simpleAcc[k] == 0 {
			continue
		}
		n++
		for _, o := range []uintptr{uintptr(unsafe.Pointer(&x)), uintptr(unsafe.Pointer(&y))} {
			want := appendAccesses(nil, engine.OpKind(k), o, -1, nil, 0, false)
			got := appendSimple(nil, engine.OpKind(k), o)
			if len(got) != len(want) {
				t.Fatalf("%v: %v, want %v", engine.OpKind(k), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%v: access %d is %+v, want %+v", engine.OpKind(k), i, got[i], want[i])
				}
			}
			if racesWithAll(&event{acc: got}) {
				t.Errorf("%v: a simple step writes virtual time", engine.OpKind(k))
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d simple kinds", n)
	}
}
