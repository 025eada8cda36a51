package rt_test

import (
	"context"
	"os/exec"
	"testing"

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
