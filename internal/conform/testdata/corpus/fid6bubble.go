package prog

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Sixth fidelity audit: misuse of testing/synctest that Go detects, and
// a bubble that ends with goroutines still blocked.

// TestSynctestWaitOutsideBubble: synctest.Wait outside any bubble panics.
func TestSynctestWaitOutsideBubble(t *testing.T) {
	synctest.Wait()
	t.Errorf("returned")
}

// TestSynctestWaitTwoGoroutines: two goroutines of one bubble in Wait at
// once: Go panics in the second.
func TestSynctestWaitTwoGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Go(func() { synctest.Wait() })
		synctest.Wait()
		wg.Wait()
	})
	t.Errorf("returned")
}

// TestSynctestRunInside: t.Run inside a bubble panics.
func TestSynctestRunInside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t.Run("sub", func(t *testing.T) {})
	})
	t.Errorf("returned")
}

// TestSynctestBlockedForeverAtEnd: a goroutine of the bubble blocked in
// select {} when the bubble's function returns: Go reports a deadlock of
// the bubble.
func TestSynctestBlockedForeverAtEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() { select {} }()
	})
	t.Errorf("returned")
}

// TestSynctestSleepingAtEnd: a goroutine of the bubble still sleeping
// when the bubble's function returns: the bubble waits for it (its clock
// advances), and the test goes on.
func TestSynctestSleepingAtEnd(t *testing.T) {
	var done bool
	var mu sync.Mutex
	synctest.Test(t, func(t *testing.T) {
		go func() {
			time.Sleep(time.Hour)
			mu.Lock()
			done = true
			mu.Unlock()
		}()
	})
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("done %v", done)
}

// TestSynctestTimerWaitedAtEnd: a goroutine of the bubble waiting on a
// stopped timer's channel when the bubble's function returns: deadlock.
func TestSynctestTimerWaitedAtEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := time.NewTimer(time.Second)
		go func() { <-tm.C }()
		synctest.Wait()
		tm.Stop()
	})
	t.Errorf("returned")
}

// TestSynctestParallelInside: t.Parallel inside a bubble panics.
func TestSynctestParallelInside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t.Parallel()
	})
	t.Errorf("returned")
}

// TestSynctestDeadlineInside: t.Deadline inside a bubble panics.
func TestSynctestDeadlineInside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t.Deadline()
	})
	t.Errorf("returned")
}

// TestRunDuringCleanup: t.Run called by a cleanup panics.
func TestRunDuringCleanup(t *testing.T) {
	t.Cleanup(func() {
		t.Run("sub", func(t *testing.T) {})
	})
}
