package rt

import (
	"runtime"
	"unsafe"

	"heddle.dev/internal/engine"
)

// The operations of a counted loop (internal/rewrite/countloop.go): a loop
// whose trip count is bounded by a small constant. bound is the number of
// polls the whole loop can run; the operation is announced with it
// (engine.Exec.MarkCounted, internal/engine/spincount.go), and a search
// does not take the goroutine for a spinner there before it polled that
// many times in a row (and spinDrop more).

// CountR is AtomicR for an atomic load in a counted loop.
func CountR[T any](bound int, p *T) *T {
	if x := engine.Current(); x != nil {
		x.MarkCounted(bound)
		x.Access(unsafe.Pointer(p), engine.OpAtomicLoad)
		x.MarkCounted(0)
	}
	return p
}

// CountGosched is Gosched in a counted loop.
func CountGosched(bound int) {
	if x := engine.Current(); x != nil {
		x.MarkCounted(bound)
		x.Gosched()
		x.MarkCounted(0)
		return
	}
	runtime.Gosched()
}

// CountSelect is Select in a counted loop. A send on a closed channel
// panics in the step: the mark goes with it (deferred).
func CountSelect(bound int, hasDefault bool, cases ...Case) int {
	if x := engine.Current(); x != nil {
		x.MarkCounted(bound)
		defer x.MarkCounted(0)
		return x.Select(cases, hasDefault)
	}
	return nativeSelect(hasDefault, cases)
}
