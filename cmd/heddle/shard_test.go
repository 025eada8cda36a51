package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/schedule"
	"heddle.dev/internal/strategy"
)

func TestSplitShardArgs(t *testing.T) {
	for _, c := range []struct {
		args       []string
		i, n       int
		result     string
		rest       []string
		err, shard bool
	}{
		{args: []string{"./...", "-run", "X"}, rest: []string{"./...", "-run", "X"}},
		{args: []string{"-shard", "2/8", "./..."}, shard: true, i: 2, n: 8, result: "heddle-shard-2-of-8.json", rest: []string{"./..."}},
		{args: []string{"./...", "--shard=0/1", "-result", "r.json", "-v"}, shard: true, i: 0, n: 1, result: "r.json", rest: []string{"./...", "-v"}},
		{args: []string{"-shard", "8/8"}, err: true},
		{args: []string{"-shard", "-1/8"}, err: true},
		{args: []string{"-shard", "1"}, err: true},
		{args: []string{"-shard"}, err: true},
		{args: []string{"-result", "r.json"}, err: true},
	} {
		sh, rest, err := splitShardArgs(c.args)
		if (err != nil) != c.err {
			t.Errorf("%q: error %v, want error %v", c.args, err, c.err)
			continue
		}
		if c.err {
			continue
		}
		if (sh != nil) != c.shard {
			t.Errorf("%q: shard %v, want one: %v", c.args, sh, c.shard)
			continue
		}
		if sh != nil && (sh.i != c.i || sh.n != c.n || sh.result != c.result) {
			t.Errorf("%q: got %d/%d %s, want %d/%d %s", c.args, sh.i, sh.n, sh.result, c.i, c.n, c.result)
		}
		if !reflect.DeepEqual(rest, c.rest) {
			t.Errorf("%q: rest %q, want %q", c.args, rest, c.rest)
		}
	}
}

// TestShardPlan checks that the plan is a partition of every test's runs,
// the same whatever the order shards compute it in, and balanced.
func TestShardPlan(t *testing.T) {
	tests := []unit{{Package: "p", Test: "TestA"}, {Package: "p", Test: "TestB"}, {Package: "q", Test: "TestC"}}
	for _, strat := range []string{"random", "pct", "odpor"} {
		for _, n := range []int{1, 2, 3, 8, 32, 128} {
			const budget = 1000
			units := planTests(tests, strat, budget, n)
			owner := assign(units, budget, n)
			if again := assign(planTests(tests, strat, budget, n), budget, n); !reflect.DeepEqual(owner, again) {
				t.Fatalf("%s n=%d: the assignment is not deterministic", strat, n)
			}
			covered := map[string][]bool{}
			load := make([]int, n)
			for k, u := range units {
				load[owner[k]] += u.cost(budget)
				c := covered[u.Package+u.Test]
				if c == nil {
					c = make([]bool, budget+1)
					covered[u.Package+u.Test] = c
				}
				from, to := u.From, u.To
				if from == 0 {
					from, to = 1, budget
				}
				for r := from; r <= to; r++ {
					if c[r] {
						t.Fatalf("%s n=%d: run %d of %s in two units", strat, n, r, u.Test)
					}
					c[r] = true
				}
			}
			for name, c := range covered {
				for r := 1; r <= budget; r++ {
					if !c[r] {
						t.Fatalf("%s n=%d: run %d of %s in no unit", strat, n, r, name)
					}
				}
			}
			if len(covered) != len(tests) {
				t.Fatalf("%s n=%d: %d tests planned, want %d", strat, n, len(covered), len(tests))
			}
			if strat == "pct" {
				for _, u := range units {
					if (u.From-1)%strategy.RunBlock != 0 {
						t.Fatalf("pct n=%d: a unit starts at run %d, inside a block of %d runs", n, u.From, strategy.RunBlock)
					}
				}
			}
			if strat == "random" {
				// Split runs: no shard has more than its share plus one chunk.
				lo, hi := load[0], load[0]
				for _, l := range load {
					lo, hi = min(lo, l), max(hi, l)
				}
				chunk := (budget + overSplit*n - 1) / (overSplit * n)
				if hi-lo > chunk {
					t.Errorf("random n=%d: loads from %d to %d runs, more apart than a chunk (%d)", n, lo, hi, chunk)
				}
			}
		}
	}
}

