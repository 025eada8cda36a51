package prog

import (
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestSynctestOwnClock: a bubble's clock is its own: a goroutine outside
// the bubble that reads the clock and yields until the bubble is over
// never moves it, so the bubble measures no time across a handoff between
// its goroutines, and exactly 25ms across a Sleep of 25ms.
func TestSynctestOwnClock(t *testing.T) {
	var stop atomic.Bool
	done := make(chan bool)
	go func() {
		for !stop.Load() {
			_ = time.Now()
			runtime.Gosched()
		}
		done <- true
	}()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c := make(chan int)
		go func() { c <- 1 }()
		<-c
		handoff := time.Since(start)
		time.Sleep(25 * time.Millisecond)
		t.Errorf("handoff=%v sleep=%v", handoff, time.Since(start))
	})
	stop.Store(true)
	<-done
}
