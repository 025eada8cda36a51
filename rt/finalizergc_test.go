//go:build go1.24

package rt_test

import (
	"sync/atomic"
	"testing"

	"heddle.dev/rt"
)

// finalized is large enough not to be a tiny allocation, which the
// collector frees with its neighbours.
type finalized [64]byte

//go:noinline
func setFinalized(f func(*finalized)) {
	rt.SetFinalizer(new(finalized), f)
}

// A run's runtime.GC() runs the finalizers of the objects it found
// unreachable, in a goroutine of their own started then, concurrently
// with the program: the test sees the finalizer's write or not yet, and
// can wait for it (conform TestFinalizerVsTest: natively "first 1" in
// most runs, "first 0" in some). Before, the finalizers waited for the
// test to return: the wait below never ended (a deadlock in every run).
func TestFinalizerRunsAtGC(t *testing.T) {
	got := odporOutcomes(t, func() string {
		var flag atomic.Int32
		done := rt.MakeChan[chan bool](1)
		setFinalized(func(*finalized) {
			rt.AtomicW(&flag).Store(1)
			rt.Send(done, true)
		})
		rt.GC()
		first := rt.AtomicR(&flag).Load()
		rt.Recv(done)
		if first == 0 {
			return "first 0"
		}
		return "first 1"
	})
	if want := "first 0 | first 1"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}
