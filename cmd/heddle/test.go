package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/strategy"
)

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// kinds are the kinds of report -disable accepts: the engine's kinds of
// bug, and the timing verdict.
func kinds() []string { return append(append([]string(nil), engine.Kinds...), explore.KindTiming) }

func knownKind(k string) bool {
	for _, x := range kinds() {
		if x == k {
			return true
		}
	}
	return false
}

const testUsage = `usage: heddle test [packages] [flags]

Test rewrites the packages' concurrency operations into calls to heddle's
runtime, builds their tests, and runs each test many times, forcing one
interleaving of goroutines per run. Packages are named as for go test
(default "."). Flags may come before or after the packages.

For each bug it prints a report and a command that replays the bug from its
schedule file. The exit status is 0 when every test passed, 1 when a test
failed or a bug was found, and 2 for usage and build errors.

Flags:

	-run regexp      run only the tests matching regexp, as go test -run: its
	                 slash-separated elements select subtests, which are
	                 skipped in every run when they do not match
	-skip regexp     do not run the tests (and subtests) matching regexp,
	                 as go test -skip
	-strategy name   exploration strategy (default portfolio): portfolio,
	                 random, pct, pos, dfs, ipb, idb, sdpor, odpor, lazy,
	                 hbrcache, lazycache, hapset
	                 (see docs/strategies.md)
	-budget n|dur    runs per test (1000, the default, within 2m per test) or wall time per test (10s)
	-budget-total d  explore for about d in all (10m): spread over the tests, each
	                 within -budget; time a test does not use goes to the next
	-seed n          seed of the randomized strategies (default 1)
	-keep-going      collect distinct bugs instead of stopping at the first
	-leaks=false     do not report goroutines left running at the end of a test
	-leak-ignore f,g do not report leaked goroutines created in or blocked in a
	                 function whose name contains f or g (like goleak's
	                 IgnoreTopFunction)
	-disable kinds   do not report these kinds of bug (comma-separated):
	                 deadlock, leak, panic, fail, misuse, steplimit,
	                 nondeterminism, blocked, race, timing
	-strict-timing   a timing-dependent test (one that fails only when its
	                 own timer fires before the goroutines it waits for
	                 could run) fails the run; without it, it is reported
	                 apart and the test passes
	-strict-nondeterminism
	                 a test that is nondeterministic by itself (the same
	                 schedule ran differently twice) fails the run; without
	                 it, heddle says it cannot explore it and the test passes
	-max-starve d    let a timer fire while goroutines could run if it
	                 starves them for at most d, and the clock move on by at
	                 most d while a goroutine waits to run (a late wake)
	                 (default 100ms; 0: never)
	-keep-spinners   keep goroutines that poll without progress (an atomic
	                 load, Gosched, a select's default) among the choices
	                 while others can run: by default they are left out
	                 after 2 polls in a row (4 for the non-exhaustive
	                 strategies), which cuts spin loops short, and an
	                 exhaustive strategy that left one out claims only
	                 the schedules within that bound ("exhausted up to
	                 the spin bound"); with it, a loop that polls a
	                 bounded number of times is explored to its end, but
	                 one that polls until another goroutine acts has
	                 schedules without end (one more poll each): give a
	                 budget
	-pct-depth d     the bug depth d of PCT (default 3)
	-step-limit n    scheduling steps per run before "step bound exceeded" (default 1000000)
	-max-memory size end a run whose test binary's live heap grows past size,
	                 failing the test with what grew (default 2GB; 0: no bound)
	-timeout d       fail a test binary that runs longer than d (default 10m;
	                 none with a time budget); 0 disables it. Also ends a
	                 run whose test has not returned after d of virtual
	                 time (default 10m, even with a time budget): steplimit
	-parallel n      explore with n worker processes (default: the number of
	                 CPUs): several packages and tests at once, and one
	                 test's runs or tree split among them (random, pct, pos,
	                 dfs, sdpor); 1: one process, one test at a time
	-o dir           write schedule files to dir (default: heddle's cache)
	-race            build with the race detector
	-racy            explore with the race detector, then explore again with
	                 the racy statements it saw as scheduling points
	-tags list       comma-separated build tags
	-v               verbose output: every test, and the binary's full output
	-json            print JSON events, one per line (see docs/json.md)
	-x               print the go commands heddle runs
	-shard i/n       explore shard i (0 <= i < n) of the work only, and
	                 write its result file for heddle merge
	-result file     the shard's result file (default heddle-shard-i-of-n.json);
	                 its checkpoint is file.checkpoint

-cover is not supported: go test ignores overlays when it measures
coverage (golang/go#73802).
`

