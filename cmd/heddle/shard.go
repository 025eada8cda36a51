package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// heddle test -shard i/n explores a deterministic, disjoint share of the
// work of `heddle test` with the same flags, and writes a result file that
// heddle merge combines with those of the other shards (merge.go).
//
// The work is a list of units, the same on every shard: a test, or, for a
// strategy whose run number r is a pure function of the seed and r (runSplit),
// a range of a test's runs. Units are assigned to shards by a
// deterministic greedy balance of their estimated cost (runs). A shard
// explores each of its units in a test binary process of its own, in plan
// order, and after each one rewrites a checkpoint next to the result file:
// a shard killed and started again skips the units it finished and keeps
// the bugs it found.

// resultFormat and resultVersion identify a shard's result file; merge
// refuses other formats and versions.
const (
	resultFormat  = "heddle-shard-result"
	resultVersion = 1
)

// runSplit reports whether a shard may split strategy's runs by number:
// run r's schedule depends only on the seed and r (runRNG in
// internal/strategy; PCT learns its bounds within blocks of
// strategy.RunBlock runs, so its ranges start at a block). The portfolio
// rotates its members by a counter and has a systematic member, and the
// systematic strategies explore a tree: they are split by test.
func runSplit(name string) bool { return strategy.SplitKind(name) == "runs" }

// runAlign is the alignment of the run ranges of strategy name.
func runAlign(name string) int {
	if name == "pct" {
		return strategy.RunBlock
	}
	return 1
}

// Over-decomposition: a test whose runs split has at least overSplit
// chunks per shard (so that shards balance when tests differ in cost),
// and chunks of at most maxChunk runs (so that a killed shard redoes
// little).
const (
	overSplit = 4
	maxChunk  = 10000
)

// shardSpec is -shard i/n and -result file.
type shardSpec struct {
	i, n   int
	result string
}

// splitShardArgs takes -shard and -result out of heddle test's arguments.
func splitShardArgs(args []string) (*shardSpec, []string, error) {
	var shard, result string
	var haveShard, haveResult bool
	var rest []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "shard" && name != "result") {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if k+1 >= len(args) {
				return nil, nil, fmt.Errorf("heddle: flag needs an argument: -%s", name)
			}
			k++
			val = args[k]
		}
		if name == "shard" {
			shard, haveShard = val, true
		} else {
			result, haveResult = val, true
		}
	}
	if !haveShard {
		if haveResult {
			return nil, nil, errors.New("heddle: -result needs -shard")
		}
		return nil, rest, nil
	}
	is, ns, ok := strings.Cut(shard, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, nil, fmt.Errorf("heddle: -shard %q: want i/n with 0 <= i < n", shard)
	}
	if result == "" {
		result = fmt.Sprintf("heddle-shard-%d-of-%d.json", i, n)
	}
	return &shardSpec{i: i, n: n, result: result}, rest, nil
}

// unit is one piece of the work: a test, or runs From..To of it.
type unit struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	From    int    `json:"from,omitempty"` // 0: the whole test
	To      int    `json:"to,omitempty"`
}

func (u unit) String() string {
	if u.From == 0 {
		return u.Package + " " + u.Test
	}
	return fmt.Sprintf("%s %s runs %d-%d", u.Package, u.Test, u.From, u.To)
}

func (u unit) cost(budgetRuns int) int {
	if u.From == 0 {
		return max(budgetRuns, 1)
	}
	return u.To - u.From + 1
}

// planTests splits each test into units: runs chunks for a strategy of
// runSplit with a budget in runs, else the whole test.
func planTests(tests []unit, strategy string, budgetRuns, n int) []unit {
	var units []unit
	align := runAlign(strategy)
	blocks := (budgetRuns + align - 1) / align // of align runs, the last maybe shorter
	for _, t := range tests {
		if !runSplit(strategy) || blocks < 2 {
			units = append(units, t)
			continue
		}
		c := min(blocks, overSplit*n)
		c = max(c, (budgetRuns+maxChunk-1)/maxChunk)
		c = min(c, blocks)
		for k := 0; k < c; k++ {
			from, to := (k*blocks/c)*align+1, min(((k+1)*blocks/c)*align, budgetRuns)
			units = append(units, unit{Package: t.Package, Test: t.Test, From: from, To: to})
		}
	}
	return units
}

