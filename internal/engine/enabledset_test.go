package engine

import (
	"context"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// newestFirst runs the goroutine made last among the enabled ones: a
// goroutine runs until it blocks as soon as it is made.
type newestFirst struct{}

func (newestFirst) Begin(int) bool { return true }
func (newestFirst) End(*Result)    {}
func (newestFirst) Choose(p *Point) int {
	best := 0
	for i, c := range p.Choices {
		if c.G != nil && (p.Choices[best].G == nil || c.G.Index > p.Choices[best].G.Index) {
			best = i
		}
	}
	return best
}

// finished starts n goroutines and waits until they have all returned:
// the run's list of goroutines then holds n finished ones.
func finished(e *Exec, n int) {
	var wg sync.WaitGroup
	e.WaitGroupAdd(unsafe.Pointer(&wg), n)
	for range n {
		e.Go(func() { e.WaitGroupAdd(unsafe.Pointer(&wg), -1) })
	}
	e.WaitGroupWait(unsafe.Pointer(&wg))
}

// TestContextStepsKeepEnabledSet checks that ctx.Err and a cancel, in a
// run with thousands of finished goroutines, recompute the choices of the
// goroutines they may change, not of every goroutine of the run. pond's
// Submit reads its pool's ctx.Err and resolves a future by cancelling a
// context, once per task: each made the engine recompute the choices of
// every goroutine the run had made (10,000 tasks, 119x native per run).
// The goroutines waiting on the cancelled contexts (directly, on a child
// or a grandchild, and through a select) must still be woken: the run
// would end in a deadlock otherwise.
func TestContextStepsKeepEnabledSet(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const n, iters = 2000, 300
	var rebuilds, visited, steps int
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, newestFirst{}, func() {
		e := Current()
		finished(e, n)
		root, cancelRoot := e.WithCancel(context.Background(), time.Time{}, nil)
		child, cancelChild := e.WithCancel(root, time.Time{}, nil)
		grand, cancelGrand := e.WithCancel(child, time.Time{}, nil)
		defer cancelChild(nil)
		defer cancelGrand(nil)
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), 2)
		e.Go(func() {
			e.Select([]ChanCase{&structRecv{ch: grand.Done()}}, false)
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		e.Go(func() {
			never := make(chan struct{})
			e.RegisterChan(chanAddr(never))
			e.Select([]ChanCase{&structRecv{ch: never}, &structRecv{ch: child.Done()}}, false)
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		r0, v0, s0 := e.es.rebuilds, e.es.visited, e.steps
		for range iters {
			k, cancel := e.WithCancel(root, time.Time{}, nil)
			if root.Err() != nil || k.Err() != nil {
				panic("cancelled too early")
			}
			cancel(nil)
			if k.Err() == nil {
				panic("not cancelled")
			}
		}
		rebuilds, visited, steps = e.es.rebuilds-r0, e.es.visited-v0, e.steps-s0
		cancelRoot(nil)
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if steps < 3*iters {
		t.Fatalf("only %d steps in the loop", steps)
	}
	t.Logf("%d steps: %d full passes, %d goroutines looked at", steps, rebuilds, visited)
	if rebuilds > 0 || visited > 4*steps {
		t.Errorf("%d steps of ctx.Err and cancel with %d finished goroutines: %d full passes over the goroutines, %d goroutines looked at (want none, and at most %d)",
			steps, n, rebuilds, visited, 4*steps)
	}
}

// TestRebuildSkipsFinished checks that a full pass over the goroutines
// looks at the finished ones once, not at every pass.
func TestRebuildSkipsFinished(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const n, iters = 2000, 300
	var rebuilds, visited int
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, firstChoice{}, func() {
		e := Current()
		finished(e, n)
		var x int64
		r0, v0 := e.es.rebuilds, e.es.visited
		for range iters {
			e.rebuildAll = true // as after a step whose effects are unknown
			e.Access(unsafe.Pointer(&x), OpAtomicWrite)
		}
		rebuilds, visited = e.es.rebuilds-r0, e.es.visited-v0
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if rebuilds < iters {
		t.Fatalf("%d full passes, want %d", rebuilds, iters)
	}
	t.Logf("%d full passes: %d goroutines looked at", rebuilds, visited)
	if visited > n+4*rebuilds {
		t.Errorf("%d full passes with %d finished goroutines looked at %d goroutines (want at most %d: each finished one once)", rebuilds, n, visited, n+4*rebuilds)
	}
}

// TestDeadlineKeepsEnabledSet checks that a context's deadline passing (the
// firing of its timer, which cancels it) updates the enabled set instead
// of rebuilding it, and wakes a goroutine waiting on its Done channel.
func TestDeadlineKeepsEnabledSet(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const n, iters = 2000, 100
	var rebuilds, steps int
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, newestFirst{}, func() {
		e := Current()
		finished(e, n)
		r0, s0 := e.es.rebuilds, e.steps
		for range iters {
			k, cancel := e.WithCancel(context.Background(), e.Now().Add(time.Millisecond), nil)
			done := make(chan struct{})
			e.RegisterChan(chanAddr(done))
			e.Go(func() {
				e.Select([]ChanCase{&structRecv{ch: k.Done()}}, false)
				e.Close(chanAddr(done), func() { close(done) })
			})
			e.Select([]ChanCase{&structRecv{ch: done}}, false)
			if k.Err() != context.DeadlineExceeded {
				panic("not past its deadline")
			}
			cancel(nil)
		}
		rebuilds, steps = e.es.rebuilds-r0, e.steps-s0
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	t.Logf("%d steps: %d full passes", steps, rebuilds)
	if rebuilds > 0 {
		t.Errorf("%d deadlines passed with %d finished goroutines: %d full passes over the goroutines (want none)", iters, n, rebuilds)
	}
}