// testFlags are the flags of heddle test.
type testFlags struct {
	run        string
	skip       string
	stdin      string // heddle run: the file every run of main reads as standard input
	strategy   string
	budget     budget
	total      time.Duration // -budget-total: the exploration time of the whole command, spread over its tests
	seed       int64
	keepGoing  bool
	leaks      bool
	leakIgnore string
	disable    string
	strict     bool // -strict-timing
	strictND   bool // -strict-nondeterminism
	maxStarve  time.Duration
	keepSpin   bool // -keep-spinners
	pctDepth   int
	stepLimit  int
	maxMemory  uint64
	timeout    time.Duration
	out        string
	race       bool
	racy       bool // heddle test -racy: a -race phase, then its racy statements as scheduling points
	tags       string
	verbose    bool
	json       bool
	x          bool
	timeoutSet bool
	budgetSet  bool // -budget given: no default bound in time (explore.DefaultRunsCap)
	parallel   int  // -parallel: worker processes (parallel.go)
}

func parseTestFlags(args []string, stderr io.Writer) (*testFlags, []string, error) {
	return parseExploreFlags("test", testUsage, args, stderr)
}

// parseExploreFlags parses the flags of heddle test, or of heddle run
// (cmd "run"), which has all of them but -run and -skip.
func parseExploreFlags(cmd, usage string, args []string, stderr io.Writer) (*testFlags, []string, error) {
	def := explore.DefaultConfig()
	f := &testFlags{budget: budget{Runs: 1000, Text: "1000"}}
	fs := newFlagSet(cmd, usage, stderr)
	if cmd == "test" {
		fs.StringVar(&f.run, "run", "", "")
		fs.StringVar(&f.skip, "skip", "", "")
		fs.BoolVar(&f.racy, "racy", false, "")
	}
	if cmd == "run" {
		fs.StringVar(&f.stdin, "stdin", "", "")
	}
	fs.StringVar(&f.strategy, "strategy", "portfolio", "")
	fs.Var(budgetFlag{&f.budget}, "budget", "")
	fs.DurationVar(&f.total, "budget-total", 0, "")
	fs.Int64Var(&f.seed, "seed", def.Seed, "")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "")
	fs.BoolVar(&f.leaks, "leaks", true, "")
	fs.StringVar(&f.leakIgnore, "leak-ignore", "", "")
	fs.StringVar(&f.disable, "disable", "", "")
	fs.BoolVar(&f.strict, "strict-timing", false, "")
	fs.BoolVar(&f.strictND, "strict-nondeterminism", false, "")
	fs.DurationVar(&f.maxStarve, "max-starve", def.MaxStarve, "")
	fs.BoolVar(&f.keepSpin, "keep-spinners", false, "")
	fs.IntVar(&f.pctDepth, "pct-depth", def.PCTDepth, "")
	fs.IntVar(&f.stepLimit, "step-limit", def.StepLimit, "")
	f.maxMemory = def.MaxMemory
	fs.Var(sizeFlag{&f.maxMemory}, "max-memory", "")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "")
	fs.StringVar(&f.out, "o", "", "")
	fs.BoolVar(&f.race, "race", false, "")
	fs.StringVar(&f.tags, "tags", "", "")
	fs.BoolVar(&f.verbose, "v", false, "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.x, "x", false, "")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "")
	var cover bool
	var coverStr string
	fs.BoolVar(&cover, "cover", false, "")
	for _, n := range []string{"coverprofile", "covermode", "coverpkg"} {
		fs.StringVar(&coverStr, n, "", "")
	}
	pkgs, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if cover || coverStr != "" {
		return nil, nil, errors.New("heddle: -cover cannot be combined with heddle (go test ignores -overlay with coverage, golang/go#73802)")
	}
	if !knownStrategy(f.strategy) {
		return nil, nil, fmt.Errorf("heddle: unknown strategy %q (known: %s)", f.strategy, strings.Join(strategies(), ", "))
	}
	if f.stepLimit <= 0 {
		return nil, nil, errors.New("heddle: -step-limit must be positive")
	}
	if f.maxStarve < 0 {
		return nil, nil, errors.New("heddle: -max-starve must not be negative")
	}
	if f.pctDepth < 1 {
		return nil, nil, errors.New("heddle: -pct-depth must be at least 1")
	}
	for _, k := range splitList(f.disable) {
		if !knownKind(k) {
			return nil, nil, fmt.Errorf("heddle: -disable: unknown kind of bug %q (known: %s)", k, strings.Join(kinds(), ", "))
		}
	}
	if f.timeout < 0 {
		return nil, nil, errors.New("heddle: -timeout must not be negative")
	}
	if f.total < 0 {
		return nil, nil, errors.New("heddle: -budget-total must not be negative")
	}
	if f.total > 0 && f.racy {
		return nil, nil, errors.New("heddle: -budget-total cannot be combined with -racy")
	}
	if f.parallel < 1 {
		return nil, nil, errors.New("heddle: -parallel must be at least 1")
	}
	if _, err := explore.NewNameMatcher(f.run, f.skip); err != nil {
		return nil, nil, fmt.Errorf("heddle: %v", err)
	}
	f.timeoutSet = isSet(fs, "timeout")
	f.budgetSet = isSet(fs, "budget")
	if !f.timeoutSet && (f.budget.Time > 0 || f.total > 0) {
		f.timeout = 0 // each test stops at its time budget; their number is unknown here
	}
	return f, pkgs, nil
}

