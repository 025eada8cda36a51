package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestMarkedPollDropsNotCounted: dropSpinners' drop of a goroutine at an
// operation of a marked poll loop's second or later iteration (MarkPoll:
// rt.PollR, rt.PollGosched) leaves out no outcome (spinmark.go): it is
// counted in Result.PollDrops, not SpinDrops, which bounds an exhaustive
// claim. The same loop unmarked is counted in SpinDrops, and a mark is
// gone once its step is taken.
func TestMarkedPollDropsNotCounted(t *testing.T) {
	body := func(marked bool, after *bool) func() {
		return func() {
			e := Current()
			var flag int32
			var wg sync.WaitGroup
			e.WaitGroupAdd(unsafe.Pointer(&wg), 1)
			e.Go(func() {
				for again := false; ; again = true {
					e.MarkPoll(marked && again)
					e.Access(unsafe.Pointer(&flag), OpAtomicLoad)
					e.MarkPoll(false)
					if atomic.LoadInt32(&flag) != 0 {
						break
					}
					e.MarkPoll(marked && again)
					e.Gosched()
					e.MarkPoll(false)
				}
				*after = e.cur.PollMarked()
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
	for _, marked := range []bool{true, false} {
		var after bool
		res := Run(Config{StepLimit: 10000}, lastChoice{}, body(marked, &after))
		if res.Bug != nil {
			t.Fatalf("marked %v: unexpected bug: %v", marked, res.Bug.Message)
		}
		if marked && (res.SpinDrops != 0 || res.PollDrops == 0) {
			t.Errorf("marked loop: %d drops counted, %d marked; want 0 and some", res.SpinDrops, res.PollDrops)
		}
		if !marked && (res.SpinDrops == 0 || res.PollDrops != 0) {
			t.Errorf("unmarked loop: %d drops counted, %d marked; want some and 0", res.SpinDrops, res.PollDrops)
		}
		if after {
			t.Errorf("marked %v: the goroutine is still marked after the loop", marked)
		}
	}
}
