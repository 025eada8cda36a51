package engine

import "unsafe"

// Racy is the scheduling point of a racy plain-memory access: a statement
// that a race-detector phase saw racing (heddle test -racy), which the
// rewriter made a visible operation so that a switch can separate it from
// the accesses it races with. p identifies the group of statements that
// raced with each other (the connected components of the detector's
// reports), not the address: the detector's addresses change from run to
// run. Two racy steps are dependent when their groups are the same and
// one of them writes; a racy step is independent of every other
// operation. A read of a group nobody wrote since the goroutine's last
// read of it is a poll, as an atomic load is, so that a loop spinning on
// a plain flag moves the clock and is deprioritized.
//
//go:norace
func (e *Exec) Racy(p unsafe.Pointer, write bool) {
	kind := OpRacyRead
	if write {
		kind = OpRacyWrite
	}
	e.yield(Op{Kind: kind, Obj: p})
	g := e.cur
	if write {
		e.objs.obtain(p).writes++
		return
	}
	var v uint64
	if o := e.objs.get(p); o != nil {
		v = o.writes
	}
	if g.lastLoad == p && g.lastVer == v {
		e.poll(g)
	} else {
		g.spins = 0
	}
	g.lastLoad, g.lastVer = p, v
}
