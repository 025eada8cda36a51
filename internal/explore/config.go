package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"heddle.dev/internal/strategy"
)

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
	PCTDepth   int           // d of PCT
	// MaxMemory bounds the live heap of the test binary, in bytes: a run
	// that grows it past the bound is ended, and the test fails with
	// what grew. 0: no bound.
	MaxMemory uint64
	// StrictTiming makes a timing-dependent test (KindTiming) a bug that
	// fails the run; otherwise it is reported apart and the test passes.
	StrictTiming bool

	Disable    []string // bug kinds not to report: deadlock, leak, panic, fail, misuse, steplimit, nondeterminism
	LeakIgnore []string // goroutines whose creating or current function matches are not leaks

	// Unit, if set, restricts the exploration of each test to one unit of
	// its work (heddle test -parallel, -shard): a range of run numbers of
	// a randomized strategy, or a subtree of DFS or source DPOR
	// (strategy.Unit). Runs bounds the runs of this call, Time its time;
	// the Summary event says whether the unit was finished (UnitFinished)
	// and what is left (UnitRest, UnitSpawned).
	Unit *strategy.Unit `json:",omitempty"`

	Replay  string // schedule file to replay (Strategy "replay")
	Verbose bool   // print every step of a replayed run

	Events string // file to append JSON events to ("" for none)

	// Racy is the number of racy statements (found by a -race phase) that
	// the rewriter made scheduling points in this build (heddle test
	// -racy); proofs say they cover them.
	Racy int `json:",omitempty"`

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
}

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
		PCTDepth:   3,
		MaxMemory:  DefaultMaxMemory,
		OutDir:     os.TempDir(),
	}
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
			if err := json.Unmarshal([]byte(s), &loaded); err != nil {
				loadedErr = fmt.Errorf("heddle: bad %s: %v", EnvConfig, err)
			}
		}
		child := loaded
		child.Strategy, child.Runs, child.Time, child.Budget = "random", 1, 0, "1"
		child.Events, child.Replay, child.Verbose = "", "", false
		if b, err := json.Marshal(child); err == nil {
			os.Setenv(EnvConfig, string(b))
		}
	})
	return loaded, loadedErr
}
