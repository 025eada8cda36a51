package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestCountedNotDroppedWithinBound: a goroutine at a counted loop's
// operation (MarkCounted: rt.CountGosched) is not dropped by dropSpinners
// before it polled spinDrop+bound times in a row (spincount.go), so a
// strategy that prefers it (lastChoice) runs the whole loop before the
// other goroutine moves, as natively; unmarked, it is dropped after
// spinDrop polls, and the drop counts. A loop marked with a bound it
// exceeds (a counted loop inside an unbounded one) is dropped once its
// streak passes the bound: the run ends, and the drop counts. The mark is
// gone once the step is taken.
func TestCountedNotDroppedWithinBound(t *testing.T) {
	const trips = 10
	body := func(bound, polls int, first *int, after *bool) func() {
		return func() {
			e := Current()
			var flag int32
			var wg sync.WaitGroup
			e.WaitGroupAdd(unsafe.Pointer(&wg), 1)
			e.Go(func() {
				for i := 0; i < polls; i++ {
					e.MarkCounted(bound)
					e.Gosched()
					e.MarkCounted(0)
				}
				*after = e.cur.countBound != 0 || e.cur.Counted()
				e.Access(unsafe.Pointer(&flag), OpAtomicLoad)
				if atomic.LoadInt32(&flag) == 0 {
					*first = 1 // the loop ended before the store
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
			var x int64
			for range 20 {
				e.Access(unsafe.Pointer(&x), OpAtomicWrite)
			}
			e.Access(unsafe.Pointer(&flag), OpAtomicWrite)
			atomic.StoreInt32(&flag, 1)
			e.WaitGroupWait(unsafe.Pointer(&wg))
		}
	}
	for _, c := range []struct {
		name         string
		bound, polls int
		drops        bool
	}{
		{"counted", trips, trips, false},
		{"unmarked", 0, trips, true},
		{"pastBound", 3, 200, true},
	} {
		var first int
		var after bool
		res := Run(Config{StepLimit: 10000}, lastChoice{}, body(c.bound, c.polls, &first, &after))
		if res.Bug != nil {
			t.Fatalf("%s: unexpected bug: %v", c.name, res.Bug.Message)
		}
		if got := res.SpinDrops > 0; got != c.drops {
			t.Errorf("%s: %d drops counted, want drops %v", c.name, res.SpinDrops, c.drops)
		}
		if c.name == "counted" && first != 1 {
			t.Errorf("counted: the loop did not end before the store: its goroutine was dropped")
		}
		if after {
			t.Errorf("%s: the goroutine is still marked after the loop", c.name)
		}
	}
}
