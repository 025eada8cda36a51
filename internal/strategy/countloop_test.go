package strategy_test

import (
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// spinCounted is TestGoschedSpin's loop (the conformance corpus) as the
// rewriter writes it: a goroutine loads a flag up to three times, with a
// Gosched between, and reports whether it saw it set. counted: the
// rewriter's marking of a loop of at most two trips, two polls each
// (rt.CountGosched, rt.CountR with bound 4); else the plain steps, as
// before counted loops were marked.
func spinCounted(counted bool, seen *bool) func() {
	return func() {
		var flag int32
		res := make(chan bool)
		rt.Go(func() {
			s := atomic.LoadInt32(rt.AtomicR(&flag)) != 0
			for i := 0; i < 2 && !s; i++ {
				if counted {
					rt.CountGosched(4)
					s = atomic.LoadInt32(rt.CountR(4, &flag)) != 0
				} else {
					rt.Gosched()
					s = atomic.LoadInt32(rt.AtomicR(&flag)) != 0
				}
			}
			rt.Send(res, s)
		})
		rt.Gosched()
		atomic.StoreInt32(rt.AtomicW(&flag), 1)
		*seen = rt.Recv(res)
	}
}

// TestCountedLoopExplored: the exhaustive strategies leave a polling
// goroutine out after a few polls while another can run, which hid
// TestGoschedSpin's "seen false" (the loop ends before the store) behind
// the spin bound. A counted loop's operations are not left out before
// the loop's bound of polls (internal/engine/spincount.go): the search
// reaches both outcomes and claims every schedule (SpinBound 0, no
// engine drop counted). The same loop unmarked bounds the claim.
func TestCountedLoopExplored(t *testing.T) {
	for name, mk := range unboundedExhaustive {
		for _, counted := range []bool{true, false} {
			s := mk()
			outcomes := map[bool]bool{}
			drops := 0
			var seen bool
			body := spinCounted(counted, &seen)
			for run := 1; s.Begin(run); run++ {
				if run > 10000 {
					t.Fatalf("%s: exploration did not end within 10000 runs", name)
				}
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("%s: %v", name, r.Bug.Message)
				}
				drops += r.SpinDrops
				outcomes[seen] = true
			}
			if p, ok := s.(strategy.Prover); !ok || p.Proven() == "" {
				t.Errorf("%s (counted %v) did not finish", name, counted)
			}
			b := s.(strategy.SpinBounder).SpinBound()
			if counted {
				if b != 0 || drops != 0 {
					t.Errorf("%s, counted loop: spin bound %d, engine drops counted %d; want 0 and 0", name, b, drops)
				}
				if !outcomes[false] || !outcomes[true] {
					t.Errorf("%s, counted loop: outcomes %v, want seen false and seen true", name, outcomes)
				}
			} else if b == 0 && drops == 0 {
				t.Errorf("%s, unmarked loop: no spin bound", name)
			}
			t.Logf("%s counted %v: spin bound %d, engine drops %d, outcomes %v", name, counted, b, drops, outcomes)
		}
	}
}

// TestCountedLoopInSpinBounded: a counted loop inside a loop that polls
// without end (until the flag is set) is still part of a spin: each entry
// of the inner loop polls again, the streak grows past the inner loop's
// bound, and the goroutine is dropped then, so the search ends, and the
// drop bounds its claim (engine/spincount.go).
func TestCountedLoopInSpinBounded(t *testing.T) {
	for name, mk := range map[string]func() engine.Strategy{
		"dfs":   func() engine.Strategy { return strategy.NewDFS(0) },
		"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
	} {
		s := mk()
		body := func() {
			var flag int32
			done := make(chan bool)
			rt.Go(func() {
				for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
					for i := 0; i < 3; i++ {
						rt.CountGosched(3)
					}
				}
				rt.Send(done, true)
			})
			rt.Gosched()
			atomic.StoreInt32(rt.AtomicW(&flag), 1)
			rt.Recv(done)
		}
		drops, runs := 0, 0
		for run := 1; s.Begin(run); run++ {
			if run > 10000 {
				t.Fatalf("%s: exploration did not end within 10000 runs", name)
			}
			r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
			s.End(r)
			if r.Bug != nil {
				t.Fatalf("%s: %v", name, r.Bug.Message)
			}
			drops += r.SpinDrops
			runs = run
		}
		b := s.(strategy.SpinBounder).SpinBound()
		if b == 0 && drops == 0 {
			t.Errorf("%s: a counted loop inside a spin: no spin bound (%d runs)", name, runs)
		}
		t.Logf("%s: %d runs, spin bound %d, engine drops %d", name, runs, b, drops)
	}
}
