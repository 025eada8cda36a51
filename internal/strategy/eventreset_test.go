package strategy

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"heddle.dev/internal/engine"
)

// TestEventReset checks that reset leaves an event as a new one, but for
// the room of its slices: every field is zero, the slices are empty, and
// the entries they held no longer point anywhere (a reused event must not
// keep a run's goroutines and objects alive). A field added to event and
// forgotten by reset fails it.
func TestEventReset(t *testing.T) {
	var x, y int
	g := &engine.G{ID: "g0.1"}
	e := new(event)
	e.key, e.n, e.pc, e.timer = "g0.1", 7, 99, "t1"
	e.proc, e.idx, e.vc, e.lvc = 3, 4, []int{1}, []int{2}
	e.addSide(g, engine.OpAtomicWrite, uintptr(unsafe.Pointer(&x)), 0, -1, nil, false, false)
	e.addSide(g, engine.OpLock, uintptr(unsafe.Pointer(&y)), 0, -1, nil, false, false) // past the inline room
	e.reset()
	v := reflect.ValueOf(e).Elem()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Slice:
			if f.Len() != 0 {
				t.Errorf("reset left %d entries in %s", f.Len(), name)
			}
			if all := f.Slice(0, f.Cap()); !strings.HasSuffix(name, "1") {
				for j := 0; j < all.Len(); j++ {
					if el := all.Index(j); hasPointer(el) && !el.IsZero() {
						t.Errorf("reset left entry %d of %s's room set: %v", j, name, el)
					}
				}
			}
		case strings.HasSuffix(name, "1") && f.Kind() == reflect.Array:
			// The inline room: it may keep old values, but no pointer.
			for j := 0; j < f.Len(); j++ {
				if el := f.Index(j); hasPointer(el) && !el.IsZero() {
					t.Errorf("reset left entry %d of %s set: %v", j, name, el)
				}
			}
		case !f.IsZero():
			t.Errorf("reset left %s = %v", name, f)
		}
	}
	if e.addSide(g, engine.OpAtomicLoad, uintptr(unsafe.Pointer(&x)), 0, -1, nil, false, false); len(e.gs) != 1 || len(e.acc) != 2 {
		t.Errorf("after reset, addSide made %d sides and %d accesses, want 1 and 2", len(e.gs), len(e.acc))
	}
}

// hasPointer reports whether a value of v's type holds pointers.
func hasPointer(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Interface, reflect.String, reflect.Map:
		return true
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if hasPointer(v.Field(i)) {
				return true
			}
		}
	}
	return false
}
