package explore_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/rt"
)

// TestBoundRunsChild is the test TestSummaryCountsBoundRuns explores in a
// child process: a few hundred steps a run.
func TestBoundRunsChild(t *testing.T) {
	if os.Getenv("HEDDLE_BOUNDRUNS_CHILD") == "" {
		t.Skip("run by TestSummaryCountsBoundRuns")
	}
	rt.Explore(t, func(t *testing.T) {
		var x int32
		for i := 0; i < 300; i++ {
			rt.AtomicW(&x)
		}
	})
}

// TestSummaryCountsBoundRuns: the summary counts the runs the step bound
// ended, with steplimit disabled as cmd/realworld -speed disables it (each
// run then stops at the bound, unreported), and none when the runs end.
func TestSummaryCountsBoundRuns(t *testing.T) {
	for _, c := range []struct {
		limit, want int
	}{{100, 4}, {100000, 0}} {
		evs := filepath.Join(t.TempDir(), "events.jsonl")
		cfg := explore.DefaultConfig()
		cfg.Strategy, cfg.Runs, cfg.StepLimit, cfg.Events, cfg.OutDir = "random", 4, c.limit, evs, t.TempDir()
		cfg.Disable = []string{"steplimit"}
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestBoundRunsChild$")
		cmd.Env = append(os.Environ(), "HEDDLE_BOUNDRUNS_CHILD=1", explore.EnvConfig+"="+string(b))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("step bound %d: %v\n%s", c.limit, err, out)
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
			t.Fatalf("step bound %d: no summary", c.limit)
		}
		if sum.Runs != 4 || sum.BoundRuns != c.want {
			t.Errorf("step bound %d: summary of %d runs, %d ended by the bound; want 4 and %d", c.limit, sum.Runs, sum.BoundRuns, c.want)
		}
	}
}
