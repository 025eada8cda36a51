package prog

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// Poll loops beside TestGoschedSpin (fid7.go), for the spin bound: heddle
// keeps a goroutine that polled a few times in a row without progress from
// running while another can (engine's dropSpinners, the strategies'
// spinTracker), which ends spin loops fast but also hides the end of a
// loop that polls a bounded number of times. An exhaustive search then
// claims only the schedules in which no goroutine polls more than a few
// times in a row ("exhausted up to the spin bound"); heddle test
// -keep-spinners explores the others.

// TestGoschedSpinTen: TestGoschedSpin's loop with ten rounds: a
// goroutine loads a flag up to eleven times, with a Gosched between,
// before it reports what it saw.
func TestGoschedSpinTen(t *testing.T) {
	var flag atomic.Bool
	res := make(chan bool)
	go func() {
		seen := flag.Load()
		for i := 0; i < 10 && !seen; i++ {
			runtime.Gosched()
			seen = flag.Load()
		}
		res <- seen
	}()
	runtime.Gosched()
	flag.Store(true)
	t.Errorf("seen %v", <-res)
}

// TestGoschedSpinOnce: TestGoschedSpin's loop with one round (two loads):
// within the spin bound, so heddle's exhaustive search reaches both
// outcomes and claims every schedule.
func TestGoschedSpinOnce(t *testing.T) {
	var flag atomic.Bool
	res := make(chan bool)
	go func() {
		seen := flag.Load()
		for i := 0; i < 1 && !seen; i++ {
			runtime.Gosched()
			seen = flag.Load()
		}
		res <- seen
	}()
	runtime.Gosched()
	flag.Store(true)
	t.Errorf("seen %v", <-res)
}

// TestGoschedSpinUntil: a loop that polls until the flag is set, without
// bound: every schedule ends the same way, and heddle's search must cut
// the loop short (a handful of runs), not run it to the step bound.
func TestGoschedSpinUntil(t *testing.T) {
	var flag atomic.Bool
	done := make(chan bool)
	go func() {
		for !flag.Load() {
			runtime.Gosched()
		}
		done <- true
	}()
	runtime.Gosched()
	flag.Store(true)
	t.Errorf("done %v", <-done)
}