// TestMergeStatement checks merge's completeness statement and its
// deduplication on hand-made shard results.
func TestMergeStatement(t *testing.T) {
	shard := func(i int, keep bool, units []unitResult, bugs ...bugResult) *shardResult {
		return &shardResult{Format: resultFormat, Version: resultVersion, Shard: i, Shards: 3, Plan: "p", PlanUnits: 3, KeepGoing: keep,
			Tests: []planTest{{"m", "TestA", 3}}, Units: units, Bugs: bugs, Finished: true}
	}
	u := func(from, to int, done bool) []unitResult {
		return []unitResult{{unit: unit{Package: "m", Test: "TestA", From: from, To: to}, Done: done, Runs: to - from + 1}}
	}
	bug := func(run int, key string) bugResult {
		return bugResult{Package: "m", Test: "TestA", Kind: "deadlock", Key: key, Run: run}
	}
	// Without -keep-going, the bug of the lowest run is the one a process reports.
	m, err := merge([]*shardResult{shard(2, false, u(21, 30, true), bug(25, "x")), shard(0, false, u(1, 10, true)), shard(1, false, u(11, 20, true), bug(12, "y"))}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Complete || len(m.Bugs) != 1 || m.Bugs[0].Run != 12 || m.Runs != 30 {
		t.Errorf("got complete %v, bugs %+v, runs %d; want complete, the bug of run 12, 30 runs", m.Complete, m.Bugs, m.Runs)
	}
	// With -keep-going, one bug per key, at its first run.
	m, err = merge([]*shardResult{shard(2, true, u(21, 30, true), bug(25, "x"), bug(22, "y")), shard(0, true, u(1, 10, true), bug(9, "y")), shard(1, true, u(11, 20, true), bug(12, "x"))}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range m.Bugs {
		got = append(got, fmt.Sprint(b.Key, b.Run))
	}
	if want := []string{"y9", "x12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keep-going bugs %q, want %q", got, want)
	}
	// A shard missing, one given twice, one unfinished.
	m, err = merge([]*shardResult{shard(0, false, u(1, 10, true)), shard(0, false, u(1, 10, true))}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Complete || !reflect.DeepEqual(m.Missing, []int{1, 2}) || !reflect.DeepEqual(m.Duplicate, []int{0}) || !strings.Contains(m.Statement, "shards 1, 2 of 0..2 missing") || m.Tests[0].Finished {
		t.Errorf("got %+v", m)
	}
	m, err = merge([]*shardResult{shard(0, false, u(1, 10, true)), shard(1, false, u(11, 20, false)), shard(2, false, u(21, 30, true))}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Complete || !strings.Contains(m.Statement, "shard 1: m TestA runs 11-20") {
		t.Errorf("an unfinished unit: got complete %v, %q", m.Complete, m.Statement)
	}
	// Runs made twice are counted; runs past the first bug too.
	m, err = merge([]*shardResult{shard(0, false, u(1, 10, true)), shard(1, false, u(5, 14, true), bug(7, "x")), shard(2, false, u(15, 30, true))}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Balance; b.DuplicatedRuns != 6 || b.ExtraRuns != 36-7 || b.RunsMin != 10 || b.RunsMax != 16 || b.Processes != 3 || b.Reports != 1 {
		t.Errorf("balance %+v: want 6 runs made twice, 29 past the bug of run 7 (36 runs made), 10 to 16 runs per shard, 3 processes", b)
	}
	// Shards of different plans are refused.
	other := shard(1, false, u(11, 20, true))
	other.Plan = "q"
	if _, err := merge([]*shardResult{shard(0, false, u(1, 10, true)), other}, []string{"a", "b"}); err == nil {
		t.Errorf("shards of two plans merged")
	}
}

// shardEnv runs heddle commands of the tests below: the heddle that
// testscript put on PATH (this test binary), with a cache of its own.
type shardEnv struct {
	t      *testing.T
	heddle string
	env    []string
	dir    string // the module
	runs   int    // calls of shards so far
}

func newShardEnv(t *testing.T, files map[string]string) *shardEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and explores test binaries")
	}
	heddle, err := exec.LookPath("heddle")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, "m", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=", "HEDDLE_CACHE="+filepath.Join(dir, "cache"))
	return &shardEnv{t: t, heddle: heddle, env: env, dir: dir}
}

// run runs heddle with args in the module and returns its exit status
// and output.
func (e *shardEnv) run(args ...string) (int, string) {
	e.t.Helper()
	cmd := exec.Command(e.heddle, args...)
	cmd.Dir = filepath.Join(e.dir, "m")
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		e.t.Fatalf("heddle %s: %v", strings.Join(args, " "), err)
	}
	return 0, string(out)
}

// shards runs the n shards of heddle test with flags, and returns their
// result files.
func (e *shardEnv) shards(n int, flags ...string) []string {
	e.t.Helper()
	var files []string
	for i := 0; i < n; i++ {
		file := filepath.Join(e.dir, fmt.Sprintf("run%d-n%d", e.runs, n), fmt.Sprintf("shard-%d.json", i))
		os.MkdirAll(filepath.Dir(file), 0o777)
		args := append([]string{"test", "-shard", fmt.Sprintf("%d/%d", i, n), "-result", file, "-o", filepath.Join(e.dir, "sched")}, flags...)
		if code, out := e.run(append(args, "./...")...); code > 1 {
			e.t.Fatalf("shard %d/%d: status %d\n%s", i, n, code, out)
		}
		files = append(files, file)
	}
	e.runs++
	return files
}

// merged runs heddle merge -json on files.
func (e *shardEnv) merged(files []string) *mergedResult {
	e.t.Helper()
	code, out := e.run(append([]string{"merge", "-json", "-o", filepath.Join(e.dir, "merged")}, files...)...)
	if code > 1 {
		e.t.Fatalf("heddle merge: status %d\n%s", code, out)
	}
	var m mergedResult
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		e.t.Fatalf("heddle merge -json: %v\n%s", err, out)
	}
	return &m
}