// assign returns the shard of each unit: the largest units first, each
// to the least loaded shard (the lowest-numbered among equals). It is a
// pure function of the units, so every shard computes the same.
func assign(units []unit, budgetRuns, n int) []int {
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool {
		return units[order[a]].cost(budgetRuns) > units[order[b]].cost(budgetRuns)
	})
	load := make([]int, n)
	owner := make([]int, len(units))
	for _, k := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[k] = best
		load[best] += units[k].cost(budgetRuns)
	}
	return owner
}

// shardResult is a shard's result file, and its checkpoint.
type shardResult struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Heddle    string `json:"heddle"` // heddle's version
	Shard     int    `json:"shard"`
	Shards    int    `json:"shards"`
	Plan      string `json:"plan"`       // hash of the plan, the same on every shard of one exploration
	PlanUnits int    `json:"plan_units"` // units of the whole plan, all shards
	Strategy  string `json:"strategy"`
	Budget    string `json:"budget"`
	Seed      int64  `json:"seed"`
	KeepGoing bool   `json:"keep_going,omitempty"`
	// Tests are every test of the plan, in plan order, with the number of
	// units each was split into (over all shards).
	Tests []planTest `json:"tests"`
	// Units are this shard's share, in plan order; in a checkpoint, the
	// units finished so far.
	Units []unitResult `json:"units"`
	Bugs  []bugResult  `json:"bugs"`
	// Finished: every unit of the share was explored to its end.
	Finished bool `json:"finished"`
	// Setup is the wall time, in seconds, spent loading, rewriting,
	// building and listing the tests of every package (the last attempt's):
	// every shard pays it.
	Setup float64 `json:"setup_seconds"`
	// SetupCPU is the processor time of the setup, heddle's and its
	// children's (go build): unlike wall time, it does not grow when the
	// machine is shared.
	SetupCPU float64 `json:"setup_cpu_seconds"`
}

type planTest struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Units   int    `json:"units"`
}

type unitResult struct {
	unit
	Done      bool    `json:"done"` // explored to its end (or to its first bug, without -keep-going)
	Runs      int     `json:"runs"` // runs made
	Exhausted bool    `json:"exhausted,omitempty"`
	Proven    string  `json:"proven,omitempty"`
	Classes   int     `json:"classes,omitempty"`
	Skipped   bool    `json:"skipped,omitempty"` // the test called t.Skip
	StoppedBy string  `json:"stopped,omitempty"` // why the unit was not run: an earlier unit of its test found a bug
	Error     string  `json:"error,omitempty"`   // why it did not finish
	Bugs      int     `json:"bugs,omitempty"`    // bugs it found
	Elapsed   float64 `json:"seconds"`           // wall time of its test binary process
	CPU       float64 `json:"cpu_seconds"`       // processor time of the process, and heddle's meanwhile
}

type bugResult struct {
	Package  string `json:"package"`
	Test     string `json:"test"`
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Message  string `json:"message"`
	Run      int    `json:"run"`
	Steps    int    `json:"steps,omitempty"`
	Timing   bool   `json:"timing,omitempty"` // a timing-dependent test, not a bug unless -strict-timing
	File     string `json:"file"`             // the schedule file the shard wrote
	Schedule string `json:"schedule"`         // its content
}

