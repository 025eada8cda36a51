package explore

import (
	"testing"
	"time"
)

// TestReportDeadline checks that the replays that build a report get what
// is left of a time budget, a little more when that is little, and never
// more than a fortieth of the budget past its end.
func TestReportDeadline(t *testing.T) {
	t0 := time.Unix(1000, 0)
	budget := 40 * time.Second
	deadline := t0.Add(budget)
	for _, c := range []struct {
		now     time.Duration // since t0
		lastRun time.Duration
		want    time.Duration // since t0
	}{
		{10 * time.Second, time.Millisecond, budget},                        // what is left
		{39900 * time.Millisecond, time.Millisecond, 41 * time.Second},      // a twentieth from now, cut at a fortieth past
		{39 * time.Second, 0, 41 * time.Second},                             // the same
		{38 * time.Second, 0, 40 * time.Second},                             // two seconds left: enough
		{39800 * time.Millisecond, 5 * time.Second, 41 * time.Second},       // ten times a long run, cut too
		{41 * time.Second, time.Millisecond, 41 * time.Second},              // found past the end (a run's grace)
		{10 * time.Second, time.Hour, budget},                               // a long run: what is left
		{39950 * time.Millisecond, 10 * time.Millisecond, 41 * time.Second}, // never less than the end
	} {
		got := reportDeadline(t0.Add(c.now), deadline, budget, c.lastRun).Sub(t0)
		if got != c.want {
			t.Errorf("found at %v (last run %v): report deadline %v, want %v", c.now, c.lastRun, got, c.want)
		}
	}
}

// TestReplayDeadline checks that the recorded replay of a report gets at
// least five times the run that found the bug, at most 30 s.
func TestReplayDeadline(t *testing.T) {
	t0 := time.Unix(1000, 0)
	report := t0.Add(time.Second)
	for _, c := range []struct {
		lastRun time.Duration
		want    time.Duration // since t0
	}{
		{time.Millisecond, time.Second},       // the report's deadline
		{time.Second, 5 * time.Second},        // five times the run
		{time.Minute, 30 * time.Second},       // at most 30 s
		{150 * time.Millisecond, time.Second}, // 0.75 s: the report's
	} {
		if got := replayDeadline(t0, report, c.lastRun).Sub(t0); got != c.want {
			t.Errorf("last run %v: replay deadline %v, want %v", c.lastRun, got, c.want)
		}
	}
}
