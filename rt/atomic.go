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
