// Package event defines the JSON lines that a heddle test binary writes while
// it explores, and that `heddle test -json` prints. Other tools parse them:
// fields are only ever added, never renamed or removed.
package event

import (
	"encoding/json"
	"io"
	"time"
)

// Actions.
const (
	Start    = "start"    // an exploration of a test begins
	Bug      = "bug"      // a bug was found; Schedule is already on disk
	Pass     = "pass"     // the test's exploration found no bug
	Fail     = "fail"     // the test's exploration found at least one bug
	Skip     = "skip"     // the test called t.Skip
	Summary  = "summary"  // totals for one test
	Output   = "output"   // a line of text (replay steps, notes)
	Progress = "progress" // about once a second during an exploration: Runs, Bugs, Elapsed
	Timing   = "timing"   // a timing-dependent test (not a bug unless -strict-timing); fields as for Bug
	// Nondeterministic: the test is nondeterministic by itself (the same
	// schedule ran differently twice), so heddle cannot explore it; not a
	// bug unless -strict-nondeterminism. Kind is nondeterminism, Message
	// says what differed, Report is the notice.
	Nondeterministic = "nondeterministic"
	// Writing: a worker of heddle test -parallel (a unit of a test's
	// work) is about to write the schedule file Schedule, whose bug it
	// reports later (after replays): heddle removes the file when the
	// worker is killed before that report, or its bug is not reported.
	Writing = "writing"
)

// The values of Event.Races: what a proof assumes about unsynchronized
// memory accesses, which are not scheduling points unless -racy made them so.
const (
	RacesAssumed  = "assumed"  // no race detection: the proof assumes the program has no data race
	RacesChecked  = "checked"  // built with -race, and no explored run had a data race
	RacesExplored = "explored" // the racy statements a -race phase found were scheduling points
)

