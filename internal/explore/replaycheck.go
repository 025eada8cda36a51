package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/schedule"
)

// notSettings are the fields of Config that are not exploration settings:
// what a replay sets itself (strategy, budget, where output goes) and the
// identity of the program, recorded in a schedule's own keys. Every other
// field is a setting that decides what a run does or what counts as a bug
// (the step bound, early timer firings, disabled kinds, leak filters, ...),
// recorded in schedules so that replay runs as the exploration did; a field
// added to Config is a setting unless it is listed here.
var notSettings = []string{
	"Strategy", "Runs", "Time", "Budget", "Seed", "KeepGoing", "OutDir",
	"Replay", "Verbose", "Events", "Unit", "Yield", "Serve", "FirstRun", "OneRun", "PackageTime", "Tests",
	"ReportRun", "Avoid", "AvoidLimit", "AvoidKeep", "AvoidTarget", "Deadline",
	"Main", "Args", "Output", "WorkDir", "Stdin",
	"Package", "Dir", "Version", "Fingerprint", "Files", "BuildFlags", "TestOnly",
}

// Settings returns the exploration settings of c as JSON, for a schedule.
func (c Config) Settings() string {
	m, err := settingsMap(c)
	if err != nil {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}

func settingsMap(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range notSettings {
		delete(m, k)
	}
	return m, nil
}

// ApplySettings sets the exploration settings recorded in a schedule
// (Settings) on c, leaving its other fields alone.
func (c *Config) ApplySettings(settings string) error {
	if settings == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(settings), &m); err != nil {
		return fmt.Errorf("bad settings: %v", err)
	}
	for _, k := range notSettings {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, c); err != nil {
		return fmt.Errorf("bad settings: %v", err)
	}
	return nil
}

// recordPlace adds to the schedule at path where the bug happened and at
// which step, from the recorded replay the report was built from: heddle
// replay says "reproduced" only when its run ends with the same bug at the
// same place and step.
func (x *explorer) recordPlace(path string, bug *engine.Bug, steps int) {
	s, err := readSchedule(path)
	if err != nil {
		return
	}
	s.Where, s.Steps = x.where(bug), steps
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := s.Write(f); err != nil {
		f.Close()
		return
	}
	f.Close()
}

// replayVerdict compares the replayed run with the recorded one and emits
// a replay event: Kind and Steps of what happened, and no Message when it
// was the recorded bug, at the same place and step; otherwise Message says
// how the replay diverged.
func (x *explorer) replayVerdict(s *schedule.Schedule, res *engine.Result, bug *engine.Bug) {
	e := event.Event{Action: event.Replayed, Steps: res.Steps}
	if bug != nil {
		e.Kind = bug.Kind
	}
	switch {
	case bug == nil:
		e.Message = fmt.Sprintf("the run ended after %d steps without the recorded %s", res.Steps, s.Kind)
	case bug.Kind == engine.KindNondeterminism && s.Kind != engine.KindNondeterminism:
		e.Message = fmt.Sprintf("the run left the recorded schedule (%s) instead of ending with the recorded %s", oneLine(bug.Message), s.Kind)
	case bug.Kind != s.Kind:
		e.Message = fmt.Sprintf("the run ended with a %s (%s) instead of the recorded %s", bug.Kind, oneLine(bug.Message), s.Kind)
	case s.Where != "" && !samePlace(x.where(bug), s.Where):
		e.Message = fmt.Sprintf("the run ended with a %s at %s, not at %s as recorded", bug.Kind, oneLine(x.where(bug)), oneLine(s.Where))
	case s.Steps > 0 && res.Steps != s.Steps:
		e.Message = fmt.Sprintf("the run ended with the %s after %d steps, not %d as recorded", bug.Kind, res.Steps, s.Steps)
	}
	x.emit(e)
}

// wallStamp matches a timestamp of package log's standard flags
// (2026/11/25 17:05:21, with Lmicroseconds .123456): log reads the wall
// clock, not heddle's, so a failure message that quotes a logger's output
// (robfig/cron's TestWithVerboseLogger) differs from one run to the next
// by its stamps alone.
var wallStamp = regexp.MustCompile(`\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,9})?`)

// heapAddr matches a pointer printed in hexadecimal (%v of a slice of
// pointers, %p): where the heap puts a run's objects differs from one
// process to the next, so a failure message that prints pointers
// (go-metrics' TestInmemSink: "bad: [0x2c58f3d0e3c0 ...]") differed in a
// replay by its addresses alone. Eight hex digits at least: a small
// number printed in hex stays as it is.
var heapAddr = regexp.MustCompile(`\b0x[0-9a-f]{8,}\b`)

// ipPort matches an IP address and port (127.0.0.1:34987, [::1]:48502),
// as package net prints a connection's ends: the kernel picks a
// connection's local port, another in each run, so a failure over a real
// connection (yamux's TestSendData_Small: "write tcp
// [::1]:37051->[::1]:48502: write: connection reset by peer") differed in
// its replay by its ports alone. The address is kept.
var ipPort = regexp.MustCompile(`(\b\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d{1,5}\b`)

// samePlace reports whether a replay's bug happened where the recorded one
// did (explorer.where): the same, but for package log's wall-clock stamps,
// pointers' addresses (heapAddr) and the ports of IP addresses (ipPort), and as the schedule file keeps it, on one line: the file writes a
// newline as \n and reads \n back as a newline, so a failure message that
// quotes a string with "\n" in it (testify's "in chain: \"a\nb\"", retry-go's
// TestContext) was read back with a newline there, and the replay
// diverged.
func samePlace(got, recorded string) bool {
	if got == recorded {
		return true
	}
	got, recorded = wallStamp.ReplaceAllString(got, ""), wallStamp.ReplaceAllString(recorded, "")
	got, recorded = heapAddr.ReplaceAllString(got, "0x"), heapAddr.ReplaceAllString(recorded, "0x")
	got, recorded = ipPort.ReplaceAllString(got, "$1:"), ipPort.ReplaceAllString(recorded, "$1:")
	return scheduleLine(got) == scheduleLine(recorded)
}

// scheduleLine is s as a schedule file writes it (schedule's oneLine),
// which reading it back and writing it again leaves as it is.
func scheduleLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", `\r`), "\n", `\n`)
}

func oneLine(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

// replayBug is the bug a replayed run ended with, as replayed reports it.
func (x *explorer) replayBug(res *engine.Result, rs *runT) *engine.Bug {
	bug := classify(res, rs)
	if bug == nil {
		bug = x.realFailure(res)
	}
	if bug == nil && engine.RaceErrors() > x.races {
		bug = &engine.Bug{Kind: engine.KindRace, Message: "data race", G: res.Gs[0]}
	}
	return bug
}
