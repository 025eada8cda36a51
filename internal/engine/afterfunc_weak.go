//go:build go1.24

package engine

import (
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// afterFuncs are the AfterFunc timers runs made that are still reachable,
// by address: the weak pointer tells that the timer at an address is still
// the one registered there, and a cleanup forgets it once it is collected.
var afterFuncs struct {
	sync.Mutex
	m map[uintptr]weak.Pointer[afterFuncTimer]
}

// rememberAfterFunc records ft as an AfterFunc timer of a run, for a later
// run that Stops or Resets it (staletimer.go).
//
//go:norace
func rememberAfterFunc(ft *afterFuncTimer) {
	w := weak.Make(ft)
	k := uintptr(unsafe.Pointer(ft))
	afterFuncs.Lock()
	if afterFuncs.m == nil {
		afterFuncs.m = map[uintptr]weak.Pointer[afterFuncTimer]{}
	}
	afterFuncs.m[k] = w
	afterFuncs.Unlock()
	runtime.AddCleanup(ft, forgetAfterFunc, afterFuncKey{k, w})
}

type afterFuncKey struct {
	addr uintptr
	w    weak.Pointer[afterFuncTimer]
}

func forgetAfterFunc(k afterFuncKey) {
	afterFuncs.Lock()
	if afterFuncs.m[k.addr] == k.w {
		delete(afterFuncs.m, k.addr)
	}
	afterFuncs.Unlock()
}

// knownAfterFunc returns the AfterFunc timer of a run at p, or nil.
//
//go:norace
func knownAfterFunc(p unsafe.Pointer) *afterFuncTimer {
	afterFuncs.Lock()
	w, ok := afterFuncs.m[uintptr(p)]
	afterFuncs.Unlock()
	if ft := w.Value(); ok && ft != nil && unsafe.Pointer(ft) == p {
		return ft
	}
	return nil
}
