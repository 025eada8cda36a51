package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"heddle.dev/internal/event"
	"heddle.dev/internal/strategy"
)

// -parallel N (issue 12): the tests of a test binary are explored by up to
// N worker processes at once, each the test binary exploring one unit of
// one test's work (explore.Config.Unit): several tests at once, and one
// test's runs split by run numbers (random, pct, pos) or its tree split
// into subtrees (dfs, sdpor, and each pass of ipb and idb) by
// strategy.Coordinate. Other strategies, and
// time budgets, explore each test in one worker.

// sliceTime is how long a worker explores a subtree before it hands the
// rest back (ETA's time slice, 10s); a run the slice cuts is explored
// again from the rest. Idle workers do not wait for it: strategy.Coordinate
// asks a unit to yield its rest as soon as a worker has nothing to do.
const sliceTime = 10 * time.Second

// useParallel reports whether runTests runs spec's binary with workers.
func useParallel(f *testFlags) bool {
	return f.parallel > 1 && !f.json && !f.verbose
}

// runTests runs the tests of one test binary: in one process, or with
// -parallel in worker processes.
func runTests(spec runSpec, f *testFlags) (*runResult, error) {
	if !useParallel(f) {
		return runEach(spec)
	}
	tests, err := listTests(spec)
	if err != nil {
		return nil, err
	}
	if len(tests) == 0 {
		return runBinary(spec) // says "no tests to run" as usual
	}
	sem := make(chan struct{}, f.parallel)
	results := make([]*runResult, len(tests))
	errs := make([]error, len(tests))
	var wg sync.WaitGroup
	for i, name := range tests {
		wg.Add(1)
		go func(i int, name string) {
			defer wg.Done()
			results[i], errs[i] = runTest(spec, f, name, sem)
		}(i, name)
	}
	wg.Wait()
	res := &runResult{}
	for i := range tests {
		if errs[i] != nil {
			return nil, errs[i]
		}
		r := results[i]
		res.Events = append(res.Events, r.Events...)
		if r.Failed {
			// As one binary prints it: the failing tests' output, then
			// one FAIL line.
			res.Output += strings.TrimSuffix(r.Output, "FAIL\n")
		}
		res.Failed = res.Failed || r.Failed
		if r.Elapsed > res.Elapsed {
			res.Elapsed = r.Elapsed
		}
	}
	if res.Failed {
		res.Output += "FAIL\n"
		spec.Out.Write([]byte(res.Output))
	}
	return res, nil
}

// listTests lists the tests of spec's binary that its -test.run selects.
func listTests(spec runSpec) ([]string, error) {
	pattern := "."
	for _, a := range spec.Args {
		if p, ok := strings.CutPrefix(a, "-test.run="); ok {
			pattern = p
		}
	}
	if i := strings.Index(pattern, "/"); i >= 0 {
		pattern = pattern[:i] // subtests run within their test's worker
	}
	cmd := exec.Command(spec.Binary, "-test.list="+pattern)
	cmd.Dir = spec.Dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("heddle: listing the tests of %s: %v", spec.Package, err)
	}
	var tests []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "Test") {
			tests = append(tests, l)
		}
	}
	return tests, nil
}

// unitRun is what one worker did.
type unitRun struct {
	unit    *strategy.Unit
	res     *runResult
	summary event.Event
	bugRun  int // the run of its first bug, 0 if none
}

// worker explores unit u (nil: the whole test) of test name, with a
// budget of runs runs (0: the configured budget).
func worker(spec runSpec, name string, u *strategy.Unit, runs int, slice time.Duration, yield string, cancel <-chan struct{}) (*unitRun, error) {
	s := spec
	s.Args = nil
	for _, a := range spec.Args {
		if !strings.HasPrefix(a, "-test.run=") {
			s.Args = append(s.Args, a)
		}
	}
	s.Args = append(s.Args, "-test.run="+testRunPattern(name))
	s.Config.Unit = u
	s.Config.Yield = yield
	if u != nil {
		s.Config.Runs, s.Config.Time = runs, slice
	}
	s.Quiet = true
	s.Cancel = cancel
	res, err := runBinary(s)
	if err != nil {
		return nil, err
	}
	ur := &unitRun{unit: u, res: res}
	for _, e := range res.Events {
		switch e.Action {
		case event.Summary:
			ur.summary = e
		case event.Bug:
			if ur.bugRun == 0 || e.Run < ur.bugRun {
				ur.bugRun = e.Run
			}
		}
	}
	return ur, nil
}

