package explore

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata")

// verdictBugs are bugs of every kind with the messages the engine gives
// them (or, where it composes them from a run, messages of their shape).
var verdictBugs = []engine.Bug{
	{Kind: engine.KindDeadlock, Message: engine.DeadlockMessage},
	{Kind: engine.KindLeak, Message: "1 goroutine(s) blocked forever after the test returned"},
	{Kind: engine.KindPanic, Message: "runtime error: index out of range [3] with length 3"},
	{Kind: engine.KindFail, Message: "x_test.go:3: got 1, want 2"},
	{Kind: engine.KindStepLimit, Message: engine.StepLimitMessage(1000000, 0, 0)},
	{Kind: engine.KindStepLimit, Message: engine.TimeLimitMessage(10*time.Minute, 12)},
}

// TestVerdictLinesGolden keeps the first lines of reports and timing
// verdicts readable: a report's title and message, and a timing verdict's
// "the failure:" line. A timing verdict read "the failure: deadlock: all
// goroutines are blocked: deadlock".
func TestVerdictLinesGolden(t *testing.T) {
	var b strings.Builder
	for _, bug := range verdictBugs {
		b.WriteString("heddle: " + kindTitle(bug.Kind) + " in TestX\n  " + bug.Message + "\n")
		b.WriteString("heddle: TIMING-DEPENDENT TEST in TestX\n  " + timingMessage([]earlyFiring{{test: true, early: 10 * time.Millisecond}}, &bug) + "\n\n")
		failure := bug.Kind + ": " + bug.Message
		if strings.Count(failure, bug.Kind) > 1 {
			t.Errorf("the failure line of a %s repeats its kind: %q", bug.Kind, failure)
		}
	}
	for _, c := range []struct {
		what  string
		shown []earlyFiring
	}{
		{"the test's own timers", []earlyFiring{{test: true, early: 10 * time.Millisecond}}},
		{"a timer of the code", []earlyFiring{{test: true, early: 1}, {early: 5 * time.Millisecond}}},
		{"the test's own timer and a late wake", []earlyFiring{{test: true, early: 10 * time.Millisecond}, {late: true, early: 100 * time.Millisecond}}},
		{"a timer of the code and a late wake", []earlyFiring{{late: true, early: 100 * time.Millisecond}, {early: 1}}},
		{"late wakes only", []earlyFiring{{late: true, early: 100 * time.Millisecond}, {late: true, early: 100 * time.Millisecond}}},
	} {
		b.WriteString("timing verdict, " + c.what + ":\n" + timingHeader(c.shown) + ":\n" + timingMessage(c.shown, &verdictBugs[3]) + "\n\n")
	}
	golden := filepath.Join("testdata", "verdictlines.golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading the golden file (go test -run TestVerdictLinesGolden -update writes it): %v", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("verdict lines differ from %s (-update rewrites it after a deliberate change):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}
