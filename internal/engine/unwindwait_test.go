package engine

import (
	"testing"
	"time"
)

// TestUnwindDoesNotWaitForeverOnAGoroutineBlockedOutside: a goroutine the
// run ended before its first step runs its function as unwound
// (runUnwound), and one that first blocks outside heddle's control (yamux's
// recvLoop reads a TLS connection nobody writes to any more) never exits.
// The end of the run waited for it forever: heddle test on yamux hung in
// TestGoAway until the harness's limit. It is now abandoned after
// Config.DetachWait, as a detached goroutine that never came back, and
// ends quietly when it comes back.
func TestUnwindDoesNotWaitForeverOnAGoroutineBlockedOutside(t *testing.T) {
	never := make(chan struct{}) // a real channel: outside heddle's control
	back := make(chan struct{})
	ran := make(chan *Result, 1)
	go func() {
		ran <- Run(Config{DetachWait: 50 * time.Millisecond}, firstChoice{}, func() {
			e := Current()
			e.Go(func() {
				defer close(back)
				<-never
			})
			panic("the run ends before the goroutine's first step")
		})
	}()
	var res *Result
	select {
	case res = <-ran:
	case <-time.After(2 * time.Minute): // a hang, not a measure
		t.Fatal("the run did not end: its end waits for a goroutine blocked outside heddle's control")
	}
	if res.Bug == nil || res.Bug.Kind != KindPanic {
		t.Errorf("bug = %+v, want the body's panic", res.Bug)
	}
	close(never)
	select {
	case <-back:
	case <-time.After(2 * time.Minute):
		t.Fatal("the abandoned goroutine did not end when it came back")
	}
}
