package explore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// unitSummary ends the exploration of one unit of a test's work
// (Config.Unit): the summary says whether the unit was finished and what
// is left, and claims nothing about the whole test. first is the number
// of the unit's first run. UnitProven is worded as Proven would be for
// the whole test, so that the units' proofs, all equal, are the
// sequential exploration's.
func (x *explorer) unitSummary(strat engine.Strategy, fatal, exhausted bool, first int, start time.Time, racesBefore int) {
	u := *x.cfg.Unit
	runs := 0
	if x.runs >= first {
		runs = x.runs - first + 1
	}
	sum := event.Event{Action: event.Summary, Runs: runs, Bugs: x.bugs, Elapsed: time.Since(start).Seconds(), Strategy: u.Strategy, Budget: x.cfg.Budget, Interrupted: x.interrupted, FreshRuns: x.freshMade, BoundRuns: x.boundRuns}
	var rest *strategy.Unit
	var spawned []strategy.Unit
	if us, ok := strat.(strategy.UnitState); ok {
		rest = us.Rest()
		if cr, ok := strat.(strategy.UnitClassReporter); ok {
			sum.UnitClasses, sum.UnitBlocked = cr.ExploredClasses()
		}
		// An optimal-DPOR unit stopped at a bug (without -keep-going)
		// stops the whole exploration (strategy.Outcome.Found, not an
		// ordered split), which drops what it spawned: its rest, one
		// unit per wakeup child on a stack as deep as the run, each with
		// the path down to it, is not made (on GoKer's Hugo3251, 40,199
		// steps deep, it took 4.5 GB and more processor time than the run).
		if u.OD == nil || x.bugs == 0 || x.cfg.KeepGoing {
			spawned = us.Spawned()
		}
		if rest == nil && !fatal {
			sum.UnitFinished = true
			sum.NoClaim = x.noClaim
			if p, ok := strat.(strategy.Prover); ok && !x.truncated && x.bugs == 0 {
				if sum.UnitProven = x.spinClaim(p.Proven()); sum.UnitProven != "" {
					if x.usedRand {
						sum.UnitProven += fmt.Sprintf(" (for the map orders and math/rand numbers of -seed %d)", x.cfg.Seed)
					}
					clause, races := x.racesClause(racesBefore)
					sum.UnitProven += ", no bug" + clause + x.aloneClause()
					sum.Races = races
				}
			}
		}
	} else if exhausted {
		sum.UnitFinished = true
	} else if x.runs+1 < u.To || u.To == 0 {
		r := strategy.Unit{Strategy: u.Strategy, From: x.runs + 1, To: u.To}
		if x.runs < first {
			r.From = first
		}
		rest = &r
	}
	sum.Parallel, sum.Group, sum.SpinBound = x.topParallel, x.cfg.Group, x.spinBound
	if rest != nil {
		if b, err := json.Marshal(rest); err == nil {
			sum.UnitRest = b
		}
	}
	if len(spawned) > 0 {
		if b, err := json.Marshal(spawned); err == nil {
			sum.UnitSpawned = b
		}
	}
	x.emit(sum)
	action := event.Pass
	if x.bugs > 0 {
		action = event.Fail
	}
	x.emit(event.Event{Action: action, Elapsed: time.Since(start).Seconds()})
}

// yieldCheck looks for Config.Yield's file between runs, at most every
// few milliseconds (a run of a small test takes less than a stat).
type yieldCheck struct {
	file string
	last time.Time
}

func (y *yieldCheck) asked() bool {
	if y.file == "" {
		return false
	}
	now := time.Now()
	if now.Sub(y.last) < 2*time.Millisecond {
		return false
	}
	y.last = now
	_, err := os.Stat(y.file)
	return err == nil
}

// NextUnit is the next unit a served worker process explores
// (Config.Serve): what differs from the unit before, in the
// configuration of the same test.
type NextUnit struct {
	Unit   *strategy.Unit
	Runs   int
	Time   time.Duration
	Yield  string
	Events string
}

func (n NextUnit) apply(cfg Config) Config {
	cfg.Unit, cfg.Runs, cfg.Time, cfg.Yield, cfg.Events = n.Unit, n.Runs, n.Time, n.Yield, n.Events
	return cfg
}

// UnitDone is the line a served worker process writes on file descriptor
// 4 when a unit ended with nothing to report, before it reads the next.
const UnitDone = "unit done"

var serveIO struct {
	once sync.Once
	in   *bufio.Reader
	out  *os.File
}

// clean reports whether the unit explored ended with nothing but its
// summary: no bug, verdict, skip or note (each printed with the test's
// output when it ends), not interrupted, and the test not failed. Only
// then does a served process go on with another unit: what it printed
// belongs to no unit.
func (x *explorer) clean() bool {
	return x.cfg.Unit != nil && x.cfg.Replay == "" && x.bugs == 0 && !x.noted && !x.truncated && !x.interrupted && !x.t.Failed() && !x.t.Skipped()
}

// nextUnit says the unit is done and reads the next one; false at the
// end of the units (or on an error: the test then returns).
func nextUnit() (NextUnit, bool) {
	serveIO.once.Do(func() {
		serveIO.in = bufio.NewReader(os.NewFile(3, "heddle-units"))
		serveIO.out = os.NewFile(4, "heddle-units-done")
	})
	if serveIO.out == nil || serveIO.in == nil {
		return NextUnit{}, false
	}
	if _, err := serveIO.out.WriteString(UnitDone + "\n"); err != nil {
		return NextUnit{}, false
	}
	line, err := serveIO.in.ReadBytes('\n')
	if err != nil {
		return NextUnit{}, false
	}
	var n NextUnit
	if json.Unmarshal(line, &n) != nil || n.Unit == nil {
		return NextUnit{}, false
	}
	return n, true
}
