package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// The slots go to the lowest key first, whatever the order of asking.
func TestSlotQueuePriority(t *testing.T) {
	q := &slotQueue{free: 1}
	first := q.enqueue([3]int{9, 9, 9})
	<-first.ch // free: given at once
	keys := [][3]int{{2, 0, 5}, {1, 3, 1}, {2, 0, 1}, {1, 0, 7}}
	var ws []*slotWaiter
	for _, k := range keys {
		ws = append(ws, q.enqueue(k))
	}
	var got []int
	for range keys {
		q.release()
		for i, w := range ws {
			select {
			case <-w.ch:
				if !contains(got, i) {
					got = append(got, i)
				}
			default:
			}
		}
	}
	want := []int{3, 1, 2, 0} // {1,0,7} {1,3,1} {2,0,1} {2,0,5}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("slots given to %v, want %v", got, want)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Packages print in order: the first not done straight out, the others
// held until the ones before them are done.
func TestLanesOrder(t *testing.T) {
	var out bytes.Buffer
	l := newLanes(&syncWriter{w: &out}, 3)
	fmt.Fprintln(l.ws[2], "two")
	fmt.Fprintln(l.ws[0], "zero")
	fmt.Fprintln(l.ws[1], "one")
	l.finish(2)
	if got := out.String(); got != "zero\n" {
		t.Fatalf("before package 0 is done: %q", got)
	}
	fmt.Fprintln(l.ws[0], "zero again")
	l.finish(0)
	fmt.Fprintln(l.ws[1], "one again")
	l.finish(1)
	if got, want := out.String(), "zero\nzero again\none\none again\ntwo\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// Off a terminal, a package explored while another is printing draws its
// progress line to nowhere; when it becomes the one printing, it has no
// progress line to erase and its output goes out (heddle test ./... on
// jackc/puddle/v2 crashed with a nil io.Writer here).
func TestLanesProgressOffTerminal(t *testing.T) {
	var out bytes.Buffer
	l := newLanes(&syncWriter{w: &out}, 2)
	l.ws[1].showProgress(event.Event{Package: "p1", Test: "TestX", Runs: 3})
	l.finish(0)
	l.ws[1].clearProgress()
	fmt.Fprintln(l.ws[1], "one")
	if got := out.String(); got != "one\n" {
		t.Fatalf("output %q, want %q", got, "one\n")
	}
}

// dropReports leaves out a report as t.Error printed it, position line
// included, and keeps the others.
func TestDropReports(t *testing.T) {
	out := "    m_test.go:9: \n        heddle: DEADLOCK in TestX (run 3, 5 steps)\n          all blocked\n\n        schedule: a\n" +
		"    m_test.go:9: \n        heddle: DEADLOCK in TestX (run 7, 5 steps)\n          all blocked\n        schedule: b\n" +
		"    other log line\n"
	got := dropReports(out, []string{"heddle: DEADLOCK in TestX (run 7, 5 steps)\n  all blocked\n"})
	want := "    m_test.go:9: \n        heddle: DEADLOCK in TestX (run 3, 5 steps)\n          all blocked\n\n        schedule: a\n    other log line\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if b := testBody("=== RUN   TestX\n    log\n--- FAIL: TestX (0.01s)\nFAIL\n", "TestX"); b != "    log\n" {
		t.Errorf("testBody: %q", b)
	}
}

// A worker killed while it made a bug's report (a bug before its unit
// made its work useless) said which schedule file it was writing
// (event.Writing) but reported no bug: the file, and the temporary it
// is written through, are removed; the reported bug's file stays, even
// when another worker was writing it too.
func TestRemoveSchedulesOfKilledWorkers(t *testing.T) {
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	for _, n := range []string{"kept.sched", "orphan.sched", "orphan.sched.123.tmp", "other.sched.9.tmp", "dup.sched"} {
		if err := os.WriteFile(path(n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reported := &unitRun{res: &runResult{Events: []event.Event{
		{Action: event.Writing, Schedule: path("kept.sched")},
		{Action: event.Bug, Schedule: path("kept.sched")},
	}}}
	killed := &unitRun{killed: true, res: &runResult{Events: []event.Event{
		{Action: event.Writing, Schedule: path("kept.sched")},
		{Action: event.Writing, Schedule: path("dup.sched")},
		{Action: event.Bug, Schedule: path("dup.sched")},
		{Action: event.Writing, Schedule: path("orphan.sched")},
	}}}
	tr := &testResult{kept: map[string]bool{path("kept.sched"): true}}
	tr.removeSchedules([]*unitRun{reported, killed})
	var left []string
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != "kept.sched other.sched.9.tmp" {
		t.Errorf("left %q, want the reported bug's schedule and another file's temporary", got)
	}
}

// TestUnitSummaryMissing: a unit's worker that ended without its summary
// and without failing is an error, not a finished unit (a summary that
// did not parse made a split odpor exploration "0 runs, 1 exhausted").
func TestUnitSummaryMissing(t *testing.T) {
	u := strategy.RootUnit("odpor", 0)
	ok := &unitRun{res: &runResult{}, summary: event.Event{Action: event.Summary}}
	lost := &unitRun{res: &runResult{Events: []event.Event{{Action: event.Output, Output: "heddle: bad event line"}}}}
	failed := &unitRun{res: &runResult{Failed: true}}
	if err := unitSummaryMissing("TestX", &u, ok); err != nil {
		t.Errorf("a unit with its summary: %v", err)
	}
	if err := unitSummaryMissing("TestX", &u, lost); err == nil || !strings.Contains(err.Error(), "TestX") {
		t.Errorf("a unit without its summary: %v, want an error naming the test", err)
	}
	if err := unitSummaryMissing("TestX", &u, failed); err != nil {
		t.Errorf("a unit whose worker failed (a bug, a crash: handled as such): %v", err)
	}
	if err := unitSummaryMissing("TestX", nil, lost); err != nil {
		t.Errorf("a whole test (not a unit): %v", err)
	}
}

// TestUnitRunCompact: a tree unit's run, once the coordinator has its rest
// and spawned units, keeps neither the unit's path nor the JSON of its
// rest (a test's unit runs are kept until it ends: on GoKer's Grpc3017,
// paths of 30,000 scheduling points, each held some 15 MB and idb's 402
// units took the coordinator's heap past its bound), and the runs still
// number as the sequential exploration does (renumber: the units' keys).
func TestUnitRunCompact(t *testing.T) {
	const depth, units = 10000, 8
	deep := func(k int) *strategy.Unit {
		f := &strategy.Fragment{Floor: depth - 1 - k, Nodes: make([]strategy.FragNode, depth)}
		for i := range f.Nodes {
			f.Nodes[i] = strategy.FragNode{Order: []int{0, 1}, Costs: []int{0, 1}, N: 2, Keys: []string{"g0.1:lock", "g0.2:timer"}}
		}
		f.Nodes[depth-1-k].Next = 1 // unit k: the second choice there, the later the shallower
		return &strategy.Unit{Strategy: "idb", Pass: 1, Frag: f}
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	var runs []*unitRun
	var keys [][]int
	var n []int
	for k := 0; k < units; k++ {
		u := deep(k)
		rest, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		sum := event.Event{Action: event.Summary, Runs: k + 1, UnitRest: rest}
		ur := &unitRun{unit: u, summary: sum, res: &runResult{Events: []event.Event{{Action: event.Start}, sum}}}
		keys, n = append(keys, strategy.UnitKey(*u)), append(n, k+1)
		ur.compact()
		if ur.unit.Frag != nil || ur.summary.UnitRest != nil || ur.res.Events[1].UnitRest != nil {
			t.Fatalf("unit %d: compact kept the path (%v) or the rest's JSON (%d, %d bytes)", k, ur.unit.Frag != nil, len(ur.summary.UnitRest), len(ur.res.Events[1].UnitRest))
		}
		runs = append(runs, ur)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if grown := int64(m1.HeapAlloc) - int64(m0.HeapAlloc); grown > 4<<20 {
		t.Errorf("%d unit runs of paths %d deep hold %d bytes once compact (keys: %d bytes)", units, depth, grown, units*depth*8)
	}
	want := strategy.RunOffsetsByKey(keys, n)
	renumber(runs, 0)
	for k, r := range runs {
		if r.first != want[k]+1 {
			t.Errorf("unit %d: first run %d, want %d", k, r.first, want[k]+1)
		}
	}
	runtime.KeepAlive(runs)
}
