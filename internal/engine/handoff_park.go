//go:build (amd64 || arm64) && !race

package engine

import (
	"sync/atomic"
	"unsafe"
)

// handoffOS is the handoff's state, the goroutine's runtime descriptor
// (getgp), set by the goroutine itself before its first wait, and whether
// its last park was committed (commitPark).
type handoffOS struct {
	st        atomic.Uint32 // hIdle, hPending or hParked
	gp        unsafe.Pointer
	committed bool
}

// The states of a handoff.
const (
	hIdle    = iota // the goroutine runs, or is about to wait
	hPending        // woken before it waited: its next wait returns at once
	hParked         // parked in wait, for wake to make runnable
)

//go:linkname gopark runtime.gopark
func gopark(unlockf func(gp, h unsafe.Pointer) bool, lock unsafe.Pointer, reason uint8, traceReason uint8, traceskip int)

//go:linkname goready runtime.goready
func goready(gp unsafe.Pointer, traceskip int)

//go:norace
func newHandoff() *handoff { return new(handoff) }

// own is called by the goroutine that waits on h, before its first wait.
//
//go:norace
func (h *handoff) own() { h.gp = getgp() }

// commitPark is gopark's unlock function: it runs once the goroutine has
// stopped running, on the runtime's stack, and parks it unless a wake came
// in between (the goroutine then runs on, and its wait takes the wake).
//
//go:nosplit
//go:norace
func commitPark(_, p unsafe.Pointer) bool {
	h := (*handoff)(p)
	// committed is set before the state says parked: from then on a wake
	// on another processor may make the goroutine run and read it.
	h.committed = true
	if h.st.CompareAndSwap(hIdle, hParked) {
		return true
	}
	h.committed = false
	return false
}

// wait parks the calling goroutine, which owns h, until wake.
//
//go:norace
func (h *handoff) wait() {
	for {
		if h.st.CompareAndSwap(hPending, hIdle) {
			return
		}
		h.committed = false
		// The wait reason is the runtime's zero one ("waiting" in a
		// stack dump): its numbering changes from one Go release to the
		// next.
		gopark(commitPark, unsafe.Pointer(h), 0, 0, 1)
		if h.committed {
			return // parked, and woken by wake (which set hIdle)
		}
	}
}

// wake gives h's goroutine its turn: makes it runnable if it is parked,
// or keeps the wake for its next wait.
//
//go:norace
func (h *handoff) wake() {
	for {
		switch h.st.Load() {
		case hParked:
			if h.st.CompareAndSwap(hParked, hIdle) {
				goready(h.gp, 1)
				return
			}
		case hIdle:
			if h.st.CompareAndSwap(hIdle, hPending) {
				return
			}
		default:
			return // already woken: one pending wake, as a channel of one slot
		}
	}
}
