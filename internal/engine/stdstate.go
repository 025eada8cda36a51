package engine

import "unsafe"

// Unstepped counts, in the run's Result, a file the running goroutine
// handed to code that is not rewritten and that keeps it, to read or write
// it later in no step (rt.FileKeep): the orders of those accesses are not
// explored, and an exhaustive exploration claims nothing. Called by the
// running controlled goroutine, which holds the processor (the race
// detector cannot see the hand-offs between controlled goroutines).
//
//go:norace
func (e *Exec) Unstepped() { e.res.Unstepped++ }

// envObj is the object standing for the process's environment and
// working directory: only its address is used.
var envObj byte

// EnvAccess is the step of an access of the process's environment or
// working directory by the running goroutine: package syscall keeps the
// environment under a lock of its own, not rewritten (rt/env.go). Both
// the rewritten os functions and testing.T's Setenv and Chdir (package
// explore) take it. No step while the goroutine is alone (Exec.Alone),
// or outside a run.
func EnvAccess(op OpKind) {
	if x := Current(); x != nil && !x.Alone() {
		x.Access(unsafe.Pointer(&envObj), op)
	}
}
