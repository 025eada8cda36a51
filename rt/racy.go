package rt

import (
	"sync"
	"unsafe"

	"heddle.dev/internal/engine"
)

// racyGroups maps the name of a group of racy statements to the object
// that stands for it in the exploration: the same in every run.
var racyGroups sync.Map // string -> *byte

func racyGroup(name string) unsafe.Pointer {
	if p, ok := racyGroups.Load(name); ok {
		return unsafe.Pointer(p.(*byte))
	}
	p, _ := racyGroups.LoadOrStore(name, new(byte))
	return unsafe.Pointer(p.(*byte))
}

// RacyRead marks a statement that reads memory it races on (found by
// heddle test -racy's race-detector phase) as a scheduling point. group
// names the statements it raced with. It returns true, so that the
// rewriter can put it in a loop's condition: for rt.RacyRead("racy1") &&
// !done { ... }.
func RacyRead(group string) bool {
	if x := engine.Current(); x != nil {
		x.Racy(racyGroup(group), false)
	}
	return true
}

// RacyWrite is RacyRead for a statement that writes the memory it races
// on.
func RacyWrite(group string) bool {
	if x := engine.Current(); x != nil {
		x.Racy(racyGroup(group), true)
	}
	return true
}

// RacyStore is the write of a racy read-modify-write (x++, x op= e): the
// rewriter turns x++ into x = rt.RacyStore(x+1, "g"), after a RacyRead
// before the statement, so that the read and the write are two scheduling
// points, as natively. It marks the write of each group and returns v,
// which the statement then assigns.
func RacyStore[T any](v T, groups ...string) T {
	for _, g := range groups {
		RacyWrite(g)
	}
	return v
}

func mapAddr[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// mapOp is the step of op on m; group, if given, is the racy group of the
// statement whose only scheduling point the step is (engine.Exec.MapIn).
func mapOp[M ~map[K]V, K comparable, V any](m M, op engine.MapOp, group []string) {
	x := engine.Current()
	if x == nil {
		return
	}
	if m == nil {
		if len(group) > 0 {
			// No map access to check; the statement's group step.
			x.Racy(racyGroup(group[0]), op == engine.MapWriteBegin || op == engine.MapWriteEnd)
		}
		return
	}
	var g unsafe.Pointer
	if len(group) > 0 {
		g = racyGroup(group[0])
	}
	x.MapIn(mapAddr(m), g, op)
}

// MapRead marks a racy lookup in m as a scheduling point, at which the run
// fails if another goroutine is writing m ("concurrent map read and map
// write"). It returns true. The rewriter puts it before a statement found
// racy that reads m with no other scheduling point (heddle test -racy).
func MapRead[M ~map[K]V, K comparable, V any](m M, group ...string) bool {
	mapOp(m, engine.MapRead, group)
	return true
}

// MapIter is MapRead for the next step of a range over m ("concurrent map
// iteration and map write").
func MapIter[M ~map[K]V, K comparable, V any](m M, group ...string) {
	mapOp(m, engine.MapIter, group)
}

// MapWriteBegin and MapWriteEnd bracket a racy statement that writes m
// (an assignment to m[k], a delete, a clear) and has no other scheduling
// point: the write lasts from one to the other, and another goroutine's
// access of m in between fails the run ("concurrent map writes").
func MapWriteBegin[M ~map[K]V, K comparable, V any](m M, group ...string) {
	mapOp(m, engine.MapWriteBegin, group)
}

// MapWriteEnd ends the write MapWriteBegin started.
func MapWriteEnd[M ~map[K]V, K comparable, V any](m M, group ...string) {
	mapOp(m, engine.MapWriteEnd, group)
}

// RacySet is a racy write captured with its address and value: the
// rewriter turns a plain assignment x = v on a line found racy into
// rt.RacySet(&x, v, "g") (heddle test -racy). In an exploration the store
// goes into the goroutine's store buffer and reaches memory later, at a
// step of its own (x86-TSO; see storebuf.go in package engine);
// otherwise it is *p = v.
func RacySet[T any](p *T, v T, group string) {
	x := engine.Current()
	if x == nil || engine.RaceEnabled {
		// Under -race (the detection rounds), a plain write the detector
		// sees at the statement.
		if x != nil {
			x.Racy(racyGroup(group), true)
		}
		*p = v
		return
	}
	x.RacySet(racyGroup(group), &racyCell[T]{p: p, v: v})
}

// racyCell is a buffered store of a T (engine.Cell).
type racyCell[T any] struct {
	p      *T
	v, old T
}

func (c *racyCell[T]) Apply()               { c.old = *c.p; *c.p = c.v }
func (c *racyCell[T]) Undo()                { *c.p = c.old }
func (c *racyCell[T]) Commit()              { *c.p = c.v }
func (c *racyCell[T]) Addr() unsafe.Pointer { return unsafe.Pointer(c.p) }

// Refresh makes the value stored the one memory holds at p now.
func (c *racyCell[T]) Refresh() { c.v = *c.p }

// Changed compares the bytes of the value at p with the value stored.
func (c *racyCell[T]) Changed() bool {
	n := unsafe.Sizeof(c.v)
	if n == 0 {
		return false
	}
	a := unsafe.Slice((*byte)(unsafe.Pointer(c.p)), n)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&c.v)), n)
	return string(a) != string(b)
}
