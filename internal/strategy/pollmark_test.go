package strategy_test

import (
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// pollUntil is TestGoschedSpinUntil's loop (the conformance corpus) as the
// rewriter writes it: a goroutine polls a flag with a Gosched between
// until the test goroutine sets it. marked: the rewriter's marking of a
// loop whose iterations but the last change nothing (rt.PollR,
// rt.PollGosched); else the plain steps, as for a loop it cannot mark.
func pollUntil(marked bool, order *[]string) func() {
	return func() {
		var flag int32
		done := make(chan bool)
		rt.Go(func() {
			if marked {
				for again := false; atomic.LoadInt32(rt.PollR(again, &flag)) == 0; again = true {
					rt.PollGosched(again)
				}
			} else {
				for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
					rt.Gosched()
				}
			}
			*order = append(*order, "poller")
			rt.Send(done, true)
		})
		rt.Gosched()
		atomic.StoreInt32(rt.AtomicW(&flag), 1)
		rt.Gosched()
		*order = append(*order, "setter")
		rt.Recv(done)
	}
}

// TestMarkedPollLoopNotBounded: the exhaustive strategies leave a polling
// goroutine out after a few polls while another can run; at an operation
// of a marked poll loop's second or later iteration that leaves out no
// outcome (internal/engine/spinmark.go), so the search claims every
// schedule (SpinBound 0) and still reaches both orders of the poller's end
// and the setter's next step (the poller first: its loop starts after the
// store); the same loop unmarked bounds the claim.
func TestMarkedPollLoopNotBounded(t *testing.T) {
	for name, mk := range unboundedExhaustive {
		for _, marked := range []bool{true, false} {
			s := mk()
			var order []string
			firsts := map[string]bool{}
			drops := 0
			body := pollUntil(marked, &order)
			for run := 1; s.Begin(run); run++ {
				if run > 10000 {
					t.Fatalf("%s: exploration did not end within 10000 runs", name)
				}
				order = order[:0]
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("%s: %v", name, r.Bug.Message)
				}
				drops += r.SpinDrops
				if len(order) > 0 {
					firsts[order[0]] = true
				}
			}
			if p, ok := s.(strategy.Prover); !ok || p.Proven() == "" {
				t.Errorf("%s (marked %v) did not finish", name, marked)
			}
			b := s.(strategy.SpinBounder).SpinBound()
			if !firsts["setter"] || !firsts["poller"] {
				t.Errorf("%s (marked %v): went on first: %v, want both", name, marked, firsts)
			}
			switch {
			case marked && (b != 0 || drops != 0):
				t.Errorf("%s, marked loop: spin bound %d, engine drops counted %d; want 0 and 0", name, b, drops)
			case !marked && b == 0 && drops == 0:
				t.Errorf("%s, unmarked loop: no spin bound", name)
			}
			t.Logf("%s marked %v: spin bound %d, engine drops %d, first %v", name, marked, b, drops, firsts)
		}
	}
}
