//go:build race

package explore_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"heddle.dev/internal/explore"
	"heddle.dev/rt"
)

// TestErrorfRaceChild is the test TestErrorfRaceNamesCaller runs in a
// child process: a goroutine prints a map with t.Errorf (rewritten:
// rt.TB(t).Errorf) while the test goroutine writes it, unsynchronized.
func TestErrorfRaceChild(t *testing.T) {
	if os.Getenv("HEDDLE_ERRORF_RACE_CHILD") == "" {
		t.Skip("run by TestErrorfRaceNamesCaller")
	}
	rt.Explore(t, func(t *testing.T) {
		m := map[int]int{1: 1}
		done := make(chan bool)
		rt.Go(func() {
			rt.TB(t).Errorf("%v", m) // the racy print
			rt.Send(done, true)
		})
		rt.Gosched()
		m[100] = 1
		rt.Recv(done)
	})
}

// TestErrorfRaceNamesCaller: the race detector's report of fmt's read of a
// map inside t.Errorf, racing a write of another goroutine, names the
// line that called t.Errorf, as natively: heddle test -racy makes the
// lines its first phase's reports name scheduling points. Before, the
// run's Errorf was //go:norace, the race detector did not see it entered,
// and the report went from fmt's frames to the goroutine's start
// (a t.Errorf("%v", m) racing m[k] = v was "exhausted" in 2 runs, without
// the native prints).
func TestErrorfRaceNamesCaller(t *testing.T) {
	src, err := os.ReadFile("tprint_race_test.go")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// the racy print") {
			line = i + 1
			break
		}
	}
	cfg := explore.DefaultConfig()
	cfg.Strategy, cfg.Runs, cfg.OutDir = "random", 20, t.TempDir()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestErrorfRaceChild$")
	cmd.Env = append(os.Environ(), "HEDDLE_ERRORF_RACE_CHILD=1", explore.EnvConfig+"="+string(b))
	out, _ := cmd.CombinedOutput()
	_, report, ok := strings.Cut(string(out), "WARNING: DATA RACE")
	if !ok {
		t.Fatalf("no race reported:\n%s", out)
	}
	// The race report only, not heddle's report of the failing run.
	report, _, _ = strings.Cut(report, "==================")
	if want := "tprint_race_test.go:" + strconv.Itoa(line); !strings.Contains(report, want) {
		t.Errorf("the race report does not name the t.Errorf line %s:\n%s", want, report)
	}
}
