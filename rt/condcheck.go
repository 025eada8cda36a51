package rt

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// condChecker is the offset of sync.Cond's copyChecker field, or -1 if
// this Go has none.
var condChecker = func() uintptr {
	f, ok := reflect.TypeOf(sync.Cond{}).FieldByName("checker")
	if !ok || f.Type.Kind() != reflect.Uintptr {
		return ^uintptr(0)
	}
	return f.Offset
}()

// condCheck does what sync.Cond's copyChecker does at the start of Wait,
// Signal and Broadcast, which heddle's model of them does not call: the
// first use records the Cond's address in it, and a use of a copy, whose
// checker holds another address, panics as Go does.
func condCheck(c *sync.Cond) {
	if condChecker == ^uintptr(0) {
		return
	}
	if c == nil {
		_ = c.L // the nil dereference Go's check makes (not unsafe.Add on nil)
	}
	// sync's copyChecker reads the field plainly; sync is not
	// instrumented by the race detector, heddle's runtime is: atomic loads.
	p := (*uintptr)(unsafe.Add(unsafe.Pointer(c), condChecker))
	if atomic.LoadUintptr(p) != uintptr(unsafe.Pointer(p)) &&
		!atomic.CompareAndSwapUintptr(p, 0, uintptr(unsafe.Pointer(p))) &&
		atomic.LoadUintptr(p) != uintptr(unsafe.Pointer(p)) {
		panic("sync.Cond is copied")
	}
}
