package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"heddle.dev/internal/strategy"
)

// DefaultRunsCap is the wall time a test may take under the default
// budget of 1000 runs (Config.RunsCap): sony/gobreaker's
// TestCircuitBreakerInParallel (730,000 scheduling steps a run, about
// 2.5 s of processor time) took about 15 minutes for its 1000 runs.
const DefaultRunsCap = 2 * time.Minute

// EnvConfig names the environment variable through which `heddle test` and
// `heddle replay` configure a test binary: it holds a Config as JSON.
const EnvConfig = "HEDDLE_CONFIG"

// Config is everything a test binary needs to explore its tests. The zero
// value is not useful; start from DefaultConfig.
type Config struct {
	Strategy   string        // random, pct, replay, ... (see strategies)
	Runs       int           // budget in runs; 0 means no limit in runs
	Time       time.Duration // budget in wall time; 0 means no limit in time
	Budget     string        // the budget as the user gave it, for display
	Seed       int64         // seed of the randomized strategies
	KeepGoing  bool          // collect distinct bugs instead of stopping at the first
	OutDir     string        // where schedule files are written
	StepLimit  int           // scheduling steps per run before "step bound exceeded"
	RunTimeout time.Duration // wall time without progress before "blocked outside heddle's control"
	MaxStarve  time.Duration // how long a timer may fire early, starving runnable goroutines
	// NoLateWake keeps the clock from moving on without a timer while a
	// goroutine waits to run (engine.Config.LateWake): the replay of a
	// schedule written before late wakes existed (format v1) sets it.
	NoLateWake bool `json:",omitempty"`
	// KeepSpinners keeps goroutines that poll without progress among the
	// choices (engine.Config.KeepSpinners): an exhaustive strategy then
	// explores the schedules in which a goroutine polls many times in a
	// row too, and its claim is not bounded (SpinClaim); but a loop that
	// polls until another goroutine acts then has schedules without end,
	// one more poll each.
	KeepSpinners bool `json:",omitempty"`
	PCTDepth     int  // d of PCT
	// TimeLimit ends a run whose test has not returned after that much
	// virtual time (engine.Config.TimeLimit; 0: no bound): go test's
	// default -timeout, 10 minutes, unless heddle test's -timeout says
	// otherwise. A steplimit bug.
	TimeLimit time.Duration
	// MaxMemory bounds the live heap of the test binary, in bytes: a run
	// that grows it past the bound is ended, and the test fails with
	// what grew. 0: no bound.
	MaxMemory uint64
	// StrictTiming makes a timing-dependent test (KindTiming) a bug that
	// fails the run; otherwise it is reported apart and the test passes.
	StrictTiming bool
	// StrictNondeterminism makes a test that is nondeterministic by itself
	// a bug (KindNondeterminism) that fails the run; otherwise heddle says
	// it cannot explore it, and the test passes.
	StrictNondeterminism bool

	// FairAfter and FairSteps are set by the exploration when a run
	// passes the step bound (steplimit.go), and recorded in schedules
	// with the StepLimit it may have raised: the step from which runs are
	// scheduled fairly (0: half the step bound) and the length of a fair
	// run of the test (negative: it had not ended after -FairSteps steps).
	FairAfter int `json:",omitempty"`
	FairSteps int `json:",omitempty"`

	// Epoch is the virtual instant at which every run starts
	// (engine.Config.Epoch; zero: 2000-01-01 UTC, as in schedules written
	// before it was recorded). heddle test and heddle run set it to the
	// wall clock when they start.
	Epoch time.Time `json:",omitzero"`

	// Run and Skip are heddle test's -run and -skip patterns: the
	// subtests they do not select are skipped in every run, as go test
	// skips them (NameMatcher). Recorded in schedules, so that a replay
	// runs the subtests the exploration ran.
	Run  string `json:",omitempty"`
	Skip string `json:",omitempty"`

	Disable    []string // bug kinds not to report: deadlock, leak, panic, fail, misuse, steplimit, nondeterminism
	LeakIgnore []string // goroutines whose creating or current function matches are not leaks

	// Unit, if set, restricts the exploration of each test to one unit of
	// its work (heddle test -parallel, -shard): a range of run numbers of
	// a randomized strategy, or a subtree of DFS or source DPOR
	// (strategy.Unit). Runs bounds the runs of this call, Time its time;
	// the Summary event says whether the unit was finished (UnitFinished)
	// and what is left (UnitRest, UnitSpawned).
	Unit *strategy.Unit `json:",omitempty"`
	// Yield, with Unit, is a file whose creation asks the exploration to
	// stop after its current run and report the rest of its unit: heddle
	// test -parallel has an idle worker (strategy.Coordinate).
	Yield string `json:",omitempty"`
	// Serve, with Unit, keeps the process for more units of the same
	// test (heddle test -parallel): when a unit ends with nothing to
	// report, the process says so on file descriptor 4 and reads the
	// next unit (a NextUnit, one JSON line) from file descriptor 3; at
	// the end of that file the test returns (unit.go).
	Serve bool `json:",omitempty"`

	Replay  string // schedule file to replay (Strategy "replay")
	Verbose bool   // print every step of a replayed run

	// ReportRun makes the replay of a schedule build the report of its
	// bug, as the exploration that found it does (a replay in a new
	// process, explorer.freshReport). Avoid makes it replay the schedule
	// keeping the timers it names from firing early ("all", "test",
	// "assumption": see earlyNeeded), within AvoidLimit steps, keeping
	// spinning goroutines if AvoidKeep, and say how the run ended.
	ReportRun  bool   `json:",omitempty"`
	Avoid      string `json:",omitempty"`
	AvoidLimit int    `json:",omitempty"`
	AvoidKeep  bool   `json:",omitempty"`
	// AvoidTarget is the goroutine whose return ends that replay
	// (avoidEarly.target).
	AvoidTarget string `json:",omitempty"`
	// Deadline, if set, is when such a replay must be over: the report
	// it builds is within the exploration's time budget. Past it, its
	// executions are ended and it says it was cut (a replay event of kind
	// "unknown", see freshCut), and makes no report.
	Deadline time.Time `json:",omitempty"`

	// OneRun says that this process makes one run of a test that cannot
	// run twice in one process (explorer.freshRuns): it is not checked
	// for determinism by a second execution here.
	OneRun bool `json:",omitempty"`
	// RunsCap bounds in wall time a budget of runs that the user did not
	// choose (heddle test's default, 1000 runs): a test whose run takes
	// seconds stops there, and says so (Summary.Capped). 0: none.
	RunsCap time.Duration `json:",omitempty"`

	Events string // file to append JSON events to ("" for none)

	// Racy is the number of racy statements (found by a -race phase) that
	// the rewriter made scheduling points in this build (heddle test
	// -racy); proofs say they cover them.
	Racy int `json:",omitempty"`

	// FirstRun is the number of the first run to make (0 or 1: from the
	// start): heddle test -shard gives a test binary the range
	// FirstRun..Runs of a randomized strategy's runs, each run's schedule
	// being a function of the seed and its number.
	FirstRun int `json:",omitempty"`

	// heddle run: the explored test calls the main function of a main
	// package (see Main).
	Main    bool     // the test is heddle run's call of main
	Args    []string // os.Args of every run of main, the program's name first
	Output  bool     // let the standard output and error of main or of the test through (heddle run -v, heddle test -v, replay)
	WorkDir string   // the program's working directory, recorded in schedules
	Stdin   string   // file every run of main reads as its standard input ("": none, empty input)

	// Identity of the program, written into schedule files and checked on
	// replay.
	Package     string            // import path of the package under test
	Dir         string            // its directory
	Version     string            // heddle version
	Fingerprint string            // hash of the rewritten program
	Files       map[string]string // original file name -> content hash
	BuildFlags  []string          // flags the test binary was built with (-race, -tags=...)
	// TestOnly are the packages the test binary imports only for the
	// tests (build.Package.TestOnly): a timer they arm is the test's,
	// as one armed in a test function is (testPC).
	TestOnly []string `json:",omitempty"`

	// PackageTime is the time budget of all the binary's tests together
	// (heddle test -budget-total), Tests their number: each test gets
	// what is left of it over the tests left (at least MinShare), on top
	// of Runs and Time. 0: none.
	PackageTime time.Duration `json:",omitempty"`
	Tests       int           `json:",omitempty"`

	// Group, if set, names top-level tests that call t.Parallel, in go
	// test's order: the binary explores them together, as one unit
	// named GroupName(Group), as go test runs them concurrently (see
	// group.go). Its -test.run selects them (GroupRunPattern).
	Group []string `json:",omitempty"`

	// Child marks the configuration of a test binary a test started
	// (LoadConfig): its one controlled run lets its output through, and a
	// call of os.Exit in it ends the process with that status, as natively
	// (zerolog's diode TestFatal runs its own binary to watch log.Fatal's
	// output on standard error and its exit status).
	Child bool `json:",omitempty"`
}

