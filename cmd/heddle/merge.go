package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"heddle.dev/internal/build"
)

const mergeUsage = `usage: heddle merge [-json] [-o dir] FILES...

Merge combines the result files that heddle test -shard i/n wrote for
the shards of one exploration (the same packages, flags and n) into one
result: the bugs, deduplicated as one process would have reported them,
each with its schedule file (written into -o dir); the total runs; and a
completeness statement, which holds only if every shard 0..n-1 is given
exactly once and finished its share.

The exit status is 0 when the result is complete and found no bug, 1
when it found a bug or is not complete, 2 for unreadable or mismatched
files.

Flags:

	-json    print the merged result as JSON (format heddle-merged-result)
	-o dir   write the bugs' schedule files into dir (default: heddle's
	         cache, schedules/merged-PLAN)
`

const mergedFormat = "heddle-merged-result"

// mergedResult is heddle merge's result (-json).
type mergedResult struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Plan      string `json:"plan"`
	Shards    int    `json:"shards"`
	Strategy  string `json:"strategy"`
	Budget    string `json:"budget"`
	Seed      int64  `json:"seed"`
	KeepGoing bool   `json:"keep_going,omitempty"`
	// Complete: every shard 0..Shards-1 was given exactly once and
	// finished its share.
	Complete   bool          `json:"complete"`
	Statement  string        `json:"statement"`
	Missing    []int         `json:"missing,omitempty"`    // shards not given
	Duplicate  []int         `json:"duplicate,omitempty"`  // shards given more than once
	Unfinished []string      `json:"unfinished,omitempty"` // units not finished, "shard k: unit"
	Runs       int           `json:"runs"`
	Tests      []mergedTest  `json:"tests"`
	Bugs       []bugResult   `json:"bugs"`
	Timing     []bugResult   `json:"timing,omitempty"` // timing-dependent tests (not bugs unless -strict-timing)
	Balance    *balance      `json:"balance,omitempty"`
	units      []*unitResult // all units given
}

// balance measures how evenly the shards given shared the work, from
// what each recorded (its runs, its processes and their wall times).
type balance struct {
	Shards      int     `json:"shards"`
	RunsMin     int     `json:"runs_min"`
	RunsMax     int     `json:"runs_max"`
	RunsMean    float64 `json:"runs_mean"`
	Processes   int     `json:"processes"` // test binary processes, one per unit explored
	SetupMean   float64 `json:"setup_seconds_mean"`
	SecondsMin  float64 `json:"seconds_min"` // a shard's wall time: setup and units
	SecondsMax  float64 `json:"seconds_max"`
	SecondsMean float64 `json:"seconds_mean"`
	SecondsSum  float64 `json:"seconds_sum"`
	// The same in processor time (heddle's, go build's and the test
	// binaries'), which a machine shared with other work does not inflate.
	CPUMin   float64 `json:"cpu_seconds_min"`
	CPUMax   float64 `json:"cpu_seconds_max"`
	CPUMean  float64 `json:"cpu_seconds_mean"`
	CPUSum   float64 `json:"cpu_seconds_sum"`
	SetupCPU float64 `json:"setup_cpu_seconds_mean"`
	IdleCPU  float64 `json:"idle_cpu"` // 1 - mean/max shard processor time
	// Idle is 1 - mean/max shard time: the share of n workers' time spent
	// waiting for the slowest, were they all started together.
	Idle float64 `json:"idle"`
	// DuplicatedRuns are runs of a test that more than one unit given
	// made; ExtraRuns are runs a single process would not have made, past
	// a test's first bug (without -keep-going).
	DuplicatedRuns int `json:"duplicated_runs"`
	ExtraRuns      int `json:"extra_runs"`
	// Reports are the bug reports (and timing verdicts) the shards made,
	// each with its replays: a process reports a bug once, a shard once
	// per unit that meets it.
	Reports int `json:"reports"`
}

type mergedTest struct {
	Package   string `json:"package"`
	Test      string `json:"test"`
	Runs      int    `json:"runs"`
	Finished  bool   `json:"finished"`
	Exhausted bool   `json:"exhausted,omitempty"`
	Proven    string `json:"proven,omitempty"`
	Classes   int    `json:"classes,omitempty"`
	Bugs      int    `json:"bugs,omitempty"`
}

