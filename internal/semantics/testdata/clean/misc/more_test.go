package misc

import (
	"runtime"
	"testing"
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