// outcome is what an exploration found, in a form where one process and
// merged shards must agree.
type outcome struct {
	Tests []string // "package test runs exhausted proven", sorted
	Bugs  []string // "package test kind key run choices", sorted
}

// sequential is the outcome of one heddle test -json process.
func (e *shardEnv) sequential(flags ...string) outcome {
	e.t.Helper()
	code, out := e.run(append(append([]string{"test", "-json", "-parallel", "1", "-o", filepath.Join(e.dir, "seq")}, flags...), "./...")...)
	if code > 1 {
		e.t.Fatalf("heddle test: status %d\n%s", code, out)
	}
	var o outcome
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev event.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Action {
		case event.Summary:
			o.Tests = append(o.Tests, fmt.Sprintf("%s %s %d %v %q", ev.Package, ev.Test, ev.Runs, ev.Exhausted, ev.Proven))
		case event.Bug:
			b, err := os.ReadFile(ev.Schedule)
			if err != nil {
				e.t.Fatal(err)
			}
			o.Bugs = append(o.Bugs, fmt.Sprintf("%s %s %s %q %d %s", ev.Package, ev.Test, ev.Kind, ev.Key, ev.Run, choicesOf(e.t, b)))
		}
	}
	sort.Strings(o.Tests)
	sort.Strings(o.Bugs)
	return o
}