func cmdTest(args []string, stdout, stderr io.Writer) int {
	shard, args, err := splitShardArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	f, patterns, err := parseTestFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if strings.HasPrefix(err.Error(), "heddle: ") {
			fmt.Fprintln(stderr, err)
		}
		return exitUsage
	}
	cache, err := build.CacheDir()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	opts := build.Options{
		Dir:      wd,
		Patterns: patterns,
		Race:     f.race,
		Tags:     f.tags,
		CacheDir: cache,
		Stderr:   stderr,
	}
	if shard != nil {
		return testShard(shard, f, opts, stdout, stderr)
	}
	if f.racy {
		return testRacy(f, opts, stdout, stderr)
	}
	prog, outDir, out, ok := load(opts, f, stdout, stderr)
	if !ok {
		return exitUsage
	}
	return testPackages(prog, f, outDir, out, stderr)
}

// explorePackage builds pkg's test binary, explores its tests with run and
// prints the result as go test does. It returns exitOK, exitFail (a test
// failed) or exitUsage (the package did not build), and fatal when heddle
// cannot go on. configure adjusts the exploration's configuration, given
// the binary.
func explorePackage(prog *build.Program, pkg *build.Package, f *testFlags, outDir string, out *syncWriter, stderr io.Writer,
	configure func(cfg *explore.Config, bin string), run func(runSpec) (*runResult, error)) (code int, fatal bool) {
	start := time.Now()
	bin, fatal := buildPackage(prog, pkg, f, out, stderr)
	if fatal {
		return exitUsage, true
	}
	if bin == "" {
		return exitUsage, false
	}
	cfg := exploreConfig(f, outDir, prog, pkg)
	if configure != nil {
		configure(&cfg, bin)
	}
	res, err := run(runSpec{Package: pkg.ImportPath, Dir: pkg.Dir, Binary: bin, Args: testArgs(f), Config: cfg, JSON: f.json, Verbose: f.verbose, Out: out})
	if errors.Is(err, errNotTested) {
		return exitOK, false
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage, true
	}
	if printResult(out, f, pkg.ImportPath, res, time.Since(start), false) {
		return exitFail, false
	}
	return exitOK, false
}

// testArgs are the -test.* flags of a test binary.
func testArgs(f *testFlags) []string {
	targs := []string{"-test.paniconexit0", "-test.timeout=" + f.timeout.String()}
	if f.run != "" {
		targs = append(targs, "-test.run="+f.run)
	}
	if f.skip != "" {
		targs = append(targs, "-test.skip="+f.skip)
	}
	if f.verbose || f.json {
		targs = append(targs, "-test.v=true")
	}
	return targs
}

