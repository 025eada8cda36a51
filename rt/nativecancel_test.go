package rt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A context's cancel function called by a goroutine heddle does not control
// (started before the run, as in init) cancels the context: the controlled
// goroutine waiting on Done wakes, and Err and Cause say so.
func TestCancelFromUncontrolledGoroutine(t *testing.T) {
	cancels := make(chan func(), 1)
	called := make(chan struct{})
	go func() {
		for cancel := range cancels {
			cancel()
			called <- struct{}{}
		}
	}()
	defer close(cancels)
	errBoom := errors.New("boom")
	causes := make(chan context.CancelCauseFunc, 1)
	go func() {
		for cancel := range causes {
			cancel(errBoom)
			called <- struct{}{}
		}
	}()
	defer close(causes)
	for run := 1; run <= 5; run++ {
		s := strategy.NewRandom(int64(run))
		s.Begin(run)
		var err, cause error
		res := engine.Run(engine.Config{}, s, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			defer cancel()
			cctx, ccancel := rt.WithCancelCause(context.Background())
			defer ccancel(nil)
			done := rt.MakeChan[chan struct{}](0)
			rt.Go(func() {
				rt.Recv(cctx.Done())
				rt.Close(done)
			})
			cancels <- cancel // native operations: the test's own code is not rewritten
			<-called
			causes <- ccancel
			<-called
			rt.Recv(ctx.Done())
			rt.Recv(done)
			err, cause = ctx.Err(), rt.Cause(cctx)
		})
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if err != context.Canceled || cause != errBoom {
			t.Fatalf("run %d: Err %v, Cause %v; want %v, %v", run, err, cause, context.Canceled, errBoom)
		}
	}
}

// TestNativeCancelChildrenAfterDone: a cancel called by a goroutine heddle
// does not control closes the context's Done and then cancels its
// children, as Go's cancelCtx.cancel does: a goroutine woken by the
// parent's Done may find the child not cancelled yet. The whole tree was
// cancelled in one step (cancelSplit fixed it for controlled goroutines
// only).
func TestNativeCancelChildrenAfterDone(t *testing.T) {
	cancels := make(chan func())
	called := make(chan struct{})
	go func() {
		for cancel := range cancels {
			cancel()
			called <- struct{}{}
		}
	}()
	defer close(cancels)
	strategies := map[string]func() engine.Strategy{
		"dfs":   func() engine.Strategy { return strategy.NewDFS(0) },
		"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
	}
	for name, mk := range strategies {
		s := mk()
		outcomes := map[string]bool{}
		for run := 1; s.Begin(run); run++ {
			if run > 1000 {
				t.Fatalf("%s did not finish within 1000 runs", name)
			}
			var out string
			res := engine.Run(engine.Config{Trace: true}, s, func() {
				parent, cancel := rt.WithCancel(context.Background())
				child, ccancel := rt.WithCancel(parent)
				defer ccancel()
				got := rt.MakeChan[chan string](0)
				rt.Go(func() {
					rt.Recv(parent.Done())
					rt.Send(got, fmt.Sprint(child.Err()))
				})
				cancels <- cancel // native operations: the test's own code is not rewritten
				<-called
				out = rt.Recv(got)
			})
			s.End(res)
			if res.Bug != nil {
				t.Fatalf("%s run %d: %s: %s", name, run, res.Bug.Kind, res.Bug.Message)
			}
			outcomes[out] = true
		}
		if want := "<nil> | context canceled"; keys(outcomes) != want {
			t.Errorf("%s: the child's Err seen by a goroutine woken by the parent's Done: %q; want %q", name, keys(outcomes), want)
		}
	}
}

// TestNativeCancelServedOverForeignChannels is TestNativeCancelChildrenAfterDone
// with the test's side rewritten: it sends the cancel to the goroutine
// started before the run, and waits for its answer, over channels made
// outside the run (foreign channels, which heddle probes). That goroutine
// cancels, then answers: the receive of the answer was ready at its
// announcement or only later, and the cancel applied at a pass before
// the answer or at the same one, depending on how fast that goroutine ran
// in real time. A run and its replay saw different choices (a divergence,
// conform's TestContextOutsideCancelChildOrder: "nondeterministic by
// itself" after 2 runs). The receive now settles (settleProbe) and a
// pending cancel waits for the foreign event (waitNativeCancel).
func TestNativeCancelServedOverForeignChannels(t *testing.T) {
	cancels := make(chan func())
	called := make(chan struct{})
	go func() {
		for cancel := range cancels {
			cancel()
			called <- struct{}{}
		}
	}()
	defer close(cancels)
	strategies := map[string]func() engine.Strategy{
		"dfs":   func() engine.Strategy { return strategy.NewDFS(0) },
		"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
	}
	for _, name := range []string{"dfs", "odpor"} {
		s := strategies[name]()
		outcomes := map[string]bool{}
		for run := 1; s.Begin(run); run++ {
			if run > 1000 {
				t.Fatalf("%s did not finish within 1000 runs", name)
			}
			var out string
			res := engine.Run(engine.Config{Trace: true, NativePartners: true}, s, func() {
				parent, cancel := rt.WithCancel(context.Background())
				child, ccancel := rt.WithCancel(parent)
				defer ccancel()
				got := rt.MakeChan[chan string](0)
				rt.Go(func() {
					rt.Recv(parent.Done())
					rt.Send(got, fmt.Sprint(child.Err()))
				})
				rt.Send(cancels, func() { cancel() })
				rt.Recv(called)
				out = rt.Recv(got)
			})
			s.End(res)
			if res.Bug != nil {
				t.Fatalf("%s run %d: %s: %s", name, run, res.Bug.Kind, res.Bug.Message)
			}
			outcomes[out] = true
		}
		if want := "<nil> | context canceled"; keys(outcomes) != want {
			t.Errorf("%s: the child's Err seen by a goroutine woken by the parent's Done: %q; want %q", name, keys(outcomes), want)
		}
	}
}
