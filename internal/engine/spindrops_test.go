package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// lastChoice takes the last choice: the goroutine created last, before
// the timers.
type lastChoice struct{}

func (lastChoice) Begin(int) bool      { return true }
func (lastChoice) Choose(p *Point) int { return len(p.Choices) - 1 }
func (lastChoice) End(*Result)         {}

// TestSpinDropsCounted: a drop of a goroutine polling without progress
// (dropSpinners) is counted in Result.SpinDrops, since it bounds what an
// exhaustive search covers (a loop that polls a bounded number of times
// ends in the schedules left out); with KeepSpinners nothing is dropped.
func TestSpinDropsCounted(t *testing.T) {
	body := func() {
		e := Current()
		var flag int32
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), 1)
		e.Go(func() {
			for {
				e.Access(unsafe.Pointer(&flag), OpAtomicLoad)
				if atomic.LoadInt32(&flag) != 0 {
					break
				}
				e.Gosched()
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
	for _, c := range []struct {
		keep bool
		s    Strategy
	}{{false, lastChoice{}}, {true, &roundRobin{}}} {
		res := Run(Config{KeepSpinners: c.keep, StepLimit: 10000}, c.s, body)
		if res.Bug != nil {
			t.Fatalf("keep spinners %v: unexpected bug: %v", c.keep, res.Bug.Message)
		}
		if c.keep && res.SpinDrops != 0 {
			t.Errorf("keeping spinners, %d drops counted, want 0", res.SpinDrops)
		}
		if !c.keep && res.SpinDrops == 0 {
			t.Errorf("the spinner was preferred at every step, but no drop was counted")
		}
	}
}
