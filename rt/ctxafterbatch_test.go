package rt_test

import (
	"context"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Two AfterFuncs of one context, the first to run stops the other
// (conformance program TestContextAfterFuncStopInsideOther). Go's cancel
// starts them one by one, so a's f can stop b before the cancel reaches it
// (stop true, b never runs); heddle starts both in the cancel's one step,
// and stop always returns false. A run whose stop returned false so must
// make no claim (Result.Detaches), or the search claims every schedule
// while missing the native outcome.
func TestContextAfterFuncBatchStopMakesNoClaim(t *testing.T) {
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 200 {
			t.Fatal("DFS did not finish within 200 runs")
		}
		var stopped bool
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			done := rt.MakeChan[chan bool](2)
			var stopB func() bool
			rt.ContextAfterFunc(ctx, func() {
				stopped = stopB()
				rt.Send(done, true)
			})
			stopB = rt.ContextAfterFunc(ctx, func() { rt.Send(done, true) })
			cancel()
			rt.Recv(done)
			if !stopped {
				rt.Recv(done)
			}
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if !stopped && res.Detaches == 0 {
			t.Errorf("run %d: a's stop of b returned false after a cancel that started both in one step, and the run makes its claim (Detaches 0)", run)
		}
	}
}

// A single AfterFunc stopped after the cancel started it: no sibling could
// have come first, the run keeps its claim.
func TestContextAfterFuncSingleStopKeepsClaim(t *testing.T) {
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 200 {
			t.Fatal("DFS did not finish within 200 runs")
		}
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			done := rt.MakeChan[chan bool](1)
			stop := rt.ContextAfterFunc(ctx, func() { rt.Send(done, true) })
			cancel()
			if !stop() {
				rt.Recv(done)
			}
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if res.Detaches != 0 {
			t.Errorf("run %d: Detaches %d, want 0", run, res.Detaches)
		}
	}
}