func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", mergeUsage, stderr)
	asJSON := fs.Bool("json", false, "")
	outDir := fs.String("o", "", "")
	files, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, mergeUsage)
		return exitUsage
	}
	var rs []*shardResult
	for _, file := range files {
		r, err := readShardResult(file)
		if err != nil {
			fmt.Fprintln(stderr, "heddle merge:", err)
			return exitUsage
		}
		rs = append(rs, r)
	}
	m, err := merge(rs, files)
	if err != nil {
		fmt.Fprintln(stderr, "heddle merge:", err)
		return exitUsage
	}
	dir := *outDir
	if dir == "" {
		cache, err := build.CacheDir()
		if err != nil {
			fmt.Fprintln(stderr, "heddle merge:", err)
			return exitUsage
		}
		dir = filepath.Join(cache, "schedules", "merged-"+m.Plan)
	}
	if len(m.Bugs)+len(m.Timing) > 0 {
		if err := writeSchedules(dir, m); err != nil {
			fmt.Fprintln(stderr, "heddle merge:", err)
			return exitUsage
		}
	}
	if *asJSON {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			fmt.Fprintln(stderr, "heddle merge:", err)
			return exitUsage
		}
		stdout.Write(append(b, '\n'))
	} else {
		printMerged(stdout, m)
	}
	if !m.Complete || len(m.Bugs) > 0 {
		return exitFail
	}
	return exitOK
}

// merge combines the results of the shards of one plan.
func merge(rs []*shardResult, files []string) (*mergedResult, error) {
	first := rs[0]
	for k, r := range rs {
		if r.Plan != first.Plan || r.Shards != first.Shards || r.PlanUnits != first.PlanUnits {
			return nil, fmt.Errorf("%s and %s are shards of different explorations (plan %s of %d shards, plan %s of %d shards): merge the shards of one heddle test command, run with the same packages, flags and code",
				files[0], files[k], first.Plan, first.Shards, r.Plan, r.Shards)
		}
	}
	m := &mergedResult{Format: mergedFormat, Version: resultVersion, Plan: first.Plan, Shards: first.Shards,
		Strategy: first.Strategy, Budget: first.Budget, Seed: first.Seed, KeepGoing: first.KeepGoing,
		Tests: []mergedTest{}, Bugs: []bugResult{}}
	seen := map[int]bool{}
	var all []bugResult
	for _, r := range rs {
		if seen[r.Shard] {
			m.Duplicate = append(m.Duplicate, r.Shard)
			continue // its bugs and runs are those of the first copy
		}
		seen[r.Shard] = true
		for k := range r.Units {
			u := &r.Units[k]
			m.units = append(m.units, u)
			if !u.Done {
				m.Unfinished = append(m.Unfinished, fmt.Sprintf("shard %d: %s", r.Shard, u.unit))
			}
		}
		if !r.Finished && len(r.Units) == 0 {
			m.Unfinished = append(m.Unfinished, fmt.Sprintf("shard %d: nothing explored", r.Shard))
		}
		all = append(all, r.Bugs...)
	}
	for s := 0; s < m.Shards; s++ {
		if !seen[s] {
			m.Missing = append(m.Missing, s)
		}
	}
	sort.Ints(m.Duplicate)

	// Tests, in the plan's order.
	byTest := map[string]*mergedTest{}
	planned := map[string]int{} // units of each test in the plan
	got := map[string]int{}     // units of each test given and done
	for _, t := range first.Tests {
		m.Tests = append(m.Tests, mergedTest{Package: t.Package, Test: t.Test})
		planned[t.Package+" "+t.Test] = t.Units
	}
	for k := range m.Tests {
		t := &m.Tests[k]
		byTest[t.Package+" "+t.Test] = t
	}
	units := 0
	for _, u := range m.units {
		t := byTest[u.Package+" "+u.Test]
		if t == nil {
			return nil, fmt.Errorf("shard results name test %s %s, not in their plan", u.Package, u.Test)
		}
		units++
		t.Runs += u.Runs
		m.Runs += u.Runs
		if u.Done {
			got[u.Package+" "+u.Test]++
		}
		if u.From == 0 {
			t.Exhausted, t.Proven, t.Classes = u.Exhausted, u.Proven, u.Classes
		}
	}
	for k := range m.Tests {
		t := &m.Tests[k]
		key := t.Package + " " + t.Test
		t.Finished = got[key] == planned[key]
	}
	m.bugs(all)
	for _, b := range m.Bugs {
		byTest[b.Package+" "+b.Test].Bugs++
	}
	m.Balance = m.balance(rs)
	m.Complete = len(m.Missing) == 0 && len(m.Duplicate) == 0 && len(m.Unfinished) == 0 && units == first.PlanUnits
	m.Statement = m.statement(units, first.PlanUnits)
	return m, nil
}

