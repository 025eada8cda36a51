package engine

import "reflect"

// Unstarted returns the goroutines of the run that were created and have
// not started yet: their function and the pc of their go statement (0 if
// the run does not record positions). Natively such a goroutine already
// exists, runnable; here it has no real goroutine yet, so a dump of every
// goroutine's stack (runtime.Stack) must show it from this.
//
//go:norace
func (e *Exec) Unstarted() (fns, goPCs []uintptr) {
	for _, g := range e.gs {
		if g.state == gDone || g.gid != 0 || g.fn == nil {
			continue
		}
		fns = append(fns, reflect.ValueOf(g.fn).Pointer())
		goPCs = append(goPCs, g.GoPC)
	}
	return fns, goPCs
}
