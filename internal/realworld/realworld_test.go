package realworld

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/goker"
)

// TestTree checks that the harness finds, and kills, a command's
// descendants: its memory bound and time limit apply to heddle's test
// binaries too.
func TestTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var n int
	for i := 0; i < 100; i++ {
		if n = len(tree(cmd.Process.Pid)); n == 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n != 3 {
		t.Fatalf("tree(sh) has %d processes, want sh and its two sleeps", n)
	}
	if rss, name := groupRSS(cmd.Process.Pid); rss <= 0 || name == "" {
		t.Errorf("groupRSS = %d, %q", rss, name)
	}
	killTree(cmd.Process.Pid)
	cmd.Wait()
	for i := 0; i < 100 && len(tree(cmd.Process.Pid)) > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(tree(cmd.Process.Pid)); n != 0 {
		t.Errorf("%d processes left after killTree", n)
	}
}

// TestMemoryBound checks that a command over the memory bound is killed
// and said to be.
func TestMemoryBound(t *testing.T) {
	r := command(context.Background(), time.Minute, 1<<10, t.TempDir(), "sh", "-c", "sleep 60 & sleep 60")
	if r.killed == "" || !strings.Contains(r.killed, "used") || r.timedOut {
		t.Fatalf("command over 1 KB: killed %q, timed out %v, exit %d", r.killed, r.timedOut, r.exit)
	}
}

// TestMarkdown checks the results page: a row per module, a line per
// report with its verdict, unclassified reports counted as such.
func TestMarkdown(t *testing.T) {
	classes["example.com/m/p.TestA fail"] = Class{TestBug, "asserts before waiting"}
	defer delete(classes, "example.com/m/p.TestA fail")
	res := &Results{Config: Config{Budget: "1s", Timeout: time.Minute}, Wall: time.Minute, Command: "go run ./cmd/realworld", Machine: "a machine", Commit: "commit x"}
	res.Modules = []*ModuleResult{{
		Module: Module{Path: "example.com/m", Version: "v1.0.0", Skip: "^TestSvc$", SkipWhy: "it needs a service"},
		Native: NativeResult{OK: true, Wall: 2, TestTime: 0.5},
		Heddle: HeddleResult{Wall: 30, Tests: 4, OK: 2, Reported: 2, Runs: 2000, Elapsed: 20, PerRun: 0.01,
			Timing:       []TimingVerdict{{Package: "example.com/m/p", Test: "TestC", Replayed: true, Message: "the test assumes the machine is never slower than 10ms: ...\n  the failure: fail: p_test.go:20: late"}},
			Unexplorable: []Unexplorable{{Package: "example.com/m/q", Test: "TestQuick", Why: "the same schedule ran differently twice (step 15 was g0 lock, then g0 atomic.load)"}}},
		Reports: []*Report{
			{Package: "example.com/m/p", Test: "TestA", Kind: "fail", First: "p_test.go:9: got 0", Replayed: true,
				Text: "heddle: fail in TestA (run 3)\n\np_test.go:9: got 0\n\nsee ```this``` quoted\n"},
			{Package: "example.com/m/p", Test: "TestB", Kind: "leak", ReplayOut: "exit 2: diverged", Message: "1 goroutine leaked"},
		},
	}, {Module: Module{Path: "example.com/gone", Version: "v0.1.0"}, Err: "go mod download: not found"}}
	res.Reclassify()
	md := res.Markdown()
	for _, want := range []string{
		"| example.com/m | v1.0.0 | ok (2s) | ok | 2 / 2 / 0 (1 not explorable) | 1 fail: 1, 1 leak: 0 | 30s | 100 | 0.0× |",
		"| example.com/gone | v0.1.0 | not run: go mod download: not found |",
		"Not run in example.com/m, natively or under heddle (`-skip '^TestSvc$'`): it needs a service.",
		"2 reports: 0 bugs in the code, 1 bugs in the test, 0 timing-dependent tests, 0 heddle faults, 1 unclassified; 100% (1 of 1 classified) genuine. 1 of 2 replay",
		"| 1 | example.com/m | p TestA | fail | yes | bug in the test | asserts before waiting | p_test.go:9: got 0 |",
		"| 2 | example.com/m | p TestB | leak | no: exit 2: diverged | unclassified |",
		"1 timing verdicts: tests that fail only when a timer fires early",
		"| example.com/m | p TestC | yes | the test assumes the machine is never slower than 10ms: ... |",
		"## Tests heddle cannot explore",
		"| example.com/m | q TestQuick | the same schedule ran differently twice (step 15 was g0 lock, then g0 atomic.load) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results lack %q:\n%s", want, md)
		}
	}

	// The reports' page: every report's text, numbered as in the table,
	// in a fence the text cannot close, and what a replay that failed said.
	res.Page, res.ReportsPage = "realworld.md", "realworld-reports.md"
	if md := res.Markdown(); !strings.Contains(md, "is in [realworld-reports.md](realworld-reports.md), numbered as here") {
		t.Errorf("results do not link the reports' page:\n%s", md)
	}
	rp := res.ReportsMarkdown()
	for _, want := range []string{
		"the run of [realworld.md](realworld.md)",
		"## 1. example.com/m p TestA: fail\n\nVerdict: **bug in the test**. asserts before waiting\n\n````\nheddle: fail in TestA (run 3)\n\np_test.go:9: got 0\n\nsee ```this``` quoted\n````\n",
		"## 2. example.com/m p TestB: leak\n\nVerdict: **unclassified**.\n\nThe printed replay command did not reproduce it: exit 2: diverged\n\n```\n(the report's text was not kept by this run; its message:)\n1 goroutine leaked\n```\n",
		"## T1. example.com/m p TestC\n",
	} {
		if !strings.Contains(rp, want) {
			t.Errorf("reports' page lacks %q:\n%s", want, rp)
		}
	}
}

