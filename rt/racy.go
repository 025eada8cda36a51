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
