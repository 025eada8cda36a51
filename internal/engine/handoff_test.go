package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestHandoffManyGoroutines passes the turn among many goroutines in a
// pseudo-random order, on several processors (the handoff must hold
// whatever GOMAXPROCS is: engine tests run with the default), with wakes
// that come before their goroutine waits (a goroutine woken as soon as it
// is started, and by the one it has just woken): every wake must be taken
// by exactly one wait, with one goroutine running at a time. A lost wake
// hangs the test; a doubled one lets two run at once.
func TestHandoffManyGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n, turns = 8, 2000000
	hs := make([]*handoff, n)
	for i := range hs {
		hs[i] = newHandoff()
	}
	var (
		running atomic.Int32
		left    atomic.Int64
		wg      sync.WaitGroup
		bad     atomic.Int32
	)
	left.Store(turns)
	for i := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := hs[i]
			h.own()
			x := uint64(i)*0x9e3779b97f4a7c15 + 1
			for {
				h.wait()
				if left.Add(-1) < 0 {
					// The end: wake every goroutine, each once more
					// (k < 0 for each of them from now on).
					for _, o := range hs {
						if o != h {
							o.wake()
						}
					}
					return
				}
				if running.Add(1) != 1 {
					bad.Add(1)
				}
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				runtime.Gosched() // let a doubled turn show
				running.Add(-1)
				next := hs[x%n]
				if next == h {
					next = hs[(x+1)%n]
				}
				next.wake()
			}
		}()
	}
	hs[0].wake() // from a goroutine that takes no turn, maybe before hs[0] waits
	wg.Wait()
	if b := bad.Load(); b > 0 {
		t.Errorf("%d turns began while another goroutine ran", b)
	}
}
