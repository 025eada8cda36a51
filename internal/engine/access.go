package engine

import "unsafe"

// Access is the scheduling point of an atomic operation or a sync.Map
// method: kind is OpAtomicLoad, OpAtomicWrite, OpMapRead or OpMapWrite. The
// caller performs the real operation right after, in the same step.
func (e *Exec) Access(p unsafe.Pointer, kind OpKind) {
	e.yield(Op{Kind: kind, Obj: p})
	g := e.cur
	switch kind {
	case OpAtomicWrite, OpMapWrite:
		if e.writes == nil {
			e.writes = map[unsafe.Pointer]uint64{}
		}
		e.writes[p]++
	case OpAtomicLoad, OpMapRead:
		v := e.writes[p]
		if g.lastLoad == p && g.lastVer == v {
			g.spins++
		} else {
			g.spins = 0
		}
		g.lastLoad, g.lastVer = p, v
	}
}
