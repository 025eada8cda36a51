package engine

import (
	"runtime"
	"strconv"
)

// Exit ends the run at once, as os.Exit ends a process: no other goroutine
// takes another step, and no leak check is made (the process would be
// gone). A non-zero code is a bug of kind fail, "exit status N", reported
// on the goroutine that called it; code 0 ends the run as if it passed.
// The goroutines left, the caller included, are then unwound as at the end
// of every run. It never returns.
//
//go:norace
func (e *Exec) Exit(code int) {
	if e.aborting {
		runtime.Goexit()
	}
	if code != 0 && e.res.Bug == nil {
		msg := "exit status " + strconv.Itoa(code)
		if e.mainDone {
			// Natively the process may be gone by then; the code that
			// exits is still wrong wherever the test function, or main,
			// does not return first.
			msg += " (called after the test returned)"
		}
		e.res.Bug = &Bug{Kind: KindFail, Message: msg, G: e.cur, Stack: stackOf()}
	}
	e.finish()
	e.park(e.cur)
}