// testShard is heddle test -shard.
func testShard(sh *shardSpec, f *testFlags, opts build.Options, stdout, stderr io.Writer) int {
	if f.racy {
		fmt.Fprintln(stderr, "heddle: -shard cannot be combined with -racy")
		return exitUsage
	}
	resultPath, err := filepath.Abs(sh.result)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(resultPath), 0o777)
	}
	if err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	begin, beginCPU := time.Now(), cpuTime()
	prog, outDir, out, ok := load(opts, f, stdout, stderr)
	if !ok {
		return exitUsage
	}
	// The tests of every package, each package built once.
	bins := map[string]string{}
	pkgs := map[string]*build.Package{}
	var tests []unit
	fingerprints := []string{}
	for _, pkg := range prog.Packages {
		if !pkg.HasTests {
			continue
		}
		bin, fatal := buildPackage(prog, pkg, f, out, stderr)
		if fatal || bin == "" {
			fmt.Fprintf(stderr, "heddle: shard %d/%d: %s does not build: no result written\n", sh.i, sh.n, pkg.ImportPath)
			return exitUsage
		}
		names, err := listTestsSorted(bin, pkg.Dir, f.run, f.skip)
		if err != nil {
			fmt.Fprintln(stderr, "heddle:", err)
			return exitUsage
		}
		bins[pkg.ImportPath], pkgs[pkg.ImportPath] = bin, pkg
		fingerprints = append(fingerprints, pkg.ImportPath+" "+pkg.Fingerprint)
		for _, name := range names {
			tests = append(tests, unit{Package: pkg.ImportPath, Test: name})
		}
	}
	units := planTests(tests, f.strategy, f.budget.Runs, sh.n)
	owner := assign(units, f.budget.Runs, sh.n)
	res := &shardResult{
		Format: resultFormat, Version: resultVersion, Heddle: version(),
		Shard: sh.i, Shards: sh.n, PlanUnits: len(units),
		Strategy: f.strategy, Budget: f.budget.Text, Seed: f.seed, KeepGoing: f.keepGoing,
		Units: []unitResult{}, Bugs: []bugResult{},
	}
	for _, u := range units {
		if n := len(res.Tests); n > 0 && res.Tests[n-1].Package == u.Package && res.Tests[n-1].Test == u.Test {
			res.Tests[n-1].Units++
			continue
		}
		res.Tests = append(res.Tests, planTest{Package: u.Package, Test: u.Test, Units: 1})
	}
	res.Plan = planHash(f, sh.n, units, fingerprints)
	res.Setup = time.Since(begin).Seconds()
	res.SetupCPU = (cpuTime() - beginCPU).Seconds()

	// Resume from the checkpoint of an earlier, unfinished attempt.
	ckPath := resultPath + ".checkpoint"
	done := map[unit]unitResult{}
	if ck, err := readShardResult(ckPath); err == nil {
		if ck.Plan != res.Plan || ck.Shard != sh.i || ck.Shards != sh.n {
			fmt.Fprintf(stderr, "heddle: %s is the checkpoint of another exploration (other flags, shards or code): remove it to start again\n", ckPath)
			return exitUsage
		}
		for _, u := range ck.Units {
			done[u.unit] = u
		}
		res.Bugs = append(res.Bugs, ck.Bugs...)
		say(out, f, fmt.Sprintf("heddle: shard %d/%d: resuming from %s: %d units finished, %d bugs kept", sh.i, sh.n, ckPath, len(ck.Units), len(ck.Bugs)))
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "heddle: %v: remove it to start again\n", err)
		return exitUsage
	}

	buggy := map[string]bool{} // tests of this shard that found a bug, without -keep-going
	for _, b := range res.Bugs {
		if !b.Timing {
			buggy[b.Package+" "+b.Test] = true
		}
	}
	ck := *res
	ck.Units = nil
	var ckErr error
	save := func() {
		ck.Bugs = res.Bugs
		if err := writeJSONAtomic(ckPath, &ck); err != nil && ckErr == nil {
			ckErr = err
		}
	}
	for k, u := range units {
		if owner[k] != sh.i {
			continue
		}
		if r, ok := done[u]; ok {
			ck.Units = append(ck.Units, r)
			res.Units = append(res.Units, r)
			continue
		}
		key := u.Package + " " + u.Test
		var r unitResult
		if buggy[key] && !f.keepGoing {
			r = unitResult{unit: u, Done: true, StoppedBy: "an earlier run of this test on this shard found a bug"}
		} else {
			// A bug is checkpointed as soon as it is found: a shard
			// killed in the middle of the unit keeps it.
			began, beganCPU := time.Now(), cpuTime()
			r = runUnit(u, bins[u.Package], pkgs[u.Package], prog, f, outDir, out, stderr, func(b bugResult) {
				if addBug(res, b) {
					save()
				}
				if !b.Timing {
					buggy[key] = true
				}
			})
			r.Elapsed = time.Since(began).Seconds()
			r.CPU = (cpuTime() - beganCPU).Seconds()
		}
		res.Units = append(res.Units, r)
		if r.Done {
			ck.Units = append(ck.Units, r)
			save()
		}
		if ckErr != nil {
			fmt.Fprintln(stderr, "heddle:", ckErr)
			return exitUsage
		}
		if interrupted.Load() {
			break
		}
	}
	res.Finished = true
	for k, u := range units {
		if owner[k] == sh.i && !unitDone(res.Units, u) {
			res.Finished = false
		}
	}
	if err := writeJSONAtomic(resultPath, res); err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	if res.Finished {
		// The result is final: a new heddle test -shard with this result
		// file starts afresh.
		os.Remove(ckPath)
	}
	runs, nbugs := 0, 0
	for _, u := range res.Units {
		runs += u.Runs
	}
	for _, b := range res.Bugs {
		if !b.Timing {
			nbugs++
		}
	}
	state := "finished"
	if !res.Finished {
		state = "NOT finished"
	}
	say(out, f, fmt.Sprintf("heddle: shard %d/%d %s: %d of %d units, %d runs, %d %s; result in %s", sh.i, sh.n, state, len(res.Units), len(units), runs, nbugs, plural(nbugs, "bug"), resultPath))
	switch {
	case !res.Finished:
		return exitUsage
	case nbugs > 0:
		return exitFail
	}
	return exitOK
}

