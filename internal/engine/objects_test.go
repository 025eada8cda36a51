package engine

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// TestObjTableReusedAddress checks that the shadow state of an object the
// collector freed is not inherited by a new object the allocator puts at
// its address (the table keys objects by address: objects.go).
func TestObjTableReusedAddress(t *testing.T) {
	type blob struct {
		mu  sync.Mutex
		pad [56]byte
	}
	_ = blob{}.pad
	var tab objTable
	old := map[uintptr]bool{}
	for i := 0; i < 200; i++ {
		b := new(blob)
		tab.obtain(unsafe.Pointer(&b.mu)).writes = 1
		old[uintptr(unsafe.Pointer(&b.mu))] = true
	}
	runtime.GC()
	runtime.GC()
	var keep []*blob
	for i := 0; i < 1_000_000; i++ {
		b := new(blob)
		p := unsafe.Pointer(&b.mu)
		if !old[uintptr(p)] {
			keep = append(keep, b) // so that the next one is elsewhere
			continue
		}
		if o := tab.get(p); o == nil || o.writes != 0 {
			t.Fatalf("a new object at the address of a collected one got %+v, want a fresh shadow object", o)
		}
		if o := tab.obtain(p); o.writes != 0 {
			t.Fatal("obtain gave a new object the state of the collected one")
		}
		runtime.KeepAlive(keep)
		return
	}
	runtime.KeepAlive(keep)
	t.Skip("the allocator reused none of the collected objects' addresses")
}

// TestObjTableNil checks that a nil pointer has no object, in a table that
// holds some: cap of a nil channel asks for one (TimerChan), and 0 is also
// the table's mark of an empty slot (conc's stream.TestStream panicked).
func TestObjTableNil(t *testing.T) {
	var tab objTable
	x := new(int)
	tab.obtain(unsafe.Pointer(x))
	if o := tab.get(nil); o != nil {
		t.Fatalf("get(nil) = %+v, want nil", o)
	}
	if o := tab.at(0); o != nil {
		t.Fatalf("at(0) = %+v, want nil", o)
	}
	runtime.KeepAlive(x)
}