// scheduleDir is where schedule files go: -o, or heddle's cache. It
// creates it.
func scheduleDir(out, cache string, prog *build.Program) (string, error) {
	if out == "" {
		out = filepath.Join(cache, "schedules", filepath.Base(prog.Module.Root)+"-"+shortID(prog.Module.Root))
	}
	out, err := filepath.Abs(out)
	if err == nil {
		err = os.MkdirAll(out, 0o777)
	}
	return out, err
}

// commandEpoch is the virtual instant at which the runs of this command
// start: the wall clock when it started, the same for every package and
// worker (explore.Config.Epoch), or the instant $HEDDLE_EPOCH gives (RFC
// 3339), so that the jobs of a cluster, or two commands whose schedules are
// compared, start their clocks at the same instant. It keeps the wall
// clock's nanoseconds: truncated to the second, every time.Now of a test
// that fires no timer was on a whole second, which a real clock almost
// never is (zerolog's cbor TestAppendTimeNow expects AppendTime(time.Now())
// to encode a fraction of a second, and failed at every run).
var commandEpoch = sync.OnceValue(func() time.Time {
	if v := os.Getenv("HEDDLE_EPOCH"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err == nil {
			return t.UTC()
		}
		fmt.Fprintf(os.Stderr, "heddle: ignoring HEDDLE_EPOCH: %v\n", err)
	}
	return time.Now().UTC().Round(0)
})

// exploreConfig is the configuration of the test binary of pkg.
func exploreConfig(f *testFlags, outDir string, prog *build.Program, pkg *build.Package) explore.Config {
	cfg := explore.DefaultConfig()
	cfg.Strategy = f.strategy
	cfg.Runs, cfg.Time, cfg.Budget = f.budget.Runs, f.budget.Time, f.budget.Text
	if f.total > 0 {
		// heddle run's one test; heddle test gives each package its share.
		cfg.PackageTime, cfg.Tests = f.total, 1
	} else if !f.budgetSet {
		// The default 1000 runs, within a bound in time.
		cfg.RunsCap = explore.DefaultRunsCap
	}
	cfg.Seed = f.seed
	cfg.Run, cfg.Skip = explore.SubtestPatterns(f.run, f.skip)
	cfg.KeepGoing = f.keepGoing
	cfg.OutDir = outDir
	cfg.StepLimit = f.stepLimit
	cfg.MaxMemory = f.maxMemory
	if !f.leaks {
		cfg.Disable = append(cfg.Disable, "leak")
	}
	cfg.Disable = append(cfg.Disable, splitList(f.disable)...)
	cfg.LeakIgnore = splitList(f.leakIgnore)
	cfg.MaxStarve = f.maxStarve
	cfg.KeepSpinners = f.keepSpin
	if f.timeoutSet {
		// The virtual time a run may take (explore.DefaultTimeLimit,
		// go test's default -timeout, otherwise); 0: no bound.
		cfg.TimeLimit = f.timeout
	}
	cfg.Epoch = commandEpoch()
	cfg.StrictTiming = f.strict
	cfg.StrictNondeterminism = f.strictND
	cfg.Output = f.verbose // -v: the test's own output, every run's
	cfg.PCTDepth = f.pctDepth
	cfg.Package = pkg.ImportPath
	cfg.Dir = pkg.Dir
	cfg.Version = version()
	cfg.Fingerprint = pkg.Fingerprint
	cfg.Files = pkg.Files
	cfg.BuildFlags = prog.BuildFlags
	cfg.TestOnly = pkg.TestOnly
	return cfg
}

// strategies are the exploration strategies -strategy accepts: all but
// replay, which is heddle replay's.
func strategies() []string {
	var names []string
	for _, n := range strategy.Names() {
		if n != "replay" {
			names = append(names, n)
		}
	}
	return names
}

func knownStrategy(name string) bool {
	for _, n := range strategies() {
		if n == name {
			return true
		}
	}
	return false
}

func countBugs(evs []event.Event) int {
	n := 0
	for _, e := range evs {
		if e.Action == event.Bug {
			n++
		}
	}
	return n
}

func countTiming(evs []event.Event) int { return countAction(evs, event.Timing) }

