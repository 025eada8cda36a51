package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// roundRobin takes the choice after the previous one, so that every
// goroutine runs in turn.
type roundRobin struct{ steps int }

func (*roundRobin) Begin(int) bool { return true }
func (*roundRobin) End(*Result)    {}
func (r *roundRobin) Choose(p *Point) int {
	r.steps++
	return (p.Prev + 1) % len(p.Choices)
}

// TestDropSpinnersLooksAtPollers checks that the pass that drops spinning
// goroutines from the choices examines only the goroutines that polled
// (spinDrop polls in a row), not every enabled one: with a hundred
// goroutines at work beside one that spins, a step examined about two
// hundred choices (each twice), and ants' pool tests, with hundreds of
// goroutines enabled at every step, spent half of their time there.
func TestDropSpinnersLooksAtPollers(t *testing.T) {
	const workers, writes = 100, 20
	var e0 *Exec
	s := &roundRobin{}
	res := Run(Config{}, s, func() {
		e := Current()
		e0 = e
		var flag int32
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), workers+1)
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
		var left atomic.Int32
		left.Store(workers)
		for range workers {
			var x int64
			e.Go(func() {
				for range writes {
					e.Access(unsafe.Pointer(&x), OpAtomicWrite)
				}
				if left.Add(-1) == 0 {
					e.Access(unsafe.Pointer(&flag), OpAtomicWrite)
					atomic.StoreInt32(&flag, 1)
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %v", res.Bug.Message)
	}
	if res.Steps < workers*writes {
		t.Fatalf("the run took %d steps, want at least %d", res.Steps, workers*writes)
	}
	// The spinner is the only goroutine that polls: one choice examined
	// per step at most.
	if e0.spinLooks > res.Steps {
		t.Fatalf("dropSpinners examined %d choices in %d steps, want at most one a step", e0.spinLooks, res.Steps)
	}
}