// outcomeOf is the outcome of merged shards. Runs are compared only for
// tests without a bug when withRuns: one process stops at a test's first
// bug, shards each at their own.
func outcomeOf(t *testing.T, m *mergedResult) outcome {
	var o outcome
	for _, x := range m.Tests {
		o.Tests = append(o.Tests, fmt.Sprintf("%s %s %d %v %q", x.Package, x.Test, x.Runs, x.Exhausted, x.Proven))
	}
	for _, b := range m.Bugs {
		o.Bugs = append(o.Bugs, fmt.Sprintf("%s %s %s %q %d %s", b.Package, b.Test, b.Kind, b.Key, b.Run, choicesOf(t, []byte(b.Schedule))))
	}
	sort.Strings(o.Tests)
	sort.Strings(o.Bugs)
	return o
}

func choicesOf(t *testing.T, sched []byte) string {
	s, err := schedule.Parse(bytes.NewReader(sched))
	if err != nil {
		t.Fatalf("a bug's schedule: %v", err)
	}
	return strings.Join(s.Choices, ",")
}

// sameOutcome compares one process with merged shards; a test with a bug
// is compared by its bug, not by its runs.
func sameOutcome(t *testing.T, what string, seq, merged outcome, keepGoing bool) {
	t.Helper()
	if !keepGoing {
		buggy := map[string]bool{}
		for _, b := range seq.Bugs {
			f := strings.Fields(b)
			buggy[f[0]+" "+f[1]] = true
		}
		drop := func(ts []string) []string {
			var out []string
			for _, x := range ts {
				f := strings.Fields(x)
				if !buggy[f[0]+" "+f[1]] {
					out = append(out, x)
				}
			}
			return out
		}
		seq.Tests, merged.Tests = drop(seq.Tests), drop(merged.Tests)
	}
	if !reflect.DeepEqual(seq, merged) {
		t.Errorf("%s: merged shards differ from one process:\none process:\n\t%s\n\t%s\nmerged:\n\t%s\n\t%s", what,
			strings.Join(seq.Tests, "\n\t"), strings.Join(seq.Bugs, "\n\t"), strings.Join(merged.Tests, "\n\t"), strings.Join(merged.Bugs, "\n\t"))
	}
}

// familiesModule holds the DPOR families of seed-002 (readers, lastzero)
// as Go tests, and one with a bug in some classes.
var familiesModule = map[string]string{
	"go.mod": "module example.com/families\n\ngo 1.22\n",
	"families_test.go": `package families

import (
	"sync"
	"sync/atomic"
	"testing"
)

// readers(n): one writer writes x, n readers read it: 2^n classes.
func readers(n int) {
	var x atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n + 1)
	go func() { defer wg.Done(); x.Store(1) }()
	for i := 0; i < n; i++ {
		go func() { defer wg.Done(); _ = x.Load() }()
	}
	wg.Wait()
}

// lastzero(n): goroutine 0 finds the highest index of x holding zero,
// scanning down from n; goroutine j sets x[j] = x[j-1] + 1.
func lastzero(n int) int32 {
	x := make([]atomic.Int32, n+1)
	var found atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n + 1)
	go func() {
		defer wg.Done()
		i := n
		for i > 0 && x[i].Load() != 0 {
			i--
		}
		found.Store(int32(i))
	}()
	for j := 1; j <= n; j++ {
		go func() {
			defer wg.Done()
			x[j].Store(x[j-1].Load() + 1)
		}()
	}
	wg.Wait()
	return found.Load()
}

func TestReaders2(t *testing.T)  { readers(2) }
func TestReaders3(t *testing.T)  { readers(3) }
func TestReaders4(t *testing.T)  { readers(4) }
func TestReaders5(t *testing.T)  { readers(5) }
func TestLastZero2(t *testing.T) { lastzero(2) }
func TestLastZero3(t *testing.T) { lastzero(3) }
func TestLastZero4(t *testing.T) { lastzero(4) }

// TestLastZeroBug fails in the classes where the scan stops below n.
func TestLastZeroBug(t *testing.T) {
	if i := lastzero(3); i != 3 {
		t.Errorf("lastzero found %d", i)
	}
}
`,
}

