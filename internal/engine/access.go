package engine

import "unsafe"

// Access is the scheduling point of an atomic operation or a sync.Map
// method: kind is OpAtomicLoad, OpAtomicWrite, OpMapRead or OpMapWrite. The
// caller performs the real operation right after, in the same step.
func (e *Exec) Access(p unsafe.Pointer, kind OpKind) {
	e.yield(Op{Kind: kind, Obj: p})
}
