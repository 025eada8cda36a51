package main

import (
	"fmt"
	"os"
	"strings"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/schedule"
)

// With -parallel, a package's tests, and one test's runs, are explored by
// several worker processes at once, where go test runs a package's tests
// one after another in one process: tests that use a fixed resource (a
// fixed port, a fixed file path, a lock file) collide across workers and
// fail ("address already in use"), or take paths they never take alone (a
// retry with a timeout, a read of the wall clock), which is no bug of the
// code nor of the test under go test's rules. So what a test's workers
// found while other workers of its package were running is confirmed
// before it is reported, once the package's other tests are done:
// a bug, or a timing verdict, has its schedule replayed alone in a fresh
// process, with heddle replay's check (the same bug at the same place and
// step). One that does not reproduce is not reported: the test is
// explored again by one worker alone (-parallel 1's rules), and that
// exploration's result is the test's.
//
// A test found "nondeterministic by itself" is not explored again: it has
// no schedule to replay, and a second exploration alone cannot tell a
// collision with another worker from state the first exploration left
// behind (a file it wrote makes every later run alike: fresh_replay's
// TestMarker), so it would say "only beside another worker" of a test
// that is nondeterministic under go test too, and cost a whole exploration
// past the time budget (yamux: 15 to 19 such tests).

// needsConfirm reports whether t's result has something to confirm alone:
// a bug or a timing verdict.
func needsConfirm(t *testResult) bool {
	return countAction(t.events, event.Bug)+countAction(t.events, event.Timing) > 0
}

// confirmNote is what heddle says of a test whose bug or timing verdict
// did not reproduce alone.
func confirmNote(name, what string, removed []string) string {
	s := fmt.Sprintf("heddle: %s: %s only beside another heddle worker of this package (a fixed port or file?); explored again with -parallel 1", name, what)
	if len(removed) > 0 {
		s += fmt.Sprintf(" (schedule %s removed)", strings.Join(removed, ", "))
	}
	return s + "\n"
}

// unconfirmed replays alone the schedule of each bug and timing verdict
// reported in t, and returns the schedule files of those that did not
// reproduce and what they were ("failed", "timing-dependent"). A replay
// that cannot say (no schedule, a group's schedule, a replay that ended
// without a verdict) confirms it: heddle never drops a report it is not
// sure of.
func unconfirmed(spec runSpec, t *testResult) (files []string, what string) {
	for _, e := range t.events {
		if e.Action != event.Bug && e.Action != event.Timing || e.Schedule == "" {
			continue
		}
		ok, err := replayAlone(spec, e.Schedule)
		if err == nil && !ok {
			files = append(files, e.Schedule)
			switch {
			case e.Action == event.Bug:
				what = "failed"
			case what == "":
				what = "timing-dependent"
			}
		}
	}
	return files, what
}

// replayAlone replays the schedule file in a fresh process of spec's
// binary, as heddle replay does, and reports whether it reproduced the
// recorded bug. An error: the replay could not say.
func replayAlone(spec runSpec, file string) (bool, error) {
	s, err := loadSchedule(file)
	if err != nil {
		return false, err
	}
	if s.Extra["group"] != "" {
		return false, fmt.Errorf("heddle: %s: a group's schedule", file)
	}
	cfg := explore.DefaultConfig()
	if err := cfg.ApplySettings(s.Settings); err != nil {
		return false, fmt.Errorf("heddle: %s: %v", file, err)
	}
	if s.Format == schedule.FormatV1 {
		cfg.NoLateWake = true
	}
	tmp, err := os.MkdirTemp("", "heddle-confirm-")
	if err != nil {
		return false, fmt.Errorf("heddle: %v", err)
	}
	trackTemp(tmp)
	defer untrackTemp(tmp)
	defer os.RemoveAll(tmp)
	pc := spec.Config
	cfg.Strategy = "replay"
	cfg.Replay = file
	cfg.Seed = s.Seed
	cfg.Runs = 1
	cfg.Budget = "1"
	cfg.OutDir = tmp
	cfg.Package, cfg.Dir, cfg.Version, cfg.Fingerprint = pc.Package, pc.Dir, pc.Version, pc.Fingerprint
	cfg.Files, cfg.BuildFlags, cfg.TestOnly = pc.Files, pc.BuildFlags, pc.TestOnly
	cfg.Main, cfg.Args, cfg.WorkDir, cfg.Stdin = pc.Main, pc.Args, pc.WorkDir, pc.Stdin
	r := spec
	r.Config = cfg
	r.Args = argsForTest(spec.Args, s.Test)
	r.Quiet, r.JSON, r.Part = true, false, false
	r.OnEvent, r.Cancel, r.Lines = nil, nil, nil
	r.Env = append(append([]string(nil), spec.Env...), "TMPDIR="+tmp)
	res, err := runBinary(r)
	if err != nil {
		return false, err
	}
	for _, e := range res.Events {
		if e.Action == event.Replayed {
			return e.Message == "", nil
		}
	}
	return false, fmt.Errorf("heddle: the replay of %s ended without a verdict", file)
}
