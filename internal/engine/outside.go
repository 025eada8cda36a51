package engine

// NoteOutside records that the run's result depended on something outside
// heddle's control whose timing the search cannot explore: a child
// process killed by a context cancelled while it ran (rt.ExecWait), whose
// exit status is up to the operating system's timing. It counts as a
// detach (Result.Detaches): the exploration then makes no claim that
// every schedule was explored.
//
//go:norace
func (e *Exec) NoteOutside() {
	e.detachMu.Lock()
	e.res.Detaches++
	e.detachMu.Unlock()
}