// runTest explores one test with workers taken from sem.
func runTest(spec runSpec, f *testFlags, name string, sem chan struct{}) (*runResult, error) {
	cancel := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(cancel) }) }
	defer stop()
	go func() {
		for {
			select {
			case <-cancel:
				return
			case <-time.After(100 * time.Millisecond):
				if interrupted.Load() {
					stop()
				}
			}
		}
	}()
	var mu sync.Mutex
	var runs []*unitRun
	var firstErr error
	explore := func(u *strategy.Unit, budget int, slice time.Duration, yield string, kill <-chan struct{}) (*unitRun, bool) {
		sem <- struct{}{}
		defer func() { <-sem }()
		select {
		case <-cancel:
			return nil, false
		case <-kill:
			return nil, false
		default:
		}
		k, done := make(chan struct{}), make(chan struct{})
		go func() {
			select {
			case <-cancel:
				close(k)
			case <-kill:
				close(k)
			case <-done:
			}
		}()
		ur, err := worker(spec, name, u, budget, slice, yield, k)
		close(done)
		select {
		case <-k:
			return nil, false // killed: its work is not needed
		default:
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			stop()
			return nil, false
		}
		runs = append(runs, ur)
		return ur, true
	}
	kind := strategy.SplitKind(f.strategy)
	if f.budget.Time > 0 {
		kind = "" // a time budget is the test's, not a unit's
	}
	finished := false
	switch kind {
	case "runs":
		finished = exploreRuns(f, explore, &mu)
	case "tree":
		root := strategy.RootUnit(f.strategy, 0)
		reserved, inflight := 0, 0 // runs of the budget given to workers, and workers out
		returned := sync.NewCond(&mu)
		yieldDir, err := os.MkdirTemp("", "heddle-yield-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(yieldDir)
		nyield := 0
		var st strategy.CoordStats
		cpu0, wall0 := cpuTime(), time.Now()
		finished, st = strategy.Coordinate(root, f.parallel, func(u strategy.Unit, yieldc <-chan struct{}) strategy.Outcome {
			slice := 0 // runs: no bound but the time slice
			mu.Lock()
			if f.budget.Runs > 0 {
				// A share of what is left, reserved so that the workers
				// together make the budget's runs; when all of it is out,
				// wait for what the workers out leave unused.
				for f.budget.Runs-reserved <= 0 && inflight > 0 {
					returned.Wait()
				}
				left := f.budget.Runs - reserved
				slice = min(left, max(64, left/f.parallel))
				if slice <= 0 {
					mu.Unlock()
					return strategy.Outcome{Rest: &u, Stop: true} // the budget is spent
				}
			}
			reserved += slice
			inflight++
			nyield++
			yield := filepath.Join(yieldDir, strconv.Itoa(nyield))
			mu.Unlock()
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-yieldc:
					os.WriteFile(yield, nil, 0o644)
				case <-done:
				}
			}()
			defer func() {
				mu.Lock()
				inflight--
				returned.Broadcast()
				mu.Unlock()
			}()
			ur, ok := explore(&u, slice, sliceTime, yield, cancel)
			if !ok {
				return strategy.Outcome{Stop: true}
			}
			var o strategy.Outcome
			mu.Lock()
			reserved -= slice - ur.summary.Runs
			over := false
			mu.Unlock()
			if len(ur.summary.UnitRest) > 0 {
				var r strategy.Unit // a new one: omitted fields stay zero
				if json.Unmarshal(ur.summary.UnitRest, &r) == nil {
					o.Rest = &r
				}
			}
			if len(ur.summary.UnitSpawned) > 0 {
				var sp []strategy.Unit
				if json.Unmarshal(ur.summary.UnitSpawned, &sp) == nil {
					o.Spawned = sp
				}
			}
			if ur.res.Failed && ur.bugRun == 0 && countBugs(ur.res.Events) == 0 {
				o.Stop = true // the worker failed without a bug: stop
			}
			if (ur.bugRun > 0 && !f.keepGoing) || over {
				o.Stop = true
				stop() // the other workers stop at once
			}
			return o
		})
		if os.Getenv("HEDDLE_PARSTATS") != "" {
			// Processor time: heddle's and every child's it waited for
			// meanwhile (the workers', when one test is explored).
			cpu := cpuTime() - cpu0
			fmt.Fprintf(os.Stderr, "heddle: parallel %s: %v, %.2fs processor time in %.2fs (%.2fs per unit)\n", name, st, cpu.Seconds(), time.Since(wall0).Seconds(), cpu.Seconds()/float64(max(st.Units, 1)))
		}
	default:
		explore(nil, 0, 0, "", cancel)
		finished = true
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return mergeUnits(spec, f, name, kind, runs, finished), nil
}

