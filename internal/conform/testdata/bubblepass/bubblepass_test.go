// Package bubblepass shows, natively, that Go does not order the effects
// of a synctest bubble's timers due at one instant: the bubble's root runs
// them in one pass, in heap order (runtime/synctest.go synctestRun,
// runtime/time.go timers.check), but a goroutine readied by an early
// timer of the pass can be stolen by another P (runtime/proc.go runqgrab)
// and run before a later timer of the pass fires. Two hundred AfterFuncs
// due at that instant, heaped after the two timers that race, make the
// pass long enough for it to show at GOMAXPROCS 2 and more; at
// GOMAXPROCS 1 no goroutine runs during the pass. The Plain tests are
// the conformance corpus's TestSynctestTickerStoppedByAfterFunc and
// TestSynctestTickerResetVsReceive, where the pass is two timers long.
//
// Each test fails with its outcome; count them with
//
//	GOMAXPROCS=2 go test -count 1000 -run 'TestCrowdStop$' . | grep -c timeout
//
// This is not in the corpus: heddle fires the 200 timers in every
// order, far beyond the harness's budget.
package bubblepass

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// crowd starts a goroutine that, once every other goroutine of the
// bubble is blocked (the test waits on the ticker: its timer is heaped),
// arms n AfterFuncs due in d.
func crowd(n int, d time.Duration) {
	go func() {
		synctest.Wait()
		for i := 0; i < n; i++ {
			time.AfterFunc(d, func() {})
		}
	}()
}

func stopByAfterFunc(t *testing.T, n int) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		time.AfterFunc(time.Second, tk.Stop)
		crowd(n, time.Second)
		select {
		case <-tk.C:
			t.Errorf("tick")
		case <-time.After(2 * time.Second):
			t.Errorf("timeout")
		}
	})
}

func resetVsReceive(t *testing.T, n int) {
	synctest.Test(t, func(t *testing.T) {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		go func() {
			time.Sleep(time.Second)
			tk.Reset(time.Hour)
		}()
		synctest.Wait() // the sleeper's timer is heaped first
		crowd(n, time.Second)
		var got []string
		timeout := time.After(3 * time.Second)
		for len(got) < 2 {
			select {
			case <-tk.C:
				got = append(got, "tick")
			case <-timeout:
				got = append(got, "timeout", "")
			}
		}
		t.Errorf("%s", strings.Join(got, " "))
	})
}

// An AfterFunc stops a ticker at the instant of its first tick.
func TestPlainStop(t *testing.T) { stopByAfterFunc(t, 0) }
func TestCrowdStop(t *testing.T) { stopByAfterFunc(t, 200) }

// A sleeper resets a ticker to an hour at the instant of its tick.
func TestPlainReset(t *testing.T) { resetVsReceive(t, 0) }
func TestCrowdReset(t *testing.T) { resetVsReceive(t, 200) }