// balance measures the shards given (the first copy of each).
func (m *mergedResult) balance(rs []*shardResult) *balance {
	b := &balance{}
	seen := map[int]bool{}
	for _, r := range rs {
		if seen[r.Shard] {
			continue
		}
		seen[r.Shard] = true
		b.Reports += len(r.Bugs)
		runs, secs, cpu := 0, r.Setup, r.SetupCPU
		for _, u := range r.Units {
			runs += u.Runs
			secs += u.Elapsed
			cpu += u.CPU
			if u.StoppedBy == "" {
				b.Processes++
			}
		}
		if b.Shards == 0 || runs < b.RunsMin {
			b.RunsMin = runs
		}
		if b.Shards == 0 || secs < b.SecondsMin {
			b.SecondsMin = secs
		}
		if b.Shards == 0 || cpu < b.CPUMin {
			b.CPUMin = cpu
		}
		b.CPUMax = max(b.CPUMax, cpu)
		b.CPUSum += cpu
		b.SetupCPU += r.SetupCPU
		b.RunsMax = max(b.RunsMax, runs)
		b.SecondsMax = max(b.SecondsMax, secs)
		b.RunsMean += float64(runs)
		b.SecondsSum += secs
		b.SetupMean += r.Setup
		b.Shards++
	}
	if b.Shards == 0 {
		return b
	}
	b.RunsMean /= float64(b.Shards)
	b.SecondsMean = b.SecondsSum / float64(b.Shards)
	b.SetupMean /= float64(b.Shards)
	if b.SecondsMax > 0 {
		b.Idle = 1 - b.SecondsMean/b.SecondsMax
	}
	b.CPUMean = b.CPUSum / float64(b.Shards)
	b.SetupCPU /= float64(b.Shards)
	if b.CPUMax > 0 {
		b.IdleCPU = 1 - b.CPUMean/b.CPUMax
	}
	// Runs made twice: overlapping ranges of one test (none, by the plan,
	// unless shard files of different attempts are mixed).
	made := map[string][][2]int{}
	for _, u := range m.units {
		from := max(u.From, 1) // the runs made: From.. (a whole test: 1..)
		to := from + u.Runs - 1
		key := u.Package + " " + u.Test
		for _, o := range made[key] {
			if lo, hi := max(from, o[0]), min(to, o[1]); lo <= hi {
				b.DuplicatedRuns += hi - lo + 1
			}
		}
		made[key] = append(made[key], [2]int{from, to})
	}
	if !m.KeepGoing {
		for _, bug := range m.Bugs {
			t := m.test(bug.Package, bug.Test)
			if t != nil && t.Runs > bug.Run {
				b.ExtraRuns += t.Runs - bug.Run
			}
		}
	}
	return b
}

func (m *mergedResult) test(pkg, name string) *mergedTest {
	for k := range m.Tests {
		if m.Tests[k].Package == pkg && m.Tests[k].Test == name {
			return &m.Tests[k]
		}
	}
	return nil
}

