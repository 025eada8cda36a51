package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/event"
)

// TestStillRunningReplay checks the line printed off a terminal for a long
// replay: it replays one schedule, so it has no runs or bugs to count
// ("still exploring: 0 runs" was printed).
func TestStillRunningReplay(t *testing.T) {
	for _, replaying := range []bool{false, true} {
		var out bytes.Buffer
		s := &syncWriter{w: &out, replaying: replaying}
		s.noteStart(event.Event{Test: "TestX"})
		s.lastWrite = time.Now().Add(-stillEvery - time.Second)
		s.stillRunning("example.com/m")
		got := out.String()
		want := "heddle: example.com/m TestX: still exploring: 0 runs, 0 bugs"
		if replaying {
			want = "heddle: example.com/m TestX: still replaying the schedule, "
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("replaying %v: printed %q, want it to start with %q", replaying, got, want)
		}
	}
}
