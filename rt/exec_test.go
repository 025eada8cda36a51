package rt_test

import (
	"context"
	"os/exec"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A command run under a context another goroutine cancels: the cancel may
// come before Start (Run returns the context's error) or while the process
// runs (package exec kills it), as natively; Run does not start the
// process atomically with the test's earlier code.
func TestExecRunRacesCancel(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	outcomes, bugs, _ := exhaust(t, func() string {
		ctx, cancel := rt.WithCancel(context.Background())
		defer cancel()
		rt.Go(func() { cancel() })
		err := rt.ExecRun(exec.CommandContext(ctx, "sleep", "0.2"))
		if err == nil {
			return "<nil>"
		}
		return err.Error()
	})
	if len(bugs) != 0 {
		t.Fatalf("bugs %v", bugs)
	}
	for _, want := range []string{"context canceled", "signal: killed"} {
		if !outcomes[want] {
			t.Errorf("outcomes %s: no %q", keys(outcomes), want)
		}
	}
}

// A command made by exec.Command has no context to read: Run takes no
// step.
func TestExecRunWithoutContext(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("no true command")
	}
	outcomes, bugs, runs := exhaust(t, func() string {
		err := rt.ExecRun(exec.Command("true"))
		if err == nil {
			return "<nil>"
		}
		return err.Error()
	})
	if len(bugs) != 0 || keys(outcomes) != "<nil>" || runs != 1 {
		t.Errorf("outcomes %s, bugs %v, %d runs", keys(outcomes), bugs, runs)
	}
}

// A cancel that comes between Start and Wait, while the process runs, makes
// Wait's result depend on when the kill lands (natively `signal: killed`,
// the context's error or nil): the run says it depended on something
// outside heddle's control (Result.Detaches), so the search makes no claim.
// A cancel after Wait returned does not.
func TestExecWaitAfterCancelIsOutside(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("no true command")
	}
	dfs := strategy.NewDFS(0)
	seen := map[string]bool{}
	for run := 1; dfs.Begin(run); run++ {
		if run > 100 {
			t.Fatal("DFS did not finish within 100 runs")
		}
		var order string
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			c := exec.CommandContext(ctx, "true")
			if err := rt.ExecStart(c); err != nil {
				order = "start failed"
				return
			}
			done := rt.MakeChan[chan bool](1)
			rt.Go(func() { cancel(); rt.Send(done, true) })
			rt.ExecWait(c)
			// A native poll, no step: was the context cancelled before
			// Wait returned?
			select {
			case <-ctx.Done():
				order = "cancel first"
			default:
				order = "wait first"
			}
			rt.Recv(done)
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		seen[order] = true
		if order == "cancel first" && res.Detaches == 0 {
			t.Errorf("run %d: the cancel came while the process ran, and the run does not say so (Detaches 0)", run)
		}
	}
	if !seen["cancel first"] {
		t.Errorf("orders %v: the cancel never came before the Wait", seen)
	}
}

// A command whose context was cancelled before Output started it did not
// run: Output's error is the context's, a schedule's outcome, and the run
// makes its claim; one cancelled while Output waited did run, and the run
// says its result is the operating system's.
func TestExecOutputCancelledBeforeStartIsNotOutside(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("no true command")
	}
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 100 {
			t.Fatal("DFS did not finish within 100 runs")
		}
		var err error
		res := engine.Run(engine.Config{}, dfs, func() {
			ctx, cancel := rt.WithCancel(context.Background())
			cancel()
			_, err = rt.ExecOutput(exec.CommandContext(ctx, "true"))
		})
		dfs.End(res)
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
		if err == nil || err.Error() != "context canceled" || res.Detaches != 0 {
			t.Errorf("run %d: err %v, Detaches %d: want the context's error and no detach", run, err, res.Detaches)
		}
	}
}
