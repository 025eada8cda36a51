package atomics

import (
	"sync/atomic"
	"unsafe"
)

type T struct {
	hits  atomic.Int64
	ready atomic.Bool
	cur   atomic.Pointer[T]
	val   atomic.Value
	raw   int32
	p     unsafe.Pointer
}

func f(t *T, u *uint64) int64 {
	atomic.AddInt32(&t.raw, 1)
	atomic.StoreInt32(&t.raw, 2)
	_ = atomic.LoadInt32(&t.raw)
	atomic.CompareAndSwapInt32(&t.raw, 2, 3)
	atomic.SwapUint64(u, 4)
	atomic.AndInt32(&t.raw, 1)
	atomic.StorePointer(&t.p, nil)
	_ = atomic.LoadPointer(&t.p)
	t.hits.Add(1)
	t.hits.Store(2)
	t.ready.Store(true)
	if t.ready.Load() {
		t.cur.Store(t)
	}
	t.cur.CompareAndSwap(t, nil)
	t.val.Store("x")
	_ = t.val.Load()
	var local atomic.Uint32
	local.Add(1)
	load := t.hits.Load
	return t.hits.Load() + load()
}
