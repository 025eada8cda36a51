package explore_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/rt"
)

// TestRunsCapChild is the test TestRunsCap explores in a child process:
// each run takes 20 ms of real time.
func TestRunsCapChild(t *testing.T) {
	if os.Getenv("HEDDLE_RUNSCAP_CHILD") == "" {
		t.Skip("run by TestRunsCap")
	}
	rt.Explore(t, func(t *testing.T) {
		var x int32
		rt.AtomicW(&x)
		time.Sleep(20 * time.Millisecond)
	})
}

// TestRunsCap: a budget of runs the user did not choose is bounded in
// time (Config.RunsCap): the test stops there, says so, and the summary
// marks it (Capped); a budget that fits is not marked. sony/gobreaker's
// TestCircuitBreakerInParallel took about 15 minutes for the default
// 1000 runs.
func TestRunsCap(t *testing.T) {
	for _, c := range []struct {
		runs       int
		cap        time.Duration
		wantCapped bool
	}{{100000, 300 * time.Millisecond, true}, {3, time.Minute, false}} {
		evs := filepath.Join(t.TempDir(), "events.jsonl")
		cfg := explore.DefaultConfig()
		cfg.Strategy, cfg.Runs, cfg.RunsCap, cfg.Events, cfg.OutDir = "random", c.runs, c.cap, evs, t.TempDir()
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunsCapChild$", "-test.v")
		cmd.Env = append(os.Environ(), "HEDDLE_RUNSCAP_CHILD=1", explore.EnvConfig+"="+string(b))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%d runs, bound %v: %v\n%s", c.runs, c.cap, err, out)
		}
		f, err := os.Open(evs)
		if err != nil {
			t.Fatal(err)
		}
		var sum *event.Event
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e event.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			if e.Action == event.Summary {
				sum = &e
			}
		}
		f.Close()
		if sum == nil {
			t.Fatalf("%d runs, bound %v: no summary", c.runs, c.cap)
		}
		said := strings.Contains(string(out), "at the default budget's bound of "+c.cap.String())
		if sum.Capped != c.wantCapped || said != c.wantCapped {
			t.Errorf("%d runs, bound %v: %d runs made, Capped %v, said so %v; want %v\n%s", c.runs, c.cap, sum.Runs, sum.Capped, said, c.wantCapped, out)
		}
		if c.wantCapped && sum.Runs >= c.runs {
			t.Errorf("%d runs, bound %v: made %d runs", c.runs, c.cap, sum.Runs)
		}
		if !c.wantCapped && sum.Runs != c.runs {
			t.Errorf("%d runs, bound %v: made %d runs", c.runs, c.cap, sum.Runs)
		}
	}
}
