package rt_test

import (
	"runtime"
	"sync"
	"testing"
	"weak"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// heavy is an object a run synchronises on, and drops.
type heavy struct {
	mu   sync.Mutex
	rw   sync.RWMutex
	wg   sync.WaitGroup
	ch   chan int
	data [1 << 16]byte
}

// useAndDrop synchronises on n new objects in every way a run can, and
// returns weak pointers to them.
func useAndDrop(n int) []weak.Pointer[heavy] {
	var ws []weak.Pointer[heavy]
	for i := 0; i < n; i++ {
		h := &heavy{ch: rt.MakeChan[chan int](1)}
		rt.MutexLock(&h.mu)
		rt.MutexUnlock(&h.mu)
		rt.RWRLock(&h.rw)
		rt.RWRUnlock(&h.rw)
		rt.WaitGroupAdd(&h.wg, 1)
		rt.Go(func() {
			rt.Send(h.ch, 1)
			rt.WaitGroupDone(&h.wg)
		})
		rt.WaitGroupWait(&h.wg)
		rt.Recv(h.ch)
		h.data[i] = 1
		ws = append(ws, weak.Make(h))
	}
	return ws
}

// TestRunObjectsCollectable checks that the objects a run synchronised on
// and dropped are collected within the run, as they are natively
// (go-deadlock's TestOrderMapGC measures the heap after runtime.GC): the
// engine's shadow state must not keep them reachable, whether the run is
// recorded (a replay, a report) and traced for a strategy (POS builds its
// events from the trace) or not. The last object may still be named by
// the goroutine's last operation, as a native goroutine's stack may still
// hold it; the others must be gone.
func TestRunObjectsCollectable(t *testing.T) {
	const n = 20
	for _, tc := range []struct {
		name   string
		record bool
		s      engine.Strategy
	}{
		{"random", false, strategy.NewRandom(1)},
		{"recorded", true, strategy.NewRandom(1)},
		{"pos", false, strategy.NewPOS(1)},
	} {
		alive := -1
		tc.s.Begin(1)
		res := engine.Run(engine.Config{Record: tc.record, Trace: tc.record || tc.name == "pos"}, tc.s, func() {
			ws := useAndDrop(n)
			runtime.GC()
			runtime.GC()
			alive = 0
			for _, w := range ws[:n-1] {
				if w.Value() != nil {
					alive++
				}
			}
		})
		if res.Bug != nil {
			t.Fatalf("%s: %s", tc.name, res.Bug.Message)
		}
		if alive != 0 {
			t.Errorf("%s: %d of the %d objects the run dropped are still reachable after runtime.GC", tc.name, alive, n-1)
		}
	}
}