// TestShardMergeFamilies checks that heddle merge of n shards equals one
// process on the DPOR families, for source and optimal DPOR: the same
// tests, runs (one per class), exhaustion statements and bugs, with
// their schedules.
func TestShardMergeFamilies(t *testing.T) {
	t.Parallel()
	e := newShardEnv(t, familiesModule)
	for _, strat := range []string{"odpor", "sdpor"} {
		flags := []string{"-strategy", strat, "-budget", "100000"}
		seq := e.sequential(flags...)
		if len(seq.Tests) != 8 || len(seq.Bugs) != 1 {
			t.Fatalf("%s: one process explored %d tests and found %d bugs, want 8 and 1:\n%v", strat, len(seq.Tests), len(seq.Bugs), seq)
		}
		ns := []int{2, 8, 32}
		if strat == "sdpor" {
			ns = []int{3}
		}
		for _, n := range ns {
			m := e.merged(e.shards(n, flags...))
			if !m.Complete {
				t.Errorf("%s, %d shards: %s", strat, n, m.Statement)
			}
			sameOutcome(t, fmt.Sprintf("%s, %d shards", strat, n), seq, outcomeOf(t, m), false)
		}
	}
}

// randomModule has a deadlock that random scheduling finds in some runs,
// a lost update found in fewer, and a test without a bug.
var randomModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"m_test.go": `package m

import (
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A test process started for a unit that does not begin at run 1 logs
// its first run to $UNIT_LOG and, while $GATE names a file that does not
// exist, waits for it (TestShardResume).
func init() {
	var cfg struct{ FirstRun int }
	if json.Unmarshal([]byte(os.Getenv("HEDDLE_CONFIG")), &cfg) != nil {
		return
	}
	if log := os.Getenv("UNIT_LOG"); log != "" {
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
		json.NewEncoder(f).Encode(cfg.FirstRun)
		f.Close()
	}
	if gate := os.Getenv("GATE"); gate != "" && cfg.FirstRun > 1 {
		os.WriteFile(gate+".waiting", nil, 0o666)
		for {
			if _, err := os.Stat(gate); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestDeadlock(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() }()
	go func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() }()
	wg.Wait()
}

func TestLostUpdate(t *testing.T) {
	var n atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); v := n.Load(); n.Store(v + 1) }()
	}
	wg.Wait()
	if n.Load() == 1 {
		t.Errorf("lost two updates")
	}
}

func TestClean(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	x := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); x++; mu.Unlock() }()
	}
	wg.Wait()
}
`,
}

// TestShardMergeRandom checks the split of one test's runs: merged shards
// of random, POS and PCT equal one process, with and without -keep-going.
func TestShardMergeRandom(t *testing.T) {
	t.Parallel()
	e := newShardEnv(t, randomModule)
	for _, c := range []struct {
		strat string
		keep  bool
		n     int
	}{{"random", true, 3}, {"random", false, 5}, {"pos", true, 2}, {"pct", true, 2}} {
		budget := "90"
		if c.strat == "pct" {
			budget = "200" // 4 blocks of 64 runs, the last shorter
		}
		flags := []string{"-strategy", c.strat, "-budget", budget}
		if c.keep {
			flags = append(flags, "-keep-going")
		}
		seq := e.sequential(flags...)
		if len(seq.Bugs) < 2 {
			t.Fatalf("%s: one process found %d bugs, want 2 or more: %v", c.strat, len(seq.Bugs), seq.Bugs)
		}
		m := e.merged(e.shards(c.n, flags...))
		if !m.Complete {
			t.Errorf("%v: %s", c, m.Statement)
		}
		sameOutcome(t, fmt.Sprint(c), seq, outcomeOf(t, m), c.keep)
	}
}

