package explore

import (
	"fmt"
	"strings"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// A run that passes the step bound is a livelock (no progress is
// possible, or a loop that only stops on a schedule it never gets), or a
// long test: four goroutines making 10,000 lock-free operations each take
// more than a million steps. To tell them apart, the first time a run of
// a test passes the bound, heddle makes a fair run of the test (every
// goroutine that can run does, least recently run first, from its first
// step: no goroutine is starved), bounded to fairCap times the bound and
// by the time budget. Then:
//
//   - the fair run did not end: the test does not end even when scheduled
//     fairly, and the run is reported (steplimit), or, if it kept making
//     progress over its second half (engine.Bug.Long: no polls and no
//     timer firings, or goroutines seeing others' writes, or ending,
//     throughout), the test is too long to explore (tooLong);
//   - the fair run ended in N steps, and fairTimes*N is not more than the
//     bound: the test is short, the run that passed the bound is a
//     livelock of its schedule, and is reported, saying so;
//   - it ended in N steps, fairTimes*N more than the bound: the test is
//     long. Its bound is raised to fairTimes*N for the rest of its
//     exploration; runs are scheduled by the strategy up to the step they
//     were before (half the first bound: Config.FairAfter) and fairly
//     after it. The run that passed the bound is made again, with the
//     same schedule, under the new bound: it ends, and is a run like
//     another, or it does not, and is reported.
//
// The raised bound, the step fair scheduling starts from and the fair
// run's length are settings (Config), recorded in schedules: replay runs
// as the exploration did.

// fairTimes is how many times the length of a fair run of a test its step
// bound is raised to. A schedule chosen by a strategy may be longer than
// the fair one (it starves goroutines, which then have all their work
// left), but not by much: past the step of fair scheduling (half the
// first bound) it is a fair run.
const fairTimes = 4

// fairCap bounds the fair run that measures a test, in times its step
// bound: a test that takes more than ten million steps when run fairly is
// one heddle cannot explore (or a livelock).
const fairCap = 10

// fairRun is what the fair run of a test measured.
type fairRun struct {
	steps int    // how many steps it took (when it ended, or was cut)
	ended bool   // it ended by itself within its bound
	timed bool   // it did not: its time bound (Config.TimeLimit) ended it
	cut   string // what cut it (the time budget, the memory bound): nothing is known
}

// cutInterrupt is fairRun.cut when an interrupt ended the fair run.
const cutInterrupt = "an interrupt"

// firstChoice schedules the first step of the fair run (the engine's fair
// scheduler takes over from the next one: Config.FairAfter 1).
type firstChoice struct{}

func (firstChoice) Begin(int) bool           { return true }
func (firstChoice) Choose(*engine.Point) int { return 0 }
func (firstChoice) End(*engine.Result)       {}

// measureFair makes the fair run of the test (see above) and records it
// in x.fair; seed is the seed of its random numbers.
func (x *explorer) measureFair(seed uint64) *fairRun {
	limit := x.cfg.StepLimit
	if limit <= 0 {
		limit = DefaultConfig().StepLimit
	}
	x.measureCap = fairCap * limit
	defer func() { x.measureCap = 0 }()
	res := x.exec(engine.Config{Seed: seed, StepLimit: x.measureCap, FairAfter: 1}, firstChoice{}, x.newRunT())
	f := &fairRun{steps: res.Steps}
	switch {
	case res.Interrupted:
		f.cut = cutInterrupt
	case res.OverMemory != "":
		f.cut = "the memory bound (" + res.OverMemory + ")"
	case res.OverTime:
		f.cut = "the time budget"
	case res.Bug == nil || res.Bug.Kind != engine.KindStepLimit:
		f.ended = true
	case res.Bug.Clock:
		f.steps, f.timed = res.Steps, true // the time bound, not the step bound, ended it
	default:
		f.steps = x.measureCap // it ends on the step past its bound
	}
	x.pool.Recycle(res)
	return f
}

// pastBound decides about run, whose result res passed the step bound:
// it returns the result to go on with, which is res, with its message
// saying what the fair run of the test did, or res made again under a
// raised bound (see above). When the time budget ran out while it
// measured, the run is no bug (nothing is known) and the result says
// that the budget is spent (OverTime), or that an interrupt came
// (Interrupted). ec is the configuration run was made with.
func (x *explorer) pastBound(run int, res *engine.Result, rs *runT, ec engine.Config) (*engine.Result, *runT) {
	if x.fair == nil {
		began := time.Now()
		x.fair = x.measureFair(ec.Seed)
		x.before = append(x.before, fmt.Sprintf("%d:fair", run))
		if f := x.fair; f.cut == "" {
			x.t.Logf("heddle: run %d of %s passed the step bound (%d steps); a fair run of the test %s (%v)",
				run, x.name(), x.cfg.StepLimit, fairText(f, x.cfg.StepLimit), time.Since(began).Round(time.Millisecond))
		}
	}
	f := x.fair
	if f.cut != "" {
		switch {
		case f.cut != cutInterrupt && x.cfg.Unit == nil && x.cfg.StrictNondeterminism:
			// A test heddle cannot explore within its budget:
			// -strict-nondeterminism reports it, as before the fair run.
			return res, rs
		}
		res.Bug = nil
		switch {
		case f.cut == cutInterrupt:
			res.Interrupted = true
		case x.cfg.Unit != nil:
			res.OverTime = true // a unit's time slice: its rest explores the run again
		default:
			x.fairCut(run, res, f)
			res.OverTime = true
		}
		return res, rs
	}
	fairAfter := x.cfg.FairAfter
	if fairAfter == 0 {
		fairAfter = x.cfg.StepLimit / 2
	}
	if !f.ended {
		x.cfg.FairSteps = -f.steps
		res.Bug.Message = engine.StepLimitMessage(x.cfg.StepLimit, fairAfter, x.cfg.FairSteps)
		return res, rs
	}
	x.cfg.FairSteps = f.steps
	limit := fairTimes * f.steps
	if limit <= x.cfg.StepLimit {
		res.Bug.Message = engine.StepLimitMessage(x.cfg.StepLimit, fairAfter, f.steps)
		return res, rs
	}
	x.t.Logf("heddle: %s is a long test: its step bound is now %d steps (%d times its fair run), scheduled fairly from step %d; run %d is made again under it",
		x.name(), limit, fairTimes, fairAfter, run)
	x.cfg.FairAfter, x.cfg.StepLimit = fairAfter, limit
	keys := runKeys(res)
	rs2 := x.newRunT()
	began := time.Now()
	res2 := x.exec(engine.Config{Seed: ec.Seed, Record: ec.Record, Trace: ec.Trace}, strategy.NewReplay(keys), rs2)
	x.lastRun = time.Since(began) // the run's length, for its report's replays
	if b := res2.Bug; b != nil && b.Kind == engine.KindNondeterminism && !res2.OverTime {
		// The schedule did not replay: the test is not the same on
		// every run (the determinism check says so at run 2). The run
		// passed the bound of a long test: no bug.
		res2.Bug = nil
	}
	x.pool.Recycle(res)
	return res2, rs2
}

// fairText says what fair run f of a test bounded to limit steps did.
func fairText(f *fairRun, limit int) string {
	if !f.ended && f.timed {
		return fmt.Sprintf("had not ended after %d steps, when its virtual clock passed the time bound: it does not end even when no goroutine is starved", f.steps)
	}
	if !f.ended {
		return fmt.Sprintf("had not ended after %d steps (%d times the bound): it does not end even when no goroutine is starved", f.steps, fairCap)
	}
	if fairTimes*f.steps <= limit {
		return fmt.Sprintf("ends in %d steps: the run's schedule livelocks, or loops without blocking", f.steps)
	}
	return fmt.Sprintf("ends in %d steps: the test is long", f.steps)
}

// traceMax bounds the trace of a run (engine.Config.TraceMax): when the
// test's step bound was raised, to the first bound (twice the step of fair
// scheduling), so that a run of millions of steps keeps no more trace
// than one under the first bound; 0 otherwise.
func (x *explorer) traceMax() int {
	return 2 * x.cfg.FairAfter
}

// fairCut says that the test cannot be explored within its budget: run
// passed the step bound, and the fair run that tells a livelock from a
// long test was cut before it ended. Nothing is known: no bug is reported,
// and the exploration of the test ends. The test passes.
func (x *explorer) fairCut(run int, res *engine.Result, f *fairRun) {
	x.t.Helper()
	text := fmt.Sprintf("heddle: cannot explore %s within its budget: run %d is longer than the step bound (%d scheduling steps), and the\n"+
		"  fair run that tells a long test from a livelock was cut by %s after %d steps, before it ended.\n"+
		"  Nothing is known: this is not reported as a bug; %d %s explored. Give it a larger budget (-budget 2m), or make\n"+
		"  the test smaller.\n",
		x.name(), run, x.cfg.StepLimit, f.cut, f.steps, run-x.first, pluralRuns(run-x.first))
	x.emit(event.Event{Action: event.Nondeterministic, Kind: KindLong, Message: "step bound exceeded, and the fair run was cut by " + f.cut, Run: run, Steps: res.Steps, Report: text})
	x.t.Log("\n" + strings.TrimRight(text, "\n"))
}
