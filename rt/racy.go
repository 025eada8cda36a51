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

func mapOp[M ~map[K]V, K comparable, V any](m M, op engine.MapOp) {
	if m == nil {
		return
	}
	if x := engine.Current(); x != nil {
		x.Map(mapAddr(m), op)
	}
}

// MapRead marks a racy lookup in m as a scheduling point, at which the run
// fails if another goroutine is writing m ("concurrent map read and map
// write"). It returns true. The rewriter puts it before a statement found
// racy that reads m with no other scheduling point (heddle test -racy).
func MapRead[M ~map[K]V, K comparable, V any](m M) bool {
	mapOp(m, engine.MapRead)
	return true
}

// MapIter is MapRead for the next step of a range over m ("concurrent map
// iteration and map write").
func MapIter[M ~map[K]V, K comparable, V any](m M) {
	mapOp(m, engine.MapIter)
}

// MapWriteBegin and MapWriteEnd bracket a racy statement that writes m
// (an assignment to m[k], a delete, a clear) and has no other scheduling
// point: the write lasts from one to the other, and another goroutine's
// access of m in between fails the run ("concurrent map writes").
func MapWriteBegin[M ~map[K]V, K comparable, V any](m M) {
	mapOp(m, engine.MapWriteBegin)
}

// MapWriteEnd ends the write MapWriteBegin started.
func MapWriteEnd[M ~map[K]V, K comparable, V any](m M) {
	mapOp(m, engine.MapWriteEnd)
}
