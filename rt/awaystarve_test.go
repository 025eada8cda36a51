package rt_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// eagerEarly is a strategy that picks the reader first, then an early
// firing whenever one is offered, and otherwise the goroutine that waited
// longest; fired counts the early firings it picked.
type eagerEarly struct{ fired int }

func (*eagerEarly) Begin(int) bool     { return true }
func (*eagerEarly) End(*engine.Result) {}
func (s *eagerEarly) Choose(p *engine.Point) int {
	for i := range p.Choices {
		if c := &p.Choices[i]; c.G != nil && c.G.ID == "g0.1" {
			return i
		}
	}
	for i := range p.Choices {
		if p.Choices[i].Early > 0 {
			s.fired++
			return i
		}
	}
	best := 0
	for i := range p.Choices {
		c := &p.Choices[i]
		if c.G != nil && (p.Choices[best].G == nil || c.G.LastStep() < p.Choices[best].G.LastStep()) {
			best = i
		}
	}
	return best
}

// TestAwayInIOBoundsEarlyFirings: while a goroutine is away in real I/O
// (a read of a pipe, as yamux's receive loop in its TLS read, whose
// answer may be in its socket already), timers fire early only as long as
// the clock stays within -max-starve of its detach: it counts as a
// goroutine that could run. The test goroutine sleeps five times 60ms
// while another goroutine takes steps; a strategy fires each sleep early.
// Before, all five fired early, 300ms of virtual time passing while the
// reader, natively microseconds from coming back, was away (yamux's
// TestSendData_Large: the keepalive ping's timeout fired while its answer
// was in real TLS I/O). Now only the first does; the others end when no
// goroutine can run, as idle firings, which starve none.
func TestAwayInIOBoundsEarlyFirings(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s := &eagerEarly{}
	res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, DetachWait: 50 * time.Millisecond, Trace: true}, s, func() {
		var mu sync.Mutex
		rt.Go(func() {
			r.Read(make([]byte, 1)) // written after the run: away all along
		})
		rt.Go(func() {
			for i := 0; i < 200; i++ {
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
			}
		})
		for i := 0; i < 5; i++ {
			rt.Sleep(60 * time.Millisecond)
		}
	})
	w.Write([]byte{1}) // the abandoned reader ends
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if len(res.Detached) == 0 {
		t.Fatalf("the reader was not detached")
	}
	if res.Bug != nil && res.Bug.Kind != engine.KindBlocked { // the reader, at the end
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if s.fired != 1 {
		t.Errorf("%d sleeps fired early while the reader was away, want 1 (the clock within 100ms of its detach)", s.fired)
	}
}
