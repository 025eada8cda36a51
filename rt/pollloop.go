package rt

import (
	"runtime"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The operations of a marked poll loop (internal/rewrite/pollloop.go): a
// loop whose iterations, but the one that leaves it, change nothing. again
// is false in the loop's first iteration and true from its second on; an
// operation announced with again set is marked (engine.Exec.MarkPoll,
// internal/engine/spinmark.go), and a search that keeps the goroutine from
// running there does not bound its claim.

// PollR is AtomicR for an atomic load in a marked poll loop.
func PollR[T any](again bool, p *T) *T {
	if x := engine.Current(); x != nil {
		x.MarkPoll(again)
		x.Access(unsafe.Pointer(p), engine.OpAtomicLoad)
		x.MarkPoll(false)
	}
	return p
}

// PollGosched is Gosched in a marked poll loop.
func PollGosched(again bool) {
	if x := engine.Current(); x != nil {
		x.MarkPoll(again)
		x.Gosched()
		x.MarkPoll(false)
		return
	}
	runtime.Gosched()
}

// PollSelect is Select with a default in a marked poll loop: its cases
// receive (a send on a closed channel panics in the step).
func PollSelect(again bool, cases ...Case) int {
	if x := engine.Current(); x != nil {
		x.MarkPoll(again)
		i := x.Select(cases, true)
		x.MarkPoll(false)
		return i
	}
	return nativeSelect(true, cases)
}
