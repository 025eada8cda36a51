package misc

import (
	"runtime"
	"sync"
	"testing"
	"testing/quick"
	"time"
)

func TestGOMAXPROCS(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 1 {
		t.Fatal("GOMAXPROCS")
	}
}

// finJanitor is stopped by the finalizer of the handle that wraps its
// state (go-cache's janitor): it is no leak once the handle is collected.
type finJanitor struct{ stop chan bool }

type finHandle struct{ j *finJanitor }

func newFinHandle() *finHandle {
	j := &finJanitor{stop: make(chan bool)}
	go func() {
		for {
			select {
			case <-j.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	h := &finHandle{j: j}
	runtime.SetFinalizer(h, func(h *finHandle) { h.j.stop <- true })
	return h
}

func TestSetFinalizer(t *testing.T) {
	h := newFinHandle()
	_ = h
}

// A testing/quick check whose inputs decide how many goroutines run: with
// a nil Config, quick seeds its generator from the wall clock, and heddle
// seeds it from the run instead, so that the test is explorable.
func TestQuickCheckEqual(t *testing.T) {
	par := func(xs []int8) int {
		var mu sync.Mutex
		var wg sync.WaitGroup
		total := 0
		for _, x := range xs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				total += int(x)
				mu.Unlock()
			}()
		}
		wg.Wait()
		return total
	}
	seq := func(xs []int8) int {
		total := 0
		for _, x := range xs {
			total += int(x)
		}
		return total
	}
	if err := quick.CheckEqual(par, seq, &quick.Config{MaxCount: 10}); err != nil {
		t.Error(err)
	}
}
