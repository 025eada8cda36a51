package rt

import (
	"unsafe"

	"heddle.dev/internal/engine"
)

// AtomicR marks an atomic load of *p as a scheduling point and returns p. The
// rewriter wraps the address operand: atomic.LoadInt64(p) becomes
// atomic.LoadInt64(rt.AtomicR(p)), and v.Load() on a typed atomic becomes
// rt.AtomicR(&v).Load().
func AtomicR[T any](p *T) *T {
	if x := engine.Current(); x != nil {
		x.Access(unsafe.Pointer(p), engine.OpAtomicLoad)
	}
	return p
}

// AtomicW is AtomicR for stores, swaps, adds, ands, ors and compare-and-swaps.
func AtomicW[T any](p *T) *T {
	if x := engine.Current(); x != nil {
		x.Access(unsafe.Pointer(p), engine.OpAtomicWrite)
	}
	return p
}

// A function of package sync/atomic used as a value (add :=
// atomic.AddInt32) is wrapped by one of the following, so that its calls
// are scheduling points as the direct calls are: atomic.AddInt32 becomes
// rt.AtomicRMWFn(atomic.AddInt32), of the same type.

// AtomicLoadFn wraps atomic.LoadT used as a value.
func AtomicLoadFn[P, R any](f func(*P) R) func(*P) R {
	return func(p *P) R { return f(AtomicR(p)) }
}

// AtomicStoreFn wraps atomic.StoreT used as a value.
func AtomicStoreFn[P, V any](f func(*P, V)) func(*P, V) {
	return func(p *P, v V) { f(AtomicW(p), v) }
}

// AtomicRMWFn wraps atomic.AddT, SwapT, AndT and OrT used as values.
func AtomicRMWFn[P, V, R any](f func(*P, V) R) func(*P, V) R {
	return func(p *P, v V) R { return f(AtomicW(p), v) }
}

// AtomicCASFn wraps atomic.CompareAndSwapT used as a value.
func AtomicCASFn[P, V any](f func(*P, V, V) bool) func(*P, V, V) bool {
	return func(p *P, old, new V) bool { return f(AtomicW(p), old, new) }
}
