package explore

import (
	"fmt"
	"os"
	"path/filepath"

	"heddle.dev/internal/engine"
)

// Timers a run leaves armed.
//
// Heddle's timers end with their run, while the program's package state
// may still hold one as armed. muesli/cache2go's TestCacheExpire keeps its
// table in a package map, whose next expiration check, an AfterFunc, run
// 1 left pending (the run ends when only timers past the post-test phase
// are left); run 2's Add saw a check armed and armed none, and no check
// ever came: "Found key which should have been expired by now", a failure
// of heddle's making. Natively the pending timer fires during the next
// execution and arms the check again (go test -count=2 passes), and go
// test runs the test once per process anyway. No run of heddle's can show
// what the process would do next, so a run that failed after a run that
// left AfterFunc timers armed (engine.Result.PendingAfterFuncs) is
// checked: its schedule is replayed as the first run of a new process
// (leftTimers). If the bug happens there, it is the test's own, reported
// as usual; if not, the exploration goes on with one new process per run
// (freshRuns), as for a test that cannot run twice in one process, or, if
// it cannot, the test is reported nondeterministic by itself.
// -strict-nondeterminism skips the check.

// leftTimers reports whether the bug of run, which started after a run
// that left AfterFunc timers armed, does not happen when run's schedule
// is replayed as the first run of a new process.
func (x *explorer) leftTimers(run int, res *engine.Result, bug *engine.Bug) bool {
	if bug.Kind == engine.KindNondeterminism || bug.Kind == engine.KindRace || x.cfg.Replay != "" || x.cfg.OneRun {
		return false
	}
	path, err := x.writeSchedule(run, bug, runKeys(res))
	if err != nil {
		return false
	}
	existed := x.seen["existed "+path] || x.seen["file "+path]
	clean, err := cleanSchedule(path, run)
	if !existed {
		os.Remove(path) // report writes it again
	}
	if err != nil {
		return false
	}
	defer os.Remove(clean)
	fr := x.freshReport(clean, "", "")
	return fr.report == nil && !fr.cut && fr.err == nil
}

// leftTimersBug is the nondeterminism verdict of a test whose run failed
// only after timers a run before it left armed (leftTimers), when it
// cannot be explored in new processes.
func leftTimersBug(run int, bug *engine.Bug) *engine.Bug {
	return &engine.Bug{Kind: engine.KindNondeterminism, G: bug.G, Message: fmt.Sprintf(
		"the test is nondeterministic by itself: the %s of run %d (%s) happened only after the runs before it in the same process, not when its schedule ran first in a new one; the run before it left time.AfterFunc timers armed, which heddle does not carry into the next run while package state may still count on them (natively they fire during the next execution, as with go test -count=2)",
		bug.Kind, run, oneLine(bug.Message))}
}

// cleanSchedule writes a copy of the schedule at path that a replay runs
// as the first run of its process (no warm-up: the "before" of a schedule
// recorded at run as a -parallel unit's first run), and returns its path.
func cleanSchedule(path string, run int) (string, error) {
	s, err := readSchedule(path)
	if err != nil {
		return "", err
	}
	s.Before = fmt.Sprintf("first=%d", run)
	return writeTemp(filepath.Dir(path), filepath.Base(path)+".*.clean", s)
}
