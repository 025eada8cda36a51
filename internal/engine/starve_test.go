package engine

import (
	"sync"
	"testing"
	"time"
	"unsafe"
)

// alternating runs a goroutine other than the previous one whenever it
// can, and never fires a timer early; it notes the longest list of
// goroutines the starvation accounting kept.
type alternating struct{ longest, gs int }

func (*alternating) Begin(int) bool { return true }
func (*alternating) End(*Result)    {}
func (a *alternating) Choose(p *Point) int {
	if n := len(p.Exec.couldRun); n > a.longest {
		a.longest, a.gs = n, len(p.Exec.gs)
	}
	for i, c := range p.Choices {
		if i != p.Prev && c.G != nil && c.Early == 0 {
			return i
		}
	}
	return 0
}

// TestStarvationListBounded checks that the goroutines the starvation
// accounting remembers (could run when a timer's early firing was
// weighed, and have not run since) are listed once each: the list
// holds at most one entry per goroutine, however long the run. It grew
// by an entry per step of every goroutine that ran between two
// weighings, and a run of conc's pool tests spent 80% of its time
// scanning it.
func TestStarvationListBounded(t *testing.T) {
	a := &alternating{}
	const n = 2000
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, a, func() {
		e := Current()
		var x int64
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), 3)
		// A sleeper: its timer is weighed at every step of the others.
		e.Go(func() {
			e.Sleep(50 * time.Millisecond)
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		for range 2 {
			e.Go(func() {
				for range n {
					e.Access(unsafe.Pointer(&x), OpAtomicWrite)
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %v", res.Bug.Message)
	}
	if res.Steps < 2*n {
		t.Fatalf("the run took %d steps, want at least %d", res.Steps, 2*n)
	}
	if a.longest > a.gs {
		t.Fatalf("the starvation list held %d entries with %d goroutines", a.longest, a.gs)
	}
}
