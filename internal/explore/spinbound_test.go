package explore_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/rt"
)

// TestSpinBoundChild is the test TestSpinBoundQualifiesClaim explores in a
// child process: TestGoschedSpin's loop (the conformance corpus), a
// goroutine that loads a flag three times with a Gosched between while
// the test goroutine sets it. Natively the loop sometimes ends before the
// store; heddle's spin heuristics keep the goroutine from running after
// its second poll while the test goroutine can.
func TestSpinBoundChild(t *testing.T) {
	if os.Getenv("HEDDLE_SPINBOUND_CHILD") == "" {
		t.Skip("run by TestSpinBoundQualifiesClaim")
	}
	rt.Explore(t, func(t *testing.T) {
		var flag int32
		done := make(chan bool)
		rt.Go(func() {
			seen := atomic.LoadInt32(rt.AtomicR(&flag)) != 0
			for i := 0; i < 2 && !seen; i++ {
				rt.Gosched()
				seen = atomic.LoadInt32(rt.AtomicR(&flag)) != 0
			}
			rt.Send(done, seen)
		})
		rt.Gosched()
		atomic.StoreInt32(rt.AtomicW(&flag), 1)
		rt.Recv(done)
	})
}

// TestSpinBoundQualifiesClaim: an exhaustive search that kept a polling
// goroutine from running does not claim every schedule (it claimed so, and
// missed the loop's end before the store: TestGoschedSpin's "seen false"),
// but the schedules within the spin bound, in the summary's SpinBound and
// Proven; with KeepSpinners (heddle test -keep-spinners) it claims every
// schedule.
func TestSpinBoundQualifiesClaim(t *testing.T) {
	for _, strat := range []string{"odpor", "sdpor", "dfs"} {
		for _, keep := range []bool{false, true} {
			sum := spinBoundSummary(t, strat, keep)
			if keep {
				if !sum.Exhausted || sum.SpinBound != 0 || !strings.HasPrefix(sum.Proven, "all schedules explored") {
					t.Errorf("%s, keeping spinners: exhausted %v, spin bound %d, proven %q; want every schedule claimed", strat, sum.Exhausted, sum.SpinBound, sum.Proven)
				}
				continue
			}
			const claim = "all schedules in which no goroutine polls more than 2 times in a row while another can run explored"
			if sum.Exhausted || sum.SpinBound != 2 || !strings.HasPrefix(sum.Proven, claim) {
				t.Errorf("%s: exhausted %v, spin bound %d, proven %q; want not exhausted, spin bound 2, proven %q", strat, sum.Exhausted, sum.SpinBound, sum.Proven, claim)
			}
		}
	}
}

// spinBoundSummary explores TestSpinBoundChild with strat in a child
// process and returns its summary.
func spinBoundSummary(t *testing.T, strat string, keep bool) *event.Event {
	t.Helper()
	evs := filepath.Join(t.TempDir(), "events.jsonl")
	cfg := explore.DefaultConfig()
	cfg.Strategy, cfg.Runs, cfg.Events, cfg.OutDir = strat, 1000, evs, t.TempDir()
	cfg.KeepSpinners = keep
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpinBoundChild$")
	cmd.Env = append(os.Environ(), "HEDDLE_SPINBOUND_CHILD=1", explore.EnvConfig+"="+string(b))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strat, err, out)
	}
	f, err := os.Open(evs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
	if sum == nil {
		t.Fatalf("%s: no summary", strat)
	}
	return sum
}

// TestSpinClaim: the words of a claim bounded by the spin bound.
func TestSpinClaim(t *testing.T) {
	for _, c := range []struct {
		proof string
		bound int
		want  string
	}{
		{"all schedules explored", 0, "all schedules explored"},
		{"all schedules explored", 4, "all schedules in which no goroutine polls more than 4 times in a row while another can run explored"},
		{"all schedules with ≤ 2 delays explored", 2, "all schedules with ≤ 2 delays in which no goroutine polls more than 2 times in a row while another can run explored"},
		{"all schedules in which no goroutine polls more than 2 times in a row while another can run explored", 2, "all schedules in which no goroutine polls more than 2 times in a row while another can run explored"},
		{"", 2, ""},
	} {
		if got := explore.SpinClaim(c.proof, c.bound); got != c.want {
			t.Errorf("SpinClaim(%q, %d) = %q, want %q", c.proof, c.bound, got, c.want)
		}
	}
}
