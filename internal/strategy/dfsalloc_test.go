package strategy_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// mallocCounter counts the heap allocations of its strategy's Choose.
type mallocCounter struct {
	engine.Strategy
	mallocs, pts  uint64
	before, after runtime.MemStats
}

func (m *mallocCounter) Choose(p *engine.Point) int {
	runtime.ReadMemStats(&m.before)
	j := m.Strategy.Choose(p)
	runtime.ReadMemStats(&m.after)
	m.mallocs += m.after.Mallocs - m.before.Mallocs
	m.pts++
	return j
}

// TestBoundedDFSChooseAllocatesNothing: DFS with a cost bound (IPB's
// and IDB's passes) allocates a node's array when it pushes one, and
// nothing else. Its Choose allocated the allowed choices, their
// round-robin order and their costs at every point, and grew the node's
// two slices one append at a time: seven allocations a point of two
// choices.
func TestBoundedDFSChooseAllocatesNothing(t *testing.T) {
	body := func() {
		var x atomic.Int64
		done := make(chan bool)
		for range 2 {
			rt.Go(func() {
				for range 200 {
					rt.AtomicW(&x).Add(1)
				}
				rt.Send(done, true)
			})
		}
		rt.Recv(done)
		rt.Recv(done)
	}
	for _, delay := range []bool{false, true} {
		d := strategy.NewBoundedDFS(delay, 2)
		m := &mallocCounter{Strategy: d}
		cfg := engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000}
		for run := 1; run <= 4; run++ {
			m.mallocs, m.pts = 0, 0
			if !d.Begin(run) {
				t.Fatalf("delay %v: the search ended after %d runs", delay, run-1)
			}
			d.End(engine.Run(cfg, m, body))
			if m.pts < 400 {
				t.Fatalf("delay %v, run %d: %d points, want the 400 atomics and more", delay, run, m.pts)
			}
			// The first run pushes a node at every point: its one
			// array, and the stack's growth. The next ones replay most of
			// the stack and push a few nodes, in the arrays of the nodes
			// End popped.
			want := 0.05
			if run == 1 {
				want = 1.1
			}
			if per := float64(m.mallocs) / float64(m.pts); per > want {
				t.Errorf("delay %v, run %d: %d allocations in %d points (%.2f a point), want at most %v", delay, run, m.mallocs, m.pts, per, want)
			}
		}
	}
}

// stackProbe calls probe before the run's End, with the nodes still on
// its DFS's stack.
type stackProbe struct {
	*strategy.DFS
	probe func()
}

func (s *stackProbe) End(r *engine.Result) { s.probe(); s.DFS.End(r) }

// TestDelayNodesHoldTheirChoicesOnly: a node of delay bounding holds the
// choices within the bound, not every choice. With 400 goroutines
// enabled at once, every node of IDB's first pass held two arrays of
// 400 ints (the order and costs of every choice, kept for the choice
// taken), 3.2 KB a point: pond's first IDB run reached the 2 GiB heap
// bound.
func TestDelayNodesHoldTheirChoicesOnly(t *testing.T) {
	body := func() {
		done := make(chan bool)
		for range 400 {
			rt.Go(func() { rt.Send(done, true) })
		}
		for range 400 {
			rt.Recv(done)
		}
	}
	for bound := 0; bound <= 2; bound++ {
		d := strategy.NewBoundedDFS(true, bound)
		var nodes, ints int
		s := &stackProbe{DFS: d}
		s.probe = func() { nodes, ints = strategy.NodeInts(d) }
		if !s.Begin(1) {
			t.Fatal("the search ended before its first run")
		}
		s.End(engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000}, s, body))
		if nodes < 400 {
			t.Fatalf("bound %d: %d nodes, want a node at each of the 400 sends and more", bound, nodes)
		}
		// Within a bound of b delays, a node keeps at most b+1 choices.
		if want := 2 * (bound + 1) * nodes; ints > want {
			t.Errorf("bound %d: %d nodes hold %d ints, want at most %d", bound, nodes, ints, want)
		}
	}
}
