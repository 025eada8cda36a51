package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"heddle": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// heddle command on small modules written inline.
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores test binaries")
	}
	goenv := map[string]string{}
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	if err := json.Unmarshal(out, &goenv); err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for k, v := range goenv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOFLAGS", "")
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("HEDDLE_CACHE", cache)
			// One epoch for every command of a script, whose schedules
			// are compared (parallel.txt): wallclock_epoch.txt unsets it.
			env.Setenv("HEDDLE_EPOCH", "2026-01-01T00:00:00Z")
			env.Setenv("EXAMPLES", examples)
			env.Setenv("HEDDLE_REPO", repo)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"schedfile":    cmdSchedfile,
			"cmpsched":     cmdCmpsched,
			"treehash":     cmdTreehash,
			"jsonlines":    cmdJSONLines,
			"jsonevents":   cmdJSONEvents,
			"jsonprogress": cmdJSONProgress,
			"status":       cmdStatus,
			"waitfile":     cmdWaitfile,
			"procgone":     cmdProcgone,
			"tempgone":     cmdTempgone,
		},
	})
}

// schedfile DIR VAR sets $VAR to the path of the one schedule file under DIR.
func cmdSchedfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: schedfile DIR VAR")
	}
	var found []string
	filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".sched") {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 1 {
		ts.Fatalf("want one schedule file under %s, found %d: %v", args[0], len(found), found)
	}
	ts.Setenv(args[1], found[0])
}

// cmpsched A B compares two schedule files but for their "before:" lines
// (what the exploring process ran before the bug's run differs between one
// process and a worker that started at a later run) and the Epoch of their
// settings (the wall clock when each heddle test started, where the
// virtual clock starts).
func cmdCmpsched(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpsched A B")
	}
	epoch := regexp.MustCompile(`"Epoch":"[^"]*"`)
	read := func(name string) string {
		var keep []string
		for _, l := range strings.Split(ts.ReadFile(name), "\n") {
			if !strings.HasPrefix(l, "before: ") {
				keep = append(keep, epoch.ReplaceAllString(l, `"Epoch":"-"`))
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := read(args[0]), read(args[1]); a != b {
		ts.Fatalf("%s and %s differ:\n%s\n---\n%s", args[0], args[1], a, b)
	}
}

// treehash DIR FILE writes a hash of every file under DIR (names, modes and
// contents) to FILE, so that cmp can show that heddle changed nothing.
func cmdTreehash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: treehash DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		h := ""
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			h = hex.EncodeToString(s[:])
		}
		lines = append(lines, fmt.Sprintf("%s %v %s", filepath.ToSlash(rel), info.Mode(), h))
		return nil
	})
	if err != nil {
		ts.Fatalf("%v", err)
	}
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o666))
}

// jsonlines FILE checks that every line of FILE is a JSON object with an
// Action field.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonlines FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		n++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			ts.Fatalf("line %d is not a JSON object: %v: %q", n, err, sc.Text())
		}
		if a, _ := m["Action"].(string); a == "" {
			ts.Fatalf("line %d has no Action: %q", n, sc.Text())
		}
	}
	ts.Check(sc.Err())
	if n == 0 {
		ts.Fatalf("%s is empty", args[0])
	}
}

// status N PROG ARGS... runs PROG like exec and checks that it exits with
// status N, so that scripts tell a bug (1) from a usage error (2).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// waitfile FILE waits, up to two minutes, for FILE to exist.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for i := 0; i < 1200; i++ {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within two minutes", args[0])
}

// procgone PIDFILE checks that the processes whose ids PIDFILE holds (one
// per line) end within a minute (a zombie counts as ended). Linux only.
func cmdProcgone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: procgone PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, pid := range strings.Fields(string(b)) {
		procGone(ts, pid)
	}
}

// tempgone DIR checks that the temporary files and directories heddle
// makes for its workers and its checks (heddle-worker-*, heddle-yield-*,
// heddle-events-*, heddle-confirm-*, heddle-racy-*) are gone from DIR
// within a minute (reap.go removes those of a heddle killed).
func cmdTempgone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tempgone DIR")
	}
	var left []string
	for i := 0; i < 600; i++ {
		left = nil
		for _, p := range []string{"heddle-worker-*", "heddle-yield-*", "heddle-events-*", "heddle-confirm-*", "heddle-racy-*"} {
			m, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), p))
			ts.Check(err)
			left = append(left, m...)
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("a minute after heddle ended, %s still holds %s", args[0], strings.Join(left, " "))
}

func procGone(ts *testscript.TestScript, pid string) {
	for i := 0; i < 600; i++ {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return // gone
		}
		// pid (comm) S ...: the state follows the last ')'.
		if j := strings.LastIndexByte(string(stat), ')'); j >= 0 && strings.HasPrefix(string(stat[j+1:]), " Z") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("process %s still running a minute after heddle ended", pid)
}

// jsonprogress FILE MAX checks the progress events of FILE (the output of
// heddle test -json): there are some, and each test's runs never decrease
// and never pass MAX.
func cmdJSONProgress(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonprogress FILE MAX")
	}
	max, err := strconv.Atoi(args[1])
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	last := map[string]int{}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Action, Test string
			Runs         int
		}
		ts.Check(json.Unmarshal([]byte(l), &e))
		if e.Action != "progress" {
			continue
		}
		n++
		if e.Runs < last[e.Test] || e.Runs > max {
			ts.Fatalf("progress of %s: %d runs after %d (at most %d)", e.Test, e.Runs, last[e.Test], max)
		}
		last[e.Test] = e.Runs
	}
	if n == 0 {
		ts.Fatalf("no progress events in %s", args[0])
	}
}

// jsonevents FILE OUT writes to OUT, one per line, the events of FILE (the
// output of heddle test -json) but output and progress, with the fields
// that do not depend on timing or on the schedule directory; it fails if
// the events of one test (with their output) are not together, in one
// block (progress events, printed as the test runs, aside).
func cmdJSONEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonevents FILE OUT")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var lines []string
	done := map[string]bool{}
	cur := ""
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Action, Package, Test, Kind, Key, Schedule, Proven string
			Run, Runs, Bugs                                    int
			Exhausted, Interrupted                             bool
		}
		ts.Check(json.Unmarshal([]byte(l), &e))
		if e.Action == "progress" {
			continue // printed as the test runs, other tests' events may be around them
		}
		if e.Test != "" && e.Test != cur {
			if done[e.Test] {
				ts.Fatalf("the events of %s are not together: %s", e.Test, l)
			}
			done[cur] = true
			cur = e.Test
		}
		if e.Action == "output" || e.Action == "progress" {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %s kind=%s key=%q run=%d runs=%d bugs=%d exhausted=%v interrupted=%v proven=%q", e.Action, e.Package, e.Test, filepath.Base(e.Schedule), e.Kind, e.Key, e.Run, e.Runs, e.Bugs, e.Exhausted, e.Interrupted, e.Proven))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o666))
}
