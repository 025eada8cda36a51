package strategy_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// spinWait terminates under fair scheduling only: the waiter spins on an
// atomic flag with Gosched until the setter sets it.
func spinWait() {
	var flag int32
	rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&flag), 1) })
	for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
		rt.Gosched()
	}
}

func TestSpinningGoroutinesAreDeprioritized(t *testing.T) {
	for _, s := range []engine.Strategy{strategy.NewDFS(0), strategy.NewIPB(-1), strategy.NewIDB(-1), strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		res, _ := runAll(t, s, 10000, spinWait)
		for _, r := range res {
			if r.Bug != nil {
				t.Errorf("%T: %v", s, r.Bug.Message)
			}
		}
		if p, ok := s.(strategy.Prover); ok && p.Proven() == "" {
			t.Errorf("%T did not finish", s)
		}
	}
}

// TestContextErrPollingReachesDeadline: a goroutine that polls ctx.Err()
// until its deadline spins (the polls make no progress), so virtual time
// moves on and the deadline fires; a cancel from another goroutine may
// also end the loop. No strategy exceeds the step bound. (Each poll moves
// the clock by engine.PollTime; the deadline is within MaxStarve, so it
// may also fire early.)
func TestContextErrPollingReachesDeadline(t *testing.T) {
	body := func() {
		ctx, cancel := rt.WithTimeout(context.Background(), 50*time.Microsecond)
		rt.Go(func() {
			for ctx.Err() == nil {
			}
		})
		for ctx.Err() == nil {
		}
		cancel()
	}
	for _, s := range []engine.Strategy{strategy.NewDFS(0), strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		res, _ := runAll(t, s, 10000, body)
		for _, r := range res {
			if r.Bug != nil {
				t.Errorf("%T: %v", s, r.Bug.Message)
			}
		}
		if p, ok := s.(strategy.Prover); ok && p.Proven() == "" {
			t.Errorf("%T did not finish", s)
		}
		t.Logf("%T: %d runs", s, len(res))
	}
}

// unboundedExhaustive makes each exhaustive strategy with no bound: the
// spin tests check what each claims.
var unboundedExhaustive = map[string]func() engine.Strategy{
	"dfs":   func() engine.Strategy { return strategy.NewDFS(0) },
	"ipb":   func() engine.Strategy { return strategy.NewIPB(-1) },
	"idb":   func() engine.Strategy { return strategy.NewIDB(-1) },
	"sdpor": func() engine.Strategy { return strategy.NewSourceDPOR() },
	"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
}

// boundedPoll is TestGoschedSpin's loop (the conformance corpus): a
// goroutine loads a flag three times with a Gosched between while the
// test goroutine sets it, and stores what it saw last in *seen.
func boundedPoll(seen *bool) func() {
	return func() {
		var flag int32
		done := make(chan bool)
		rt.Go(func() {
			s := atomic.LoadInt32(rt.AtomicR(&flag)) != 0
			for i := 0; i < 2 && !s; i++ {
				rt.Gosched()
				s = atomic.LoadInt32(rt.AtomicR(&flag)) != 0
			}
			rt.Send(done, s)
		})
		rt.Gosched()
		atomic.StoreInt32(rt.AtomicW(&flag), 1)
		*seen = rt.Recv(done)
	}
}

// TestBoundedPollSpinBound: the exhaustive strategies leave the polling
// goroutine out after its second poll while the test goroutine can run,
// so the loop never ends before the store; they must say so (SpinBound),
// since their proof covers only the schedules within that bound. With
// engine.Config.KeepSpinners they leave nothing out and reach the loop's
// end before the store.
func TestBoundedPollSpinBound(t *testing.T) {
	for name, mk := range unboundedExhaustive {
		for _, keep := range []bool{false, true} {
			s := mk()
			var seen bool
			unseen := false
			body := boundedPoll(&seen)
			for run := 1; s.Begin(run); run++ {
				if run > 10000 {
					t.Fatalf("%s: exploration did not end within 10000 runs", name)
				}
				seen = false
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000, KeepSpinners: keep}, s, body)
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("%s: %v", name, r.Bug.Message)
				}
				unseen = unseen || !seen
			}
			if p, ok := s.(strategy.Prover); !ok || p.Proven() == "" {
				t.Errorf("%s (keep spinners %v) did not finish", name, keep)
			}
			b := s.(strategy.SpinBounder).SpinBound()
			switch {
			case keep && (b != 0 || !unseen):
				t.Errorf("%s keeping spinners: spin bound %d, loop ended before the store %v; want 0 and true", name, b, unseen)
			case !keep && !unseen && b == 0:
				t.Errorf("%s: the loop never ended before the store, and no spin bound said why", name)
			}
		}
	}
}
