package main

import (
	"slices"
	"strings"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
)

// parallelTests are the tests whose exploration saw them call t.Parallel
// (event.Event.Parallel), in the order of their summaries: go test runs
// them concurrently once the sequential tests are done.
func parallelTests(evs []event.Event) []string {
	var names []string
	for _, e := range evs {
		if e.Action == event.Summary && e.Parallel && len(e.Group) == 0 && !slices.Contains(names, e.Test) {
			names = append(names, e.Test)
		}
	}
	return names
}

// exploreGroup explores together the top-level parallel tests of spec's
// binary that the tests' own explorations found (their events, evs), when
// there are at least two, in one process of their own with a test's
// budget (under -budget-total, what is left, left), and returns what that
// process did (nil: no group). Each run of the group runs all its tests:
// it is explored for at most as long as its tests' explorations took on
// average, or 10 seconds (groupTime; took is how long those took together,
// for the tests whose events do not say). slot, if set, waits for a worker slot
// (heddle test -parallel) and returns its release. Nothing is done after
// an interrupt, nor, without -keep-going, when one of the tests failed
// alone: the group would most likely report that failure again.
func exploreGroup(spec runSpec, evs []event.Event, left, took time.Duration, slot func() (release func())) (*runResult, error) {
	names := parallelTests(evs)
	if len(names) < 2 || interrupted.Load() {
		return nil, nil
	}
	if !spec.Config.KeepGoing {
		for _, e := range evs {
			if e.Action == event.Bug && slices.Contains(names, e.Test) {
				return nil, nil
			}
		}
	}
	if slot != nil {
		defer slot()()
	}
	s := spec
	s.Part = true
	s.Args = argsForRun(spec.Args, explore.GroupRunPattern(names))
	s.Config.Group = names
	s.Lines = groupLines(names)
	s.Config.Unit, s.Config.Yield = nil, ""
	if spec.Config.PackageTime > 0 {
		s.Config.PackageTime, s.Config.Tests = max(left, explore.MinShare), 1
	}
	if d := groupTime(evs, names, took); s.Config.Time == 0 || d < s.Config.Time {
		s.Config.Time = d
	}
	return runBinary(s)
}

// groupTime is the time the group of tests names is explored for at
// most, its share of the package's time: as long as its tests'
// explorations took on average (their summary events' Elapsed; for the
// tests whose summary does not say, took, the time they took together,
// spread over them), and at least minGroupTime.
func groupTime(evs []event.Event, names []string, took time.Duration) time.Duration {
	var sum time.Duration
	for _, name := range names {
		d := took / time.Duration(len(names))
		for _, e := range evs {
			if e.Action == event.Summary && e.Test == name && len(e.Group) == 0 && e.Elapsed > 0 {
				d = time.Duration(e.Elapsed * float64(time.Second))
			}
		}
		sum += d
	}
	return max(minGroupTime, sum/time.Duration(len(names)))
}

// minGroupTime is the least time a group is explored for (its budget in
// runs allowing): its runs run all its tests, and its schedules are many
// more than each test's.
const minGroupTime = 10 * time.Second

// addGroup adds to res what the group's process did (g, nil for none),
// and returns its output without its closing PASS or FAIL line.
func addGroup(res, g *runResult) string {
	if g == nil {
		return ""
	}
	res.Events = append(res.Events, g.Events...)
	res.Failed = res.Failed || g.Failed
	res.Elapsed += g.Elapsed
	out := strings.TrimSuffix(strings.TrimSuffix(g.Output, "PASS\n"), "FAIL\n")
	var names []string
	for _, e := range g.Events {
		if len(e.Group) > 0 {
			names = e.Group
			break
		}
	}
	if names == nil {
		return out
	}
	lines := groupLines(names)
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if l == "" {
			continue
		}
		if l, keep := lines(strings.TrimSuffix(l, "\n")); keep {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// groupLines returns the rewriting of the output lines of the process
// that explores the group of parallel tests names (runSpec.Lines). That
// process runs each of the tests again, and the last one explores them
// all; with -v, go test's lines would show each test run and pass a second
// time. They show the group instead, named as its events name it: one
// "=== RUN" line for the group, no line for a test that passed on to the
// last, and the last one's "--- PASS" as the group's. A test's "--- FAIL"
// stays: the report under it says which tests ran together.
func groupLines(names []string) func(string) (string, bool) {
	group, last := explore.GroupName(names), names[len(names)-1]
	ran := false
	return func(line string) (string, bool) {
		for _, n := range names {
			switch line {
			case "=== RUN   " + n:
				if ran {
					return "", false
				}
				ran = true
				return "=== RUN   " + group, true
			case "=== PAUSE " + n, "=== CONT  " + n:
				return "", false
			}
			if rest, ok := strings.CutPrefix(line, "--- PASS: "+n+" "); ok {
				if n != last {
					return "", false
				}
				return "--- PASS: " + group + " " + rest, true
			}
		}
		if strings.Contains(line, "heddle: "+explore.GroupPassedOn+" ") {
			return "", false
		}
		return line, true
	}
}

// groupShare is the number of shares of -budget-total to keep for the
// group while the tests are explored: one once a test was seen to call
// t.Parallel.
func groupShare(evs []event.Event) int {
	if len(parallelTests(evs)) > 0 {
		return 1
	}
	return 0
}

// argsForRun returns args with its -test.run replaced by run.
func argsForRun(args []string, run string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-test.run=") {
			out = append(out, a)
		}
	}
	return append(out, "-test.run="+run)
}

// anyParallel reports whether a unit of a test (heddle test -parallel)
// saw it call t.Parallel.
func anyParallel(runs []*unitRun) bool {
	for _, r := range runs {
		if r.summary.Parallel {
			return true
		}
	}
	return false
}

// groupAfter is exploreGroup after runTests's tests (heddle test
// -parallel): the group explores in one worker, whose slot comes after
// those of the binary's tests (bin, tests).
func groupAfter(spec runSpec, res *runResult, sem *slotQueue, bin, tests int, took time.Duration) error {
	slot := func() func() {
		<-sem.enqueue([3]int{bin, tests, 0}).ch
		return sem.release
	}
	g, err := exploreGroup(spec, res.Events, spec.Config.PackageTime, took, slot)
	if err != nil {
		return err
	}
	res.Output += addGroup(res, g)
	return nil
}

// groupProven is the set of proofs of a package's summary line, proven,
// once its group of parallel tests was explored completely: the proof of
// each parallel test alone (explore.AloneProof) is then, with the group's,
// the proof of what go test runs, if the group's says as much.
func groupProven(evs []event.Event, proven map[string]bool) map[string]bool {
	var group string
	for _, e := range evs {
		if e.Action == event.Summary && len(e.Group) > 0 {
			if !e.Exhausted || e.Proven == "" {
				return proven
			}
			group = e.Proven
		}
	}
	if group == "" {
		return proven
	}
	out := map[string]bool{}
	for p := range proven {
		if alone, ok := strings.CutSuffix(p, explore.AloneProof); ok && alone == group {
			p = alone
		}
		out[p] = true
	}
	return out
}

// groupsText says, in a package's summary line, that its parallel tests
// were explored together as well.
func groupsText(groups int) string {
	if groups == 0 {
		return ""
	}
	return " + their t.Parallel group"
}
