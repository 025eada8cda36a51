package prog

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Third fidelity audit: a synctest bubble's WaitGroup and Cond used from
// outside it (Go's fatal errors), a bubble goroutine waiting on a
// WaitGroup of no bubble (not durably blocked), and the bubble's first
// timer pass once the bubble has blocked.

// TestSynctestWaitGroupInsideThenOutside: an Add in a bubble makes the
// WaitGroup the bubble's; an Add outside it then is fatal.
func TestSynctestWaitGroupInsideThenOutside(t *testing.T) {
	wg := new(sync.WaitGroup)
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
	})
	wg.Add(1)
	t.Errorf("added outside")
}

// TestSynctestWaitGroupOutsideThenInside: a WaitGroup in use outside any
// bubble (its counter not zero): an Add in a bubble is fatal.
func TestSynctestWaitGroupOutsideThenInside(t *testing.T) {
	wg := new(sync.WaitGroup)
	wg.Add(1)
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
	})
	t.Errorf("added inside")
}

// TestSynctestWaitGroupTwoBubbles: a WaitGroup of one bubble used in
// another is fatal.
func TestSynctestWaitGroupTwoBubbles(t *testing.T) {
	wg := new(sync.WaitGroup)
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
	})
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
	})
	t.Errorf("added in two bubbles")
}

// TestSynctestWaitGroupWaitedThenOutside: a Wait in the bubble that finds
// the counter zero frees the WaitGroup of the bubble: used outside after,
// it is not fatal.
func TestSynctestWaitGroupWaitedThenOutside(t *testing.T) {
	wg := new(sync.WaitGroup)
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
		go wg.Done()
		wg.Wait()
	})
	wg.Add(1)
	wg.Done()
	t.Errorf("reused outside")
}

// TestSynctestWaitGroupWaitOutsideAtZero: a Wait outside any bubble on a
// bubble's WaitGroup whose counter is back to zero, with no Wait in the
// bubble: Go 1.26's check of the WaitGroup's bubble reads the bubble of a
// goroutine that has none, and faults.
func TestSynctestWaitGroupWaitOutsideAtZero(t *testing.T) {
	wg := new(sync.WaitGroup)
	synctest.Test(t, func(t *testing.T) {
		wg.Add(1)
		wg.Done()
	})
	wg.Wait()
	t.Errorf("waited outside")
}

// fid3WG is a package-level WaitGroup: Go cannot associate it with a
// bubble (it is not in the heap), so using it inside and outside is not
// fatal.
var fid3WG sync.WaitGroup

// TestSynctestWaitGroupPackageVar: see fid3WG.
func TestSynctestWaitGroupPackageVar(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fid3WG.Add(1)
	})
	fid3WG.Done()
	t.Errorf("package WaitGroup both ways")
}

// TestSynctestWaitOnOutsideWaitGroup: a goroutine of the bubble waiting on
// a WaitGroup of no bubble is not durably blocked: synctest.Wait returns
// only after the Done from outside.
func TestSynctestWaitOnOutsideWaitGroup(t *testing.T) {
	wg := new(sync.WaitGroup)
	wg.Add(1)
	var done atomic.Bool
	go func() {
		time.Sleep(time.Millisecond)
		done.Store(true)
		wg.Done()
	}()
	synctest.Test(t, func(t *testing.T) {
		go wg.Wait()
		synctest.Wait()
		t.Errorf("done before Wait returned: %v", done.Load())
	})
}

// TestSynctestCondSignalOutside: a Cond's Signal from outside a bubble
// that wakes a goroutine of the bubble is fatal. The bubble's main
// goroutine waits on a channel made outside, so the bubble is not
// durably blocked meanwhile.
func TestSynctestCondSignalOutside(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	waiting := make(chan bool)
	fin := make(chan bool)
	done := make(chan bool)
	go func() {
		synctest.Test(t, func(t *testing.T) {
			go func() {
				mu.Lock()
				waiting <- true
				c.Wait()
				mu.Unlock()
			}()
			<-fin
		})
		close(done)
	}()
	<-waiting
	mu.Lock()
	c.Signal()
	mu.Unlock()
	close(fin)
	<-done
	t.Errorf("signalled")
}

// TestSynctestAfterFuncResetZeroAfterWait: once the bubble has blocked
// (Wait returned), its first timer pass is over: an AfterFunc stopped and
// Reset(0) fires only when the bubble blocks again, never before.
func TestSynctestAfterFuncResetZeroAfterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ran atomic.Bool
		tm := time.AfterFunc(time.Hour, func() { ran.Store(true) })
		synctest.Wait()
		tm.Stop()
		tm.Reset(0)
		for i := 0; i < 3; i++ {
			runtime.Gosched()
		}
		before := ran.Load()
		synctest.Wait()
		t.Errorf("ran before the bubble blocked %v, after %v", before, ran.Load())
	})
}