func countAction(evs []event.Event, action string) int {
	n := 0
	for _, e := range evs {
		if e.Action == action {
			n++
		}
	}
	return n
}

// countFresh counts the tests explored with one process per run, as they
// fail on any run after their first in one process (explore.freshRuns).
func countFresh(evs []event.Event) int {
	n := 0
	for _, e := range evs {
		if e.Action == event.Summary && e.FreshRuns > 0 {
			n++
		}
	}
	return n
}

// countVerdict counts the tests heddle could not explore for the reason
// kind: explore.KindRerun (they fail on any run after their first in one
// process), explore.KindLong (longer than the step bound).
func countVerdict(evs []event.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Action == event.Nondeterministic && e.Kind == kind {
			n++
		}
	}
	return n
}

// printBugs prints, for each bug, its report unless the test binary already
// printed it (the runtime fails the test with the report), and the command
// that replays it unless the report has it.
func printBugs(out io.Writer, res *runResult) {
	for _, e := range res.Events {
		if e.Action != event.Bug && e.Action != event.Timing && e.Action != event.Nondeterministic {
			continue
		}
		report := strings.TrimRight(e.Report, "\n")
		if report == "" {
			report = fmt.Sprintf("heddle: %s: %s: %s (run %d, %d steps)", e.Test, e.Kind, e.Message, e.Run, e.Steps)
		}
		if first := firstLine(report); first == "" || !strings.Contains(res.Output, first) {
			fmt.Fprintln(out, report)
		}
		if e.Schedule == "" {
			continue
		}
		if cmd := replayCommand(e.Schedule); !strings.Contains(report, cmd) {
			fmt.Fprintf(out, "--- %s: %s: replay with:\n\t%s\n", e.Test, e.Kind, cmd)
		}
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// summary is the tail of an ok line: the tests explored, the runs made and
// the budget.
func summary(res *runResult, f *testFlags, main bool) string {
	tests, groups, runs, exhausted, stopped, capped, spinBound, bounded := 0, 0, 0, 0, 0, 0, 0, 0
	strategy := f.strategy
	proven := map[string]bool{}
	for _, e := range res.Events {
		if e.Action == event.Summary {
			if len(e.Group) > 0 {
				groups++
			} else {
				tests++
			}
			runs += e.Runs
			if e.Exhausted {
				exhausted++
			}
			if e.SpinBound > 0 {
				bounded++
				spinBound = max(spinBound, e.SpinBound)
			}
			if e.Interrupted {
				stopped++
			}
			if e.Capped {
				capped++
			}
			if e.Proven != "" {
				proven[e.Proven] = true
			}
			if e.Strategy != "" {
				strategy = e.Strategy
			}
		}
	}
	proven = groupProven(res.Events, proven)
	if tests == 0 {
		if res.NoTests {
			return " [no tests to run]"
		}
		return " [no tests explored]"
	}
	unit := " runs"
	if f.budget.Time > 0 {
		unit = ""
	}
	within := ""
	if f.total > 0 {
		within = " within -budget-total " + f.total.String()
	}
	s := fmt.Sprintf(" [%s, budget %s%s/test%s: %d %s%s, %d runs", strategy, f.budget.Text, unit, within, tests, plural(tests, "test"), groupsText(groups), runs)
	if stopped > 0 {
		s += ", interrupted"
	}
	if capped > 0 {
		s += fmt.Sprintf(", %d %s stopped at the default bound of %v per test (-budget %s makes every run)", capped, plural(capped, "test"), explore.DefaultRunsCap, f.budget.Text)
	}
	if n := countTiming(res.Events); n > 0 {
		s += fmt.Sprintf(", %d timing-dependent %s (not bugs; -strict-timing fails them)", n, plural(n, "test"))
	}
	rerun, long := countVerdict(res.Events, explore.KindRerun), countVerdict(res.Events, explore.KindLong)
	if n := countAction(res.Events, event.Nondeterministic) - rerun - long; n > 0 {
		s += fmt.Sprintf(", %d %s nondeterministic by %s, not explored (not bugs; -strict-nondeterminism fails them)", n, plural(n, "test"), pluralWord(n, "itself", "themselves"))
	}
	if rerun > 0 {
		s += fmt.Sprintf(", %d %s failing on any second run in one process, not explored past the first (not reported as bugs; -strict-nondeterminism fails them)", rerun, plural(rerun, "test"))
	}
	if n := countFresh(res.Events); n > 0 {
		s += fmt.Sprintf(", %d %s that cannot run twice in one process, explored with one process per run", n, plural(n, "test"))
	}
	if long > 0 {
		s += fmt.Sprintf(", %d %s longer than the step bound, not explored (not reported as bugs; -strict-nondeterminism fails them)", long, plural(long, "test"))
	}
	if main {
		s = fmt.Sprintf(" [%s, budget %s%s%s: %d %s of main", strategy, f.budget.Text, unit, within, runs, plural(runs, "run"))
	}
	if exhausted > 0 {
		if main {
			s += ", exhausted"
		} else {
			s += fmt.Sprintf(", %d exhausted", exhausted)
		}
	}
	if bounded > 0 {
		// Exhausted but for the schedules in which a goroutine polls on
		// (event.Event.SpinBound).
		if main {
			s += fmt.Sprintf(", exhausted up to the spin bound (no goroutine polling more than %d times in a row while another can run; -keep-spinners lifts it)", spinBound)
		} else {
			s += fmt.Sprintf(", %d exhausted up to the spin bound (no goroutine polling more than %d times in a row while another can run; -keep-spinners lifts it)", bounded, spinBound)
		}
	}
	if exhausted+bounded > 0 {
		if len(proven) == 1 {
			for p := range proven {
				s += ": " + p
			}
		}
	}
	return s + "]"
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// printResult prints the outcome of one package's test binary, as go test
// does (its bugs, then an ok or FAIL line, or a JSON pass or fail event),
// and reports whether it failed. main is set for heddle run.
func printResult(out *syncWriter, f *testFlags, pkg string, res *runResult, elapsed time.Duration, main bool) (failed bool) {
	failed = res.Failed || countBugs(res.Events) > 0
	if f.json {
		a := event.Pass
		if failed {
			a = event.Fail
		}
		out.printEvent(event.Event{Action: a, Package: pkg, Elapsed: elapsed.Seconds()})
		return failed
	}
	printBugs(out, res)
	if failed {
		fmt.Fprintf(out, "FAIL\t%s\t%.3fs\n", pkg, elapsed.Seconds())
	} else {
		fmt.Fprintf(out, "ok  \t%s\t%.3fs%s\n", pkg, elapsed.Seconds(), summary(res, f, main))
	}
	return failed
}

// load loads the packages of heddle test or heddle run (opts, completed
// with -x), makes the schedules' directory and the output writer. It
// prints what went wrong and returns ok false on error.
func load(opts build.Options, f *testFlags, stdout, stderr io.Writer) (prog *build.Program, outDir string, out *syncWriter, ok bool) {
	if f.x {
		opts.Verbose = stderr
	}
	if f.verbose {
		opts.Notes = stderr
	}
	prog, err := build.Load(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, "", nil, false
	}
	outDir, err = scheduleDir(f.out, opts.CacheDir, prog)
	if err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return nil, "", nil, false
	}
	out = &syncWriter{w: stdout}
	if !f.json && isTerminal(stderr) {
		out.progress = stderr
	}
	return prog, outDir, out, true
}

// buildPackage builds the test binary of pkg. When the package does not
// compile, it prints the compiler's message as go test does and returns
// no binary; fatal reports any other error (printed), which ends heddle.
func buildPackage(prog *build.Program, pkg *build.Package, f *testFlags, out *syncWriter, stderr io.Writer) (bin string, fatal bool) {
	start := time.Now()
	bin, err := prog.Build(pkg)
	if err == nil {
		return bin, false
	}
	var be *build.Error
	if !errors.As(err, &be) {
		fmt.Fprintln(stderr, err)
		return "", true
	}
	if f.json {
		out.printEvent(event.Event{Action: event.Output, Package: pkg.ImportPath, Output: be.Msg + "\n"})
		out.printEvent(event.Event{Action: event.Fail, Package: pkg.ImportPath, Output: "build failed", Elapsed: time.Since(start).Seconds()})
	} else {
		fmt.Fprintln(stderr, be.Msg)
		fmt.Fprintf(out, "FAIL\t%s [build failed]\n", pkg.ImportPath)
	}
	return "", false
}