// DefaultTimeLimit is the default of Config.TimeLimit: go test's default
// -timeout.
const DefaultTimeLimit = 10 * time.Minute

// DefaultMaxMemory is the default bound of a test binary's live heap: 2 GiB.
const DefaultMaxMemory = 2 << 30

// DefaultConfig is what a rewritten test binary uses when it runs without
// heddle's environment, for example under plain `go test`.
func DefaultConfig() Config {
	return Config{
		Strategy:   "portfolio",
		Runs:       1000,
		Budget:     "1000",
		Seed:       1,
		StepLimit:  1000000,
		RunTimeout: 10 * time.Second,
		MaxStarve:  100 * time.Millisecond,
		TimeLimit:  DefaultTimeLimit,
		PCTDepth:   3,
		MaxMemory:  DefaultMaxMemory,
		OutDir:     os.TempDir(),
	}
}

// maxEnvConfig is the longest configuration ConfigEnv puts in the
// environment itself: Linux refuses to start a process with a variable
// longer than 128 KiB ("argument list too long"), and a unit of a split
// search tree of a long run (GoKer's Grpc3017: 50,000 steps) is longer.
const maxEnvConfig = 64 << 10

// ConfigEnv returns the EnvConfig entry ("HEDDLE_CONFIG=...") that gives a
// test binary the configuration b (JSON): b itself, or, when it is long,
// "@" and the name of a file in dir that holds it, which remove removes.
func ConfigEnv(b []byte, dir string) (entry string, remove func(), err error) {
	if len(b) <= maxEnvConfig {
		return EnvConfig + "=" + string(b), func() {}, nil
	}
	f, err := os.CreateTemp(dir, "heddle-config-*.json")
	if err != nil {
		return "", nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return EnvConfig + "=@" + f.Name(), func() { os.Remove(f.Name()) }, nil
}

var (
	loadOnce  sync.Once
	loaded    Config
	loadedErr error
)

// LoadConfig reads the configuration from the environment, once per
// process. It then replaces the variable with the configuration of a
// subprocess: a test that runs its own binary (a common way to test a
// crash) gets one controlled run per test, as it would natively get one
// run, and reports nothing into heddle's event stream.
func LoadConfig() (Config, error) {
	loadOnce.Do(func() {
		loaded = DefaultConfig()
		if s, ok := os.LookupEnv(EnvConfig); ok {
			b := []byte(s)
			if name, ok := strings.CutPrefix(s, "@"); ok {
				var err error
				if b, err = os.ReadFile(name); err != nil {
					loadedErr = fmt.Errorf("heddle: bad %s: %v", EnvConfig, err)
				}
			}
			if err := json.Unmarshal(b, &loaded); loadedErr == nil && err != nil {
				loadedErr = fmt.Errorf("heddle: bad %s: %v", EnvConfig, err)
			}
		}
		child := loaded
		child.Strategy, child.Runs, child.Time, child.Budget = "random", 1, 0, "1"
		child.Events, child.Replay, child.Verbose = "", "", false
		child.FirstRun, child.Unit, child.Yield, child.Group = 0, nil, "", nil
		child.Serve = false
		child.Child, child.Output = true, true
		if b, err := json.Marshal(child); err == nil {
			os.Setenv(EnvConfig, string(b))
		}
	})
	return loaded, loadedErr
}

// MinShare is the least time a test gets from a package's time budget
// (Config.PackageTime), even when the tests before it spent it all: one
// run at least, and the first few.
const MinShare = 50 * time.Millisecond

// packageBudget is what the tests of this process spent of
// Config.PackageTime: the tests started and when the first one did.
var packageBudget struct {
	mu      sync.Mutex
	started int
	first   time.Time
}

// shareTime returns the time budget of the test about to be explored
// under cfg: cfg.Time, or its share of cfg.PackageTime if that is less.
func shareTime(cfg Config) time.Duration {
	if cfg.PackageTime <= 0 {
		return cfg.Time
	}
	packageBudget.mu.Lock()
	defer packageBudget.mu.Unlock()
	if packageBudget.first.IsZero() {
		packageBudget.first = time.Now()
	}
	left := max(cfg.Tests-packageBudget.started, 1)
	packageBudget.started++
	share := max((cfg.PackageTime-time.Since(packageBudget.first))/time.Duration(left), MinShare)
	if cfg.Time > 0 && cfg.Time < share {
		return cfg.Time
	}
	return share
}
