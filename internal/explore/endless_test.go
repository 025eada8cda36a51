package explore

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
)

// A run whose goroutine computes without end, reaching no scheduling
// point, is reported, its goroutine ended at its next call into heddle,
// and the exploration goes on to its end: heddle waited for it for ever
// (the watchdog takes a computing goroutine for a slow one), until go
// test's -timeout killed the test binary after ten minutes, with every
// other test's result (gocron's catch-up loops, before reads of the clock
// were bounded by engine.MaxReadStep; TestScheduler_OneTimeJob's loop
// over a one-time job's past times does not end natively either).
func TestEndlessComputationIsReported(t *testing.T) {
	if os.Getenv("HEDDLE_TEST_ENDLESS") == "1" {
		Test(t, func(t *testing.T) {
			for {
				// As rt.Now: a call into heddle that takes no step.
				engine.Current().Now()
			}
		})
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cfg := DefaultConfig()
	cfg.Strategy, cfg.Runs, cfg.Budget = "random", 1, "1"
	cfg.RunTimeout = 200 * time.Millisecond
	cfg.OutDir = t.TempDir()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HEDDLE_TEST_ENDLESS=1", EnvConfig+"="+string(b))
	out, runErr, timedOut, err := runChild(exe, []string{"-test.run=^TestEndlessComputationIsReported$", "-test.v"}, env, 2*time.Minute, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if timedOut {
		t.Fatalf("the exploration did not end within 2m:\n%s", out)
	}
	if runErr == nil {
		t.Errorf("the child passed; want its test failed with the report:\n%s", out)
	}
	for _, want := range []string{"ENDLESS COMPUTATION", "without reaching a scheduling point"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in the report:\n%s", want, out)
		}
	}
}
