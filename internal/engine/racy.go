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
	if g.load(p, v) {
		g.spins = 0
	} else {
		e.poll(g)
	}
}

// MapOp is an access of a map by a racy statement (heddle test -racy).
type MapOp uint8

// The accesses of a map that the Go runtime checks for concurrent use.
const (
	MapRead       MapOp = iota // a lookup: m[k], v, ok := m[k]
	MapIter                    // the next step of a range over the map
	MapWriteBegin              // the start of an assignment, a delete or a clear
	MapWriteEnd                // its end
	MapClone                   // maps.Clone, which the runtime checks once, at its start
)

// Map is the scheduling point of a racy map access, modelled as the Go
// runtime sees it: a write lasts from MapWriteBegin to MapWriteEnd, two
// scheduling points, and a goroutine that reads, iterates or writes the
// same map in between makes the run fail as the runtime would ("fatal
// error: concurrent map writes", "concurrent map read and map write",
// "concurrent map iteration and map write", "concurrent map clone and
// map write"). The rewriter brackets only statements with no other
// scheduling point, and rt's wrappers of package maps only native map
// code, so the window holds no synchronization: another goroutine can
// only step into it if its access is concurrent with the write (a data
// race), and natively the two could overlap. m is the map's address.
//
//go:norace
func (e *Exec) Map(m unsafe.Pointer, op MapOp) {
	e.MapIn(m, nil, op)
}

// MapIn is Map for a racy statement whose scheduling point the map
// access is: the step also reads group (the statement's racy group,
// as Racy does), or writes it if the access writes the map, so that it
// is ordered with the other statements of the group as the group's own
// step would order it, and the statement needs no step of its own
// (one scheduling point, not two placed independently).
//
//go:norace
func (e *Exec) MapIn(m, group unsafe.Pointer, op MapOp) {
	kind := OpRacyRead
	switch op {
	case MapWriteBegin:
		kind = OpRacyWrite
	case MapWriteEnd:
		kind = OpRacyWriteEnd
	}
	e.yield(Op{Kind: kind, Obj: m, Group: group})
	if group != nil && kind != OpRacyRead {
		e.objs.obtain(group).writes++ // a read of the group after it is no poll (Racy)
	}
	g := e.cur
	o := e.objs.obtain(m)
	switch op {
	case MapWriteEnd:
		if o.mapW == g {
			o.mapW = nil
		}
		o.writes++
		return
	case MapWriteBegin:
		o.writes++
	}
	if w := o.mapW; w != nil && w != g {
		msg := "concurrent map read and map write"
		switch op {
		case MapIter:
			msg = "concurrent map iteration and map write"
		case MapClone:
			msg = "concurrent map clone and map write"
		case MapWriteBegin:
			msg = "concurrent map writes"
		}
		e.misuse(msg + ": " + w.ID + " was writing the map")
		return
	}
	if op == MapWriteBegin {
		o.mapW = g
	}
}