// bugs deduplicates the bugs of all shards as one process would have
// reported them: a process explores a test's runs in order and, without
// -keep-going, stops at its first bug, and with it reports each distinct
// bug (kind and place, the Key) at the first run that meets it. Each shard
// explores its runs of a test in order, stopping at its first bug: the
// first bug of the test over all shards is the one process's, since every
// run before it was explored by some shard.
func (m *mergedResult) bugs(all []bugResult) {
	sort.SliceStable(all, func(a, b int) bool {
		x, y := all[a], all[b]
		if x.Package != y.Package {
			return x.Package < y.Package
		}
		if x.Test != y.Test {
			return x.Test < y.Test
		}
		if x.Run != y.Run {
			return x.Run < y.Run
		}
		return x.Key < y.Key
	})
	type tk struct{ pkg, test string }
	stop := map[tk]int{} // the run at which one process stops exploring the test
	for _, b := range all {
		t := tk{b.Package, b.Test}
		if _, ok := stop[t]; ok || b.Timing {
			continue
		}
		if !m.KeepGoing || b.Kind == "blocked" {
			stop[t] = b.Run
		}
	}
	seen := map[string]bool{}
	for _, b := range all {
		t := tk{b.Package, b.Test}
		if s, ok := stop[t]; ok && b.Run > s {
			continue
		}
		id := fmt.Sprintf("%s %s %v %s", b.Package, b.Test, b.Timing, b.Key)
		if !b.Timing && !m.KeepGoing {
			id = fmt.Sprintf("%s %s bug", b.Package, b.Test)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if b.Timing {
			m.Timing = append(m.Timing, b)
		} else {
			m.Bugs = append(m.Bugs, b)
		}
	}
}

func (m *mergedResult) statement(units, planUnits int) string {
	if m.Complete {
		s := fmt.Sprintf("complete: all %d shards given once and finished: %d tests, %d runs, %d %s", m.Shards, len(m.Tests), m.Runs, len(m.Bugs), plural(len(m.Bugs), "bug"))
		ex := 0
		for _, t := range m.Tests {
			if t.Exhausted {
				ex++
			}
		}
		if ex > 0 {
			s += fmt.Sprintf(", %d exhausted", ex)
		}
		return s
	}
	var why []string
	if len(m.Missing) > 0 {
		why = append(why, fmt.Sprintf("shards %s of 0..%d missing", intList(m.Missing), m.Shards-1))
	}
	if len(m.Duplicate) > 0 {
		why = append(why, fmt.Sprintf("shards %s given more than once", intList(m.Duplicate)))
	}
	if len(m.Unfinished) > 0 {
		why = append(why, fmt.Sprintf("%d %s not finished (%s)", len(m.Unfinished), plural(len(m.Unfinished), "unit"), strings.Join(m.Unfinished, "; ")))
	}
	if len(why) == 0 && units != planUnits {
		why = append(why, fmt.Sprintf("%d of the plan's %d units explored", units, planUnits))
	}
	return fmt.Sprintf("NOT complete: %s: %d runs, %d %s found so far", strings.Join(why, "; "), m.Runs, len(m.Bugs), plural(len(m.Bugs), "bug"))
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for k, x := range xs {
		s[k] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// writeSchedules writes the schedule of each merged bug into dir and sets
// its File there.
func writeSchedules(dir string, m *mergedResult) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, list := range [][]bugResult{m.Bugs, m.Timing} {
		for k := range list {
			b := &list[k]
			path := filepath.Join(abs, sanitizeName(b.Package)+"-"+filepath.Base(b.File))
			if err := os.WriteFile(path, []byte(b.Schedule), 0o666); err != nil {
				return err
			}
			b.File = path
		}
	}
	return nil
}

func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

func printMerged(w io.Writer, m *mergedResult) {
	fmt.Fprintf(w, "heddle merge: plan %s: strategy %s, budget %s, seed %d, %d shards\n", m.Plan, m.Strategy, m.Budget, m.Seed, m.Shards)
	for _, b := range m.Bugs {
		fmt.Fprintf(w, "FAIL\t%s %s: %s at run %d: %s\n\tschedule: %s\n\treplay:   %s\n", b.Package, b.Test, b.Kind, b.Run, firstLine(b.Message), b.File, replayCommand(b.File))
	}
	for _, b := range m.Timing {
		fmt.Fprintf(w, "TIMING\t%s %s: timing-dependent test at run %d\n\tschedule: %s\n", b.Package, b.Test, b.Run, b.File)
	}
	for _, t := range m.Tests {
		if t.Bugs > 0 {
			continue
		}
		state := "ok  "
		if !t.Finished {
			state = "??  "
		}
		s := fmt.Sprintf("%s\t%s %s: %d runs", state, t.Package, t.Test, t.Runs)
		if t.Proven != "" {
			s += ": " + t.Proven
		} else if t.Exhausted {
			s += ", exhausted"
		}
		if t.Classes > 0 {
			s += fmt.Sprintf(", %d classes", t.Classes)
		}
		fmt.Fprintln(w, s)
	}
	fmt.Fprintln(w, m.Statement)
	if b := m.Balance; b != nil && b.Shards > 0 {
		fmt.Fprintf(w, "balance: %d shards: runs per shard %d to %d (mean %.0f); wall time per shard %.2fs to %.2fs (mean %.2fs, of which setup %.2fs), idle from imbalance %.0f%%; processor time per shard %.2fs to %.2fs (mean %.2fs, of which setup %.2fs), idle from imbalance %.0f%%; %d test processes; %d runs made twice, %d past a first bug; %d bug reports made for %d bugs\n",
			b.Shards, b.RunsMin, b.RunsMax, b.RunsMean, b.SecondsMin, b.SecondsMax, b.SecondsMean, b.SetupMean, 100*b.Idle, b.CPUMin, b.CPUMax, b.CPUMean, b.SetupCPU, 100*b.IdleCPU, b.Processes, b.DuplicatedRuns, b.ExtraRuns, b.Reports, len(m.Bugs)+len(m.Timing))
	}
}