// addBug adds b to the result unless it is there already (a unit redone
// after a kill finds its bugs again), and reports whether it added it.
func addBug(res *shardResult, b bugResult) bool {
	for _, o := range res.Bugs {
		if o.Package == b.Package && o.Test == b.Test && o.Key == b.Key && o.Run == b.Run && o.Timing == b.Timing {
			return false
		}
	}
	res.Bugs = append(res.Bugs, b)
	return true
}

func unitDone(rs []unitResult, u unit) bool {
	for _, r := range rs {
		if r.unit == u {
			return r.Done
		}
	}
	return false
}

// planHash identifies the plan: the flags that change what is explored,
// the number of shards, the units and the rewritten programs.
func planHash(f *testFlags, n int, units []unit, fingerprints []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\n%d\n%s\n%s\n%d\n%v\n%s\n%s\n%s\n%v\n%v\n%d\n%d\n%d\n%v\n%v\n%s\n",
		resultVersion, n, f.strategy, f.budget.Text, f.seed, f.keepGoing, f.run, f.disable, f.leakIgnore,
		f.leaks, f.strict, f.pctDepth, f.stepLimit, f.maxStarve, f.race, f.tags != "", f.tags)
	if f.skip != "" {
		fmt.Fprintf(h, "skip %s\n", f.skip)
	}
	if f.keepSpin {
		fmt.Fprintln(h, "keep-spinners")
	}
	for _, fp := range fingerprints {
		fmt.Fprintln(h, fp)
	}
	for _, u := range units {
		fmt.Fprintln(h, u.String())
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// listTestsSorted lists what a test binary runs that -run pattern run
// and -skip pattern skip select, sorted: its tests, fuzz targets (their
// seed corpora) and examples with output, as heddle test runs them
// (listRunnable). Shards listed tests only: a failing example was a bug of
// heddle test and not of the merged shards.
func listTestsSorted(bin, dir, run, skip string) ([]string, error) {
	all, err := listSelected(bin, dir, run, skip)
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %v", bin, err)
	}
	var names []string
	for _, l := range all {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Fuzz") || strings.HasPrefix(l, "Example") {
			names = append(names, l)
		}
	}
	sort.Strings(names)
	return names, nil
}