// A module's Skip goes to both go test and heddle test, before the
// packages.
func TestSkipArgs(t *testing.T) {
	if got, want := strings.Join(nativeArgs("^TestSvc$"), " "), "test -count=1 -json -skip ^TestSvc$ ./..."; got != want {
		t.Errorf("nativeArgs: %q, want %q", got, want)
	}
	if got, want := strings.Join(nativeArgs(""), " "), "test -count=1 -json ./..."; got != want {
		t.Errorf("nativeArgs without skip: %q, want %q", got, want)
	}
	cfg := Config{Budget: "1s", Flags: []string{"-leaks=false"}}
	if got, want := strings.Join(heddleArgs(cfg, "^TestSvc$", "S"), " "), "test -json -budget 1s -o S -skip ^TestSvc$ -leaks=false ./..."; got != want {
		t.Errorf("heddleArgs: %q, want %q", got, want)
	}
	if got, want := strings.Join(heddleArgs(cfg, "", "S"), " "), "test -json -budget 1s -o S -leaks=false ./..."; got != want {
		t.Errorf("heddleArgs without skip: %q, want %q", got, want)
	}
}

// TestNondeterministicIsNoReport checks that a test heddle cannot explore
// (the "nondeterministic" action of heddle test -json) is counted apart,
// not as a report.
func TestNondeterministicIsNoReport(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "heddle")
	script := `#!/bin/sh
cat <<'END'
{"Action":"start","Package":"example.com/m/q","Test":"TestQuick"}
{"Action":"nondeterministic","Package":"example.com/m/q","Test":"TestQuick","Kind":"nondeterminism","Message":"the test is nondeterministic by itself: step 15 differed"}
{"Action":"summary","Package":"example.com/m/q","Test":"TestQuick","Runs":2,"Elapsed":0.1}
{"Action":"pass","Package":"example.com/m/q","Test":"TestQuick"}
END
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, bugs := runHeddleTest(context.Background(), Config{Heddle: fake, Budget: "1", Timeout: time.Minute, MaxRSS: MaxRSS}, dir, "", filepath.Join(dir, "s"))
	if len(bugs) != 0 || r.Reported != 0 {
		t.Errorf("a nondeterministic test made %d reports (%d tests reported)", len(bugs), r.Reported)
	}
	if len(r.Unexplorable) != 1 || r.Unexplorable[0].Test != "TestQuick" || !strings.Contains(r.Unexplorable[0].Why, "step 15") {
		t.Errorf("Unexplorable = %+v, want TestQuick with what differed", r.Unexplorable)
	}
	if r.OK != 1 || r.Err != "" {
		t.Errorf("OK = %d, Err = %q; want the test passed", r.OK, r.Err)
	}
}

// TestSubset runs the harness, with heddle built from this tree, on the
// corpus's CI modules: they must download, build and run under heddle
// without a heddle error, and every report must replay with its printed
// command. The whole corpus is `go run ./cmd/realworld` (docs/realworld.md).
func TestSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads modules and runs their tests under heddle")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	modDir := filepath.Dir(strings.TrimSpace(string(out)))
	work := t.TempDir()
	heddle := filepath.Join(work, "heddle")
	ctx := context.Background()
	if err := goker.BuildHeddle(ctx, modDir, "", heddle); err != nil {
		t.Fatal(err)
	}
	var mods []Module
	for _, m := range Modules {
		if m.CI {
			mods = append(mods, m)
		}
	}
	// go-retry's TestDo (200 runs of about 200,000 steps, a context per
	// step of its canceled_before_first_call subtest; a run allocates
	// 0.5-1 GB, most of it the recorded steps of the runs a strategy
	// records) took about 3 minutes on a loaded two-core machine, and
	// about 1 minute on an idle one, explored alone or after the
	// package's other tests in one process alike: its time follows the
	// machine's load (17 to 44 s for 50 runs as the load average went
	// from 2.4 to 6), not the process it runs in. With 200 runs it passed
	// the 6 minutes on a CI run beside the conformance and corpus
	// harnesses (about 0.9 s of processor time a run), and 100 runs did
	// too at load 15-20 (beside both harnesses and two helpers); 50 runs
	// still explore every test well past its first runs, which is what
	// this test checks (a build, a run, replays), not what exploration
	// finds. The time limit is a guard against a hang, not a measure.
	res, err := Run(ctx, Config{
		Heddle: heddle, Work: work, Budget: "50", Modules: mods,
		Timeout: 10 * time.Minute, NativeTimeout: 2 * time.Minute, ReplayTimeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, mr := range res.Modules {
		t.Log(mr.Line())
		switch {
		case mr.Err != "":
			t.Errorf("%s: %s", mr.Module.Path, mr.Err)
		case mr.Heddle.Err != "":
			t.Errorf("%s: %s", mr.Module.Path, mr.Heddle.Err)
		case len(mr.Heddle.BuildFailed) > 0:
			t.Errorf("%s: packages did not build under heddle: %v", mr.Module.Path, mr.Heddle.BuildFailed)
		case mr.Heddle.Tests == 0:
			t.Errorf("%s: no test explored", mr.Module.Path)
		}
		for _, r := range mr.Reports {
			if !r.Replayed {
				t.Errorf("%s %s: the %s report does not replay with its printed command: %s", r.Package, r.Test, r.Kind, r.ReplayOut)
			}
		}
	}
}

// TestMerge: a rerun of some modules replaces their rows, is listed on the
// page with its command, and is refused when heddle differs.
func TestMerge(t *testing.T) {
	mod := func(path string, wall float64) *ModuleResult {
		return &ModuleResult{Module: Module{Path: path, Version: "v1.0.0"}, Native: NativeResult{OK: true, Wall: 1}, Heddle: HeddleResult{Wall: wall, Exit: -1}}
	}
	res := &Results{Config: Config{Budget: "1s", Timeout: time.Minute}, Commit: "commit x", Command: "go run ./cmd/realworld",
		Modules: []*ModuleResult{mod("example.com/a", 10), mod("example.com/b", 360)}}
	redo := &Results{Commit: "commit x", Command: "go run ./cmd/realworld -run b$ -merge r.json", Wall: 2 * time.Minute,
		Modules: []*ModuleResult{mod("example.com/b", 90)}}
	if err := res.Merge(redo); err != nil {
		t.Fatal(err)
	}
	if len(res.Modules) != 2 || res.Modules[0].Heddle.Wall != 10 || res.Modules[1].Heddle.Wall != 90 {
		t.Errorf("after the merge: %d modules, walls %v and %v; want 2, 10 and 90", len(res.Modules), res.Modules[0].Heddle.Wall, res.Modules[1].Heddle.Wall)
	}
	want := "Run again with the same heddle and their rows replaced, in 2m0s: example.com/b, by `go run ./cmd/realworld -run b$ -merge r.json`."
	if md := res.Markdown(); !strings.Contains(md, want) {
		t.Errorf("the page does not say %q:\n%s", want, md)
	}
	other := &Results{Commit: "commit y", Modules: []*ModuleResult{mod("example.com/a", 5)}}
	if err := res.Merge(other); err == nil || !strings.Contains(err.Error(), "same -rev") {
		t.Errorf("merging a run of another heddle: err = %v, want one that says to use the same -rev", err)
	}
	if res.Modules[0].Heddle.Wall != 10 {
		t.Errorf("a refused merge changed the results")
	}
}