// TestShardResume kills a shard (kill -9) while it explores its second
// unit, starts it again, and checks that it explores only the units it
// had not finished, keeps the bug the first attempt found, and ends with
// the result of a shard never killed.
func TestShardResume(t *testing.T) {
	t.Parallel()
	e := newShardEnv(t, randomModule)
	gate := filepath.Join(e.dir, "gate")
	log := filepath.Join(e.dir, "units.log")
	result := filepath.Join(e.dir, "r", "shard.json")
	os.MkdirAll(filepath.Dir(result), 0o777)
	// One shard of one: the test's 40 runs are 4 units of 10; run 1 finds
	// the deadlock.
	args := []string{"test", "-shard", "0/1", "-result", result, "-o", filepath.Join(e.dir, "sched"), "-strategy", "random", "-budget", "40", "-keep-going", "-run", "TestDeadlock", "./..."}
	cmd := exec.Command(e.heddle, args...)
	cmd.Dir = filepath.Join(e.dir, "m")
	cmd.Env = append(e.env, "GATE="+gate, "UNIT_LOG="+log)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The second unit's process waits at the gate: the first unit is
	// checkpointed by then.
	waitFor(t, gate+".waiting", cmd)
	ck, err := readShardResult(result + ".checkpoint")
	if err != nil {
		t.Fatalf("no checkpoint while the second unit runs: %v\n%s", err, out.String())
	}
	if len(ck.Units) != 1 || len(ck.Bugs) != 1 || ck.Bugs[0].Run != 1 {
		t.Fatalf("checkpoint: %d units, bugs %+v; want the first unit and the deadlock of run 1", len(ck.Units), ck.Bugs)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(result); err == nil {
		t.Fatalf("a killed shard wrote its result")
	}
	os.WriteFile(gate, nil, 0o666)
	os.Remove(log)

	cmd = exec.Command(e.heddle, args...)
	cmd.Dir = filepath.Join(e.dir, "m")
	cmd.Env = append(e.env, "UNIT_LOG="+log)
	b, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("resumed shard: status %d (%v), want 1 (a bug)\n%s", code, err, b)
	}
	if !strings.Contains(string(b), "resuming from") || !strings.Contains(string(b), "1 units finished, 1 bugs kept") {
		t.Errorf("the resumed shard does not say what it resumed from:\n%s", b)
	}
	logged, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(logged)); !reflect.DeepEqual(got, []string{"11", "21", "31"}) {
		t.Errorf("the resumed shard explored the units starting at runs %q, want 11, 21 and 31 only", got)
	}
	r, err := readShardResult(result)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Finished || len(r.Units) != 4 {
		t.Fatalf("resumed result: finished %v, %d units", r.Finished, len(r.Units))
	}
	if _, err := os.Stat(result + ".checkpoint"); err == nil {
		t.Errorf("the checkpoint of a finished shard is left behind")
	}
	m := e.merged([]string{result})
	sameOutcome(t, "resumed", e.sequential("-strategy", "random", "-budget", "40", "-keep-going", "-run", "TestDeadlock"), outcomeOf(t, m), true)
}

// waitFor waits until file exists, failing if cmd ends first.
func waitFor(t *testing.T, file string, cmd *exec.Cmd) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if _, err := os.Stat(file); err == nil {
			return
		}
		if p, err := os.FindProcess(cmd.Process.Pid); err == nil && p.Signal(syscall.Signal(0)) != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", file)
}

// TestShardChildProcess checks that a test that runs its own binary (a
// common way to test a crash) gets one run in the child under a shard's
// range of runs, as it does in one process: the child's configuration
// must not keep the range's first run.
func TestShardChildProcess(t *testing.T) {
	t.Parallel()
	e := newShardEnv(t, map[string]string{
		"go.mod": "module example.com/child\n\ngo 1.22\n",
		"child_test.go": `package child

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestParent(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$")
	cmd.Env = append(os.Environ(), "MARK="+mark)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the child test did not run")
	}
}

func TestChild(t *testing.T) {
	if m := os.Getenv("MARK"); m != "" {
		os.WriteFile(m, nil, 0o666)
	}
}
`,
	})
	m := e.merged(e.shards(1, "-strategy", "random", "-budget", "8", "-run", "TestParent"))
	if !m.Complete || len(m.Bugs) != 0 || m.Runs != 8 {
		t.Errorf("got complete %v, %d runs, bugs %+v; want complete, 8 runs, no bug", m.Complete, m.Runs, m.Bugs)
	}
}
