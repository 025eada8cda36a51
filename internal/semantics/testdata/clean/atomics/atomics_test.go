// Package atomics: sync/atomic functions and types. (A handoff by spinning
// on an atomic is left out: it costs about 0.1 s a run, issue 11.)
package atomics

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

type config struct{ n int }

func TestAtomicFuncsAndTypes(t *testing.T) {
	var n int64
	var m atomic.Int32
	var p atomic.Pointer[config]
	var v atomic.Value
	var flag atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&n, 1)
			m.Add(1)
			p.Store(&config{n: 1})
			v.Store(1)
			flag.CompareAndSwap(false, true)
		}()
	}
	wg.Wait()
	if atomic.LoadInt64(&n) != 3 || m.Load() != 3 || p.Load().n != 1 || v.Load() != 1 || !flag.Load() {
		t.Fatal("atomics")
	}
}

// Every form of sync/atomic: the functions on each type (Add, And, Or,
// Load, Store, Swap, CompareAndSwap) and the typed atomics' methods.
func TestAtomicAllForms(t *testing.T) {
	var (
		i32 int32
		u32 uint32
		i64 int64
		u64 uint64
		up  uintptr
		ptr unsafe.Pointer
		ti  atomic.Int64
		tu  atomic.Uint32
		tp  atomic.Uintptr
		v   atomic.Value
	)
	x := new(int)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt32(&i32, 1)
			atomic.OrUint32(&u32, 1<<i)
			atomic.AndInt64(&i64, 0)
			atomic.SwapUint64(&u64, 7)
			atomic.CompareAndSwapUintptr(&up, 0, 1)
			atomic.StorePointer(&ptr, unsafe.Pointer(x))
			ti.Or(2)
			tu.And(1)
			tp.Swap(5)
			v.CompareAndSwap(nil, "a")
			v.Swap("b")
		}()
	}
	wg.Wait()
	if atomic.LoadInt32(&i32) != 2 || atomic.LoadUint32(&u32) != 3 || atomic.LoadInt64(&i64) != 0 ||
		atomic.LoadUint64(&u64) != 7 || atomic.LoadUintptr(&up) != 1 || atomic.LoadPointer(&ptr) != unsafe.Pointer(x) ||
		ti.Load() != 2 || tu.Load() != 0 || tp.Load() != 5 || v.Load() != "b" {
		t.Fatal("atomics")
	}
}
