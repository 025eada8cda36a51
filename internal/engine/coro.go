package engine

// Coroutines (iter.Pull).
//
// iter.Pull runs the iterator on a goroutine of its own, a coroutine, but
// only while the goroutine that called next (or stop) is suspended in that
// call: control passes from one to the other and back, and a switch is not
// a scheduling point in Go. So the iterator's code is, as far as
// scheduling goes, the caller's: its channel operations, locks and
// goroutines are the caller's steps. rt.Pull switches the identity of the
// controlled goroutine to whichever real goroutine runs its code (Adopt):
// the coroutine when it resumes, the caller when next returns. Current
// then recognizes the coroutine as the goroutine holding the processor,
// and a scheduling point in the iterator parks the coroutine and is woken
// as the caller would be.

// Adopt makes the calling real goroutine the one that runs g, the
// controlled goroutine holding the processor, from now until another
// Adopt: Current recognizes it, and g's handoff parks and wakes it. It
// reports false, and changes nothing, when g is not the running goroutine
// of e, the run in progress (a coroutine resumed by a goroutine heddle
// does not control, or after the run, runs natively). While the run's
// goroutines are unwound, g is the one being unwound: a goroutine unwound
// in an iterator unwinds the coroutine first, then its caller (iter.Pull
// propagates the Goexit), each as g.
//
//go:norace
func (e *Exec) Adopt(g *G) bool {
	if g == nil || active.Load() != e || e.cur != g {
		return false
	}
	g.gid = getg()
	g.wake.own()
	return true
}
