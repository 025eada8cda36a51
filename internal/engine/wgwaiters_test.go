package engine

import (
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// rootFirst runs the run's root goroutine whenever it can run (a sleeper's
// waking aside), and otherwise the goroutine made last.
type rootFirst struct{}

func (rootFirst) Begin(int) bool { return true }
func (rootFirst) End(*Result)    {}
func (rootFirst) Choose(p *Point) int {
	best := -1
	for i, c := range p.Choices {
		if c.G == nil || c.Op().Kind == OpSleep {
			continue
		}
		if c.G.Index == 0 {
			return i
		}
		if best < 0 || c.G.Index > p.Choices[best].G.Index {
			best = i
		}
	}
	return max(best, 0)
}

// TestWGWaiterFirstCreated checks the goroutine a WaitGroup misuse names
// when several wait: the first made, as when every goroutine of the run
// was looked at, although they called Wait in the opposite order (the
// WaitGroup keeps its waiters, in no particular order).
func TestWGWaiterFirstCreated(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	res := Run(Config{}, rootFirst{}, func() {
		e := Current()
		finished(e, 20) // goroutines the run made before, done
		var wg sync.WaitGroup
		p := unsafe.Pointer(&wg)
		e.WaitGroupAdd(p, 1)
		for range 3 {
			e.Go(func() { e.WaitGroupWait(p) })
		}
		// The three call Wait while the root sleeps, the last made
		// first, and block.
		e.Sleep(time.Second)
		e.WaitGroupAdd(p, -1) // they can return now
		e.WaitGroupAdd(p, 1)  // but have not: a misuse
	})
	b := res.Bug
	if b == nil || b.Kind != KindMisuse {
		t.Fatalf("bug = %v, want the WaitGroup reused before Wait returned", b)
	}
	// The three waiters are the last goroutines made.
	first := res.Gs[len(res.Gs)-3]
	want := "while " + first.ID + " has not returned from Wait"
	if !strings.Contains(b.Message, want) {
		t.Errorf("message %q does not name the first goroutine made of those in Wait (%s)", b.Message, want)
	}
}
