package rt_test

import (
	"context"
	"fmt"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Two AfterFuncs of one context, the first to run stops the other
// (conformance program TestContextAfterFuncStopInsideOther). Go's cancel
// starts them one by one, so a's f can stop b before the cancel reaches it
// (stop true, b never runs): 1 native run in 7,669. heddle started both in
// the cancel's one step, and its search claimed every schedule without
// that outcome. The search must reach it, and claim (no Detaches).
func TestContextAfterFuncStopsSiblingBeforeItStarts(t *testing.T) {
	dfs := strategy.NewDFS(0)
	seen := map[string]bool{}
	for run := 1; dfs.Begin(run); run++ {
		if run > 50000 {
			t.Fatal("DFS did not finish within 50000 runs")
		}
		var out string
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			res := rt.MakeChan[chan string](2)
			var stopA, stopB func() bool
			stopA = rt.ContextAfterFunc(ctx, func() { rt.Send(res, fmt.Sprintf("a stops b %v", stopB())) })
			stopB = rt.ContextAfterFunc(ctx, func() { rt.Send(res, fmt.Sprintf("b stops a %v", stopA())) })
			cancel()
			out = rt.Recv(res)
			if out == "a stops b false" || out == "b stops a false" {
				out += "; " + rt.Recv(res)
			}
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if res.Detaches != 0 {
			t.Errorf("run %d: Detaches %d, want 0: every order is explored", run, res.Detaches)
		}
		seen[out] = true
	}
	for _, want := range []string{"a stops b true", "b stops a true", "a stops b false; b stops a false", "b stops a false; a stops b false"} {
		if !seen[want] {
			t.Errorf("outcome %q not reached; reached %v", want, seen)
		}
	}
}

// The canceller's cancel returns only once it has started every AfterFunc:
// a stop after it always returns false, as in Go.
func TestContextCancelReturnsAfterAllAfterFuncsStarted(t *testing.T) {
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 50000 {
			t.Fatal("DFS did not finish within 50000 runs")
		}
		var stopped string
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			stops := []func() bool{
				rt.ContextAfterFunc(ctx, func() {}),
				rt.ContextAfterFunc(ctx, func() {}),
				rt.ContextAfterFunc(ctx, func() {}),
			}
			cancel()
			for i, stop := range stops {
				if stop() {
					stopped += fmt.Sprint(i)
				}
			}
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if stopped != "" {
			t.Errorf("run %d: stops %s returned true after cancel returned", run, stopped)
		}
	}
}

// One AfterFunc, a goroutine cancels, the test waits for Done and stops
// it (conformance program TestAfterFuncStopAfterDone). Go's cancel closes
// Done before it starts the AfterFunc, so the stop may come between and
// return true (11 native runs in 6,585). heddle started a lone AfterFunc
// in the cancel's step, so a stop after Done always returned false. And
// with the cancel on the test's goroutine, a stop after it returned is
// false, as in Go.
func TestContextAfterFuncStopAfterDoneBeforeItStarts(t *testing.T) {
	for _, aside := range []bool{true, false} {
		dfs := strategy.NewDFS(0)
		seen := map[bool]bool{}
		for run := 1; dfs.Begin(run); run++ {
			if run > 50000 {
				t.Fatal("DFS did not finish within 50000 runs")
			}
			var stopped bool
			res := engine.Run(engine.Config{}, dfs, func() {
				ctx, cancel := rt.WithCancel(context.Background())
				ran := rt.MakeChan[chan bool](1)
				stop := rt.ContextAfterFunc(ctx, func() { rt.Send(ran, true) })
				if aside {
					rt.Go(cancel)
				} else {
					cancel()
				}
				rt.Recv(ctx.Done())
				if stopped = stop(); !stopped {
					rt.Recv(ran)
				}
			})
			dfs.End(res)
			if res.Bug != nil {
				t.Fatalf("aside %v, run %d: %s: %s", aside, run, res.Bug.Kind, res.Bug.Message)
			}
			if res.Detaches != 0 {
				t.Errorf("aside %v, run %d: Detaches %d, want 0", aside, run, res.Detaches)
			}
			seen[stopped] = true
		}
		if want := map[bool]bool{true: aside, false: true}; seen[true] != want[true] || !seen[false] {
			t.Errorf("cancel aside %v: stop's results %v, want true %v and false", aside, seen, aside)
		}
	}
}

// Two goroutines stop one AfterFunc: either may be the one whose stop
// returns true (Go's afterFuncCtx.once). The stops were reads of the
// context, independent of each other to the search, which then explored
// one order only.
func TestContextAfterFuncTwoStoppersEitherWins(t *testing.T) {
	s := strategy.NewOptimalDPOR()
	seen := map[string]bool{}
	for run := 1; s.Begin(run); run++ {
		if run > 1000 {
			t.Fatal("not exhausted within 1000 runs")
		}
		var out string
		res := engine.Run(engine.Config{Trace: true}, s, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			defer cancel()
			stop := rt.ContextAfterFunc(ctx, func() {})
			res := rt.MakeChan[chan string](2)
			for _, name := range []string{"a", "b"} {
				rt.Go(func() {
					if stop() {
						rt.Send(res, name)
					} else {
						rt.Send(res, "")
					}
				})
			}
			out = rt.Recv(res) + rt.Recv(res)
		})
		s.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		seen[out] = true
	}
	if !seen["a"] || !seen["b"] || len(seen) != 2 {
		t.Errorf("winners %v, want a and b", seen)
	}
}