// Event is one JSON line.
type Event struct {
	Time    time.Time `json:",omitempty"`
	Action  string
	Package string `json:",omitempty"`
	Test    string `json:",omitempty"`

	// For Action == Bug.
	Kind     string `json:",omitempty"` // deadlock, leak, panic, fail, misuse, steplimit, nondeterminism, blocked
	Message  string `json:",omitempty"`
	Run      int    `json:",omitempty"` // 1-based number of the run that found it
	Steps    int    `json:",omitempty"` // scheduling steps of that run
	Schedule string `json:",omitempty"` // path of the schedule file
	Report   string `json:",omitempty"` // the full text report
	Replay   string `json:",omitempty"` // a command that replays the bug
	// Key identifies the bug within its test: its kind and place, the
	// same in every run that meets it (Bug and Timing). heddle merge
	// deduplicates the bugs of shards by it.
	Key string `json:",omitempty"`

	// For Action == Summary.
	Runs      int     `json:",omitempty"`
	Bugs      int     `json:",omitempty"`
	Elapsed   float64 `json:",omitempty"` // seconds
	Strategy  string  `json:",omitempty"`
	Exhausted bool    `json:",omitempty"` // the strategy covered its whole space
	// SpinBound, set when Exhausted is not: the strategy covered the
	// schedules in which no goroutine polls (an atomic load, a Gosched, a
	// select's default, a failed TryLock) more than SpinBound times in a
	// row while another goroutine can run, not the others: heddle kept
	// such goroutines from running (engine.Result.SpinDrops), which cuts
	// spin loops short but also hides the end of a loop that polls a
	// bounded number of times. heddle test -keep-spinners lifts the bound.
	SpinBound int `json:",omitempty"`
	// NoClaim, set when Exhausted is not though the strategy ended (or a
	// unit's, UnitFinished): why heddle claims nothing, e.g. goroutines
	// waited outside its control, or runs were cut short. A unit's makes
	// the whole test's exploration claim nothing.
	NoClaim string `json:",omitempty"`
	// Interrupted: the exploration stopped early on SIGINT or SIGTERM.
	Interrupted bool `json:",omitempty"`
	// Capped: the default budget's time bound (explore.DefaultRunsCap)
	// ended the exploration before its runs were made.
	Capped bool `json:",omitempty"`
	// FreshRuns counts the runs made in new processes, one per run: the
	// test fails on any run after its first in one process.
	FreshRuns int `json:",omitempty"`
	// BoundRuns counts the runs the step bound or the virtual time bound
	// ended (a steplimit bug, reported or disabled): such a run did part
	// of the test's work (cmd/realworld -speed marks them).
	BoundRuns int `json:",omitempty"`
	// Trace is, for a process that made one run of a test in a new
	// process, a hash of its steps: two such processes making the same
	// run compare them.
	Trace  string `json:",omitempty"`
	Budget string `json:",omitempty"` // the budget used, as given
	Proven string `json:",omitempty"` // what an exhaustive strategy proved, e.g. "all schedules with ≤ 2 delays explored, no bug"
	// Races is what Proven assumes about data races: RacesAssumed,
	// RacesChecked or RacesExplored. Set whenever Proven is.
	Races string `json:",omitempty"`
	// Classes and LazyClasses count the distinct terminal happens-before
	// and lazy happens-before classes the runs fell in (lazy, hbrcache,
	// lazycache); Coverage counts the HaPSet pairs seen (hapset).
	Classes     int      `json:",omitempty"`
	LazyClasses int      `json:",omitempty"`
	Coverage    int      `json:",omitempty"`
	Warnings    []string `json:",omitempty"` // where lazy DPOR may have missed schedules

	// For Action == Summary of an exploration restricted to a unit of a
	// test's work (explore.Config.Unit): UnitFinished says the unit was
	// explored completely; UnitRest (a strategy.Unit) is what is left of
	// it otherwise; UnitSpawned ([]strategy.Unit) is work found outside
	// the unit. UnitProven is what the strategy proved of the unit alone
	// ("all schedules explored" of its subtree): Proven and Exhausted are
	// not set for a unit, which is not the whole test.
	UnitFinished bool            `json:",omitempty"`
	UnitRest     json.RawMessage `json:",omitempty"`
	UnitSpawned  json.RawMessage `json:",omitempty"`
	UnitProven   string          `json:",omitempty"`
	// UnitClasses are hashes of the classes of the unit's complete runs
	// and UnitBlocked its sleep-set blocked runs (split DPOR units,
	// strategy.UnitClassReporter): the merged summary counts from them the
	// work the split duplicated.
	UnitClasses []uint64 `json:",omitempty"`
	UnitBlocked int      `json:",omitempty"`
	// SplitUnits, on the merged Summary of a test whose exploration was
	// split across workers, is the number of units explored; SplitTwice
	// the complete runs whose class another run had already explored
	// (runs longer than 20,000 steps not counted); SplitBlocked the
	// sleep-set blocked runs (no class explored; a sequential
	// exploration may make some too).
	SplitUnits   int `json:",omitempty"`
	SplitTwice   int `json:",omitempty"`
	SplitBlocked int `json:",omitempty"`

	// Parallel, on a Summary, says the test called t.Parallel (itself,
	// not a subtest): go test runs it beside the package's other
	// parallel tests. Group, on the Start and Summary of the exploration
	// of such tests together (Test is then their names joined by "+"),
	// lists them.
	Parallel bool     `json:",omitempty"`
	Group    []string `json:",omitempty"`

	// For Action == Output.
	Output string `json:",omitempty"`
}

// Writer appends events to w as JSON lines.
type Writer struct {
	enc *json.Encoder
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{enc: json.NewEncoder(w)} }

// Write writes one event.
func (w *Writer) Write(e Event) error { return w.enc.Encode(e) }

// Replayed is the action of the event that ends `heddle replay`'s run: Kind
// and Steps say what the replayed run ended with, and Message is empty when
// that is the recorded bug, at the same place and step, or says how the
// replay diverged otherwise.
const Replayed = "replay"