// runUnit explores one unit in a test binary process of its own.
// onBug is called with each bug (and timing verdict) as it is found.
func runUnit(u unit, bin string, pkg *build.Package, prog *build.Program, f *testFlags, outDir string, out *syncWriter, stderr io.Writer, onBug func(bugResult)) unitResult {
	cfg := exploreConfig(f, outDir, prog, pkg)
	if u.From > 0 {
		cfg.FirstRun, cfg.Runs = u.From, u.To
	}
	uf := *f
	uf.run = "^" + regexp.QuoteMeta(u.Test) + "$"
	sink := out
	if !f.json && !f.verbose {
		sink = &syncWriter{w: io.Discard}
	}
	r := unitResult{unit: u}
	onEvent := func(e event.Event) {
		if e.Action != event.Bug && e.Action != event.Timing {
			return
		}
		sched, err := os.ReadFile(e.Schedule)
		if err != nil {
			r.Error = fmt.Sprintf("reading the schedule of a bug: %v", err)
		}
		b := bugResult{Package: u.Package, Test: u.Test, Kind: e.Kind, Key: e.Key, Message: e.Message, Run: e.Run, Steps: e.Steps, Timing: e.Action == event.Timing, File: e.Schedule, Schedule: string(sched)}
		if !b.Timing {
			r.Bugs++
		}
		onBug(b)
	}
	rr, err := runBinary(runSpec{Package: u.Package, Dir: pkg.Dir, Binary: bin, Args: testArgs(&uf), Config: cfg, JSON: f.json, Verbose: f.verbose, Out: sink, OnEvent: onEvent})
	if err != nil {
		r.Error = err.Error()
		fmt.Fprintln(stderr, err)
		return r
	}
	summaries := 0
	interruptedRun := false
	for _, e := range rr.Events {
		switch e.Action {
		case event.Summary:
			summaries++
			r.Runs += e.Runs
			r.Exhausted = e.Exhausted
			r.Proven = e.Proven
			r.Classes = e.Classes
			interruptedRun = interruptedRun || e.Interrupted
		case event.Skip:
			r.Skipped = true
		case event.Bug, event.Timing:
			if !f.json && !f.verbose {
				fmt.Fprintln(out, strings.TrimRight(e.Report, "\n"))
			}
		}
	}
	switch {
	case r.Error != "":
	case interruptedRun:
		r.Error = "interrupted"
	case summaries == 0 && !r.Skipped:
		r.Error = "the test binary explored nothing:\n" + lastLines(rr.Output, 20)
	case rr.Failed && r.Bugs == 0 && !r.Skipped:
		r.Error = "the test binary failed without a bug:\n" + lastLines(rr.Output, 20)
	default:
		r.Done = true
	}
	state := "ok  "
	if r.Bugs > 0 {
		state = "FAIL"
	}
	if !r.Done {
		state = "ERR "
		fmt.Fprintf(stderr, "heddle: %s: %s\n", u, r.Error)
	}
	if !f.json {
		fmt.Fprintf(out, "%s\t%s\t%d runs\n", state, u, r.Runs)
	}
	return r
}

// say prints a line of the shard's own, as an output event with -json.
func say(out *syncWriter, f *testFlags, line string) {
	if f.json {
		out.printEvent(event.Event{Action: event.Output, Output: line + "\n"})
		return
	}
	fmt.Fprintln(out, line)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func readShardResult(path string) (*shardResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r shardResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a shard result: %v", path, err)
	}
	if r.Format != resultFormat {
		return nil, fmt.Errorf("%s: not a shard result (format %q)", path, r.Format)
	}
	if r.Version != resultVersion {
		return nil, fmt.Errorf("%s: a shard result of version %d; this heddle reads version %d", path, r.Version, resultVersion)
	}
	return &r, nil
}

// writeJSONAtomic writes v to path as JSON: into a temporary file in the
// same directory, synced, then renamed over path, so that a reader (or a
// shard killed midway) sees the old file or the new one, never half of one.
func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %v", path, err)
	}
	return nil
}