// exploreRuns explores the run ranges of a randomized strategy. On a bug
// (without -keep-going) the workers on ranges after it are killed at once
// and those ranges dropped; the ranges before it are explored to their
// end, so that the bug reported is the first, as in a sequential
// exploration.
func exploreRuns(f *testFlags, explore func(*strategy.Unit, int, time.Duration, string, <-chan struct{}) (*unitRun, bool), mu *sync.Mutex) bool {
	units := strategy.Split(strategy.RootUnit(f.strategy, f.budget.Runs), 4*f.parallel)
	limit := 0 // the lowest run with a bug
	kills := make([]chan struct{}, len(units))
	for i := range kills {
		kills[i] = make(chan struct{})
	}
	killed := make([]bool, len(units))
	var wg sync.WaitGroup
	for i := range units {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ur, ok := explore(&units[i], 0, 0, "", kills[i])
			if !ok || ur.bugRun == 0 || f.keepGoing {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if limit == 0 || ur.bugRun < limit {
				limit = ur.bugRun
			}
			for j, u := range units {
				if u.From > limit && !killed[j] {
					killed[j] = true
					close(kills[j])
				}
			}
		}(i)
	}
	wg.Wait()
	return limit == 0
}

// mergeUnits makes one test's result of its workers': the runs of all,
// the first bug (the lowest run for run ranges), the proof when every
// unit of a subtree split was finished and proved the same.
func mergeUnits(spec runSpec, f *testFlags, name, kind string, runs []*unitRun, finished bool) *runResult {
	res := &runResult{}
	if kind == "" {
		if len(runs) == 1 {
			return runs[0].res
		}
		return res
	}
	sort.Slice(runs, func(i, j int) bool { return unitFrom(runs[i]) < unitFrom(runs[j]) })
	var bug *unitRun
	total, bugs := 0, 0
	proofs := map[string]bool{}
	for _, r := range runs {
		total += r.summary.Runs
		bugs += r.summary.Bugs
		if r.bugRun > 0 && (bug == nil || kind == "runs" && r.bugRun < bug.bugRun) {
			bug = r
		}
		if r.summary.UnitFinished {
			proofs[r.summary.UnitProven] = true
		}
	}
	for _, r := range runs {
		if r.res.Failed && r.bugRun == 0 && bug == nil {
			res.Failed = true // the worker failed without a bug
			res.Output += r.res.Output
		}
	}
	sum := event.Event{Action: event.Summary, Package: spec.Package, Test: name, Runs: total, Strategy: f.strategy, Budget: f.budget.Text}
	res.Events = append(res.Events, event.Event{Action: event.Start, Package: spec.Package, Test: name, Strategy: f.strategy, Budget: f.budget.Text})
	if bug != nil {
		for _, e := range bug.res.Events {
			if e.Action == event.Bug || e.Action == event.Timing {
				res.Events = append(res.Events, e)
			}
		}
		res.Output += bug.res.Output
		res.Failed = true
		sum.Bugs = countBugs(bug.res.Events)
		if kind == "runs" {
			sum.Runs = bug.bugRun // as a sequential exploration stops there
		}
		if f.keepGoing {
			sum.Bugs = bugs
			for _, r := range runs {
				if r != bug {
					for _, e := range r.res.Events {
						if e.Action == event.Bug {
							res.Events = append(res.Events, e)
						}
					}
					res.Output += r.res.Output
				}
			}
		}
	} else if kind == "tree" && finished {
		sum.Exhausted = true
		if len(proofs) == 1 {
			for p := range proofs {
				sum.Proven = p
			}
		}
	}
	res.Events = append(res.Events, sum)
	a := event.Pass
	if res.Failed {
		a = event.Fail
	}
	res.Events = append(res.Events, event.Event{Action: a, Package: spec.Package, Test: name})
	return res
}

func unitFrom(r *unitRun) int {
	if r.unit == nil {
		return 0
	}
	return r.unit.From
}
