package engine

// Unstepped counts, in the run's Result, a file the running goroutine
// handed to code that is not rewritten and that keeps it, to read or write
// it later in no step (rt.FileKeep): the orders of those accesses are not
// explored, and an exhaustive exploration claims nothing.
func (e *Exec) Unstepped() { e.res.Unstepped++ }
