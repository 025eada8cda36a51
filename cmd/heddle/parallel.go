package main

import (
	"bytes"
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
	"sync"
	"sync/atomic"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/schedule"
	"heddle.dev/internal/strategy"
)

// -parallel N (issue 12): the tests of the packages of a heddle command are
// explored by up to N worker processes at once, each the package's test
// binary exploring one unit of one test's work (explore.Config.Unit):
// several packages and tests at once, and one test's runs split by run
// numbers (random, pct, pos) or its tree split into subtrees (dfs, sdpor,
// and each pass of ipb and idb) by strategy.Coordinate. Other strategies,
// and time budgets, explore each test in one worker. What the workers of a
// test did is merged into one test's events and output, printed in the
// order one test binary prints them: test by test, package by package.

// sliceTime is how long a worker explores a subtree before it hands the
// rest back (ETA's time slice, 10s); a run the slice cuts is explored
// again from the rest. Idle workers do not wait for it: strategy.Coordinate
// asks a unit to yield its rest as soon as a worker has nothing to do.
const sliceTime = 10 * time.Second

// useParallel reports whether runTests runs a binary's tests with workers.
func useParallel(f *testFlags) bool {
	return f.parallel > 1
}

var (
	slotsOnce sync.Once
	slots     *slotQueue
	binaries  atomic.Int64 // test binaries given to runTests so far: the first number of a slot's priority
)

// workerSlots are the worker processes of the whole command: the tests of
// every package explored at once share them.
func workerSlots(n int) *slotQueue {
	slotsOnce.Do(func() { slots = &slotQueue{free: n} })
	return slots
}

// slotQueue hands out worker slots by priority: the lowest key first
// (package, test, unit), so that the packages and tests explored at once
// finish, and print, in the order one process explores them.
type slotQueue struct {
	mu      sync.Mutex
	free    int
	waiting []*slotWaiter // by key
}

type slotWaiter struct {
	key [3]int
	ch  chan struct{}
}

// enqueue asks for a slot: its channel is closed when it is given.
func (q *slotQueue) enqueue(key [3]int) *slotWaiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	w := &slotWaiter{key: key, ch: make(chan struct{})}
	if q.free > 0 && len(q.waiting) == 0 {
		q.free--
		close(w.ch)
		return w
	}
	i := sort.Search(len(q.waiting), func(i int) bool { return lessKey(key, q.waiting[i].key) })
	q.waiting = append(q.waiting, nil)
	copy(q.waiting[i+1:], q.waiting[i:])
	q.waiting[i] = w
	return w
}

func (q *slotQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		w := q.waiting[0]
		q.waiting = q.waiting[1:]
		close(w.ch)
		return
	}
	q.free++
}

func lessKey(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// children are the test binaries running: a signal heddle gets is
// forwarded to each (watchSignals).
var children struct {
	sync.Mutex
	m map[*os.Process]bool
}

// trackChild adds p to the children until the function it returns is
// called.
func trackChild(p *os.Process) (untrack func()) {
	children.Lock()
	defer children.Unlock()
	if children.m == nil {
		children.m = map[*os.Process]bool{}
	}
	children.m[p] = true
	return func() {
		children.Lock()
		defer children.Unlock()
		delete(children.m, p)
	}
}

// signalChildren sends sig to every test binary running.
// killChildren kills the test binaries still running and says how many
// there were.
func killChildren() int {
	children.Lock()
	defer children.Unlock()
	for p := range children.m {
		p.Kill()
	}
	return len(children.m)
}

func signalChildren(sig os.Signal) {
	children.Lock()
	defer children.Unlock()
	for p := range children.m {
		p.Signal(sig)
	}
}

// runTests runs the tests of one test binary: in one process, or with
// -parallel in worker processes, printing each test's output when it is
// done and every test before it was printed.
func runTests(spec runSpec, f *testFlags) (*runResult, error) {
	if !useParallel(f) {
		return runEach(spec)
	}
	bin := int(binaries.Add(1))
	names, err := listRunnable(spec)
	if err != nil {
		return nil, err
	}
	// The tests are explored by workers; the fuzz targets' seed corpora
	// and the examples after them, one process each (runAfterTests).
	var tests, after []string
	for _, name := range names {
		if strings.HasPrefix(name, "Test") {
			tests = append(tests, name)
		} else {
			after = append(after, name)
		}
	}
	if len(tests) == 0 {
		return runBinary(spec) // its fuzz targets and examples; or says "no tests to run" as usual
	}
	sem := workerSlots(f.parallel)
	type result struct {
		t   *testResult
		err error
	}
	done := make([]chan result, len(tests))
	for i, name := range tests {
		// Each test asks for its first workers before the next one does:
		// the slots go to the tests in order.
		done[i] = make(chan result, 1)
		ready := make(chan struct{})
		go func() {
			t, err := runTest(spec, f, name, sem, [2]int{bin, i}, ready, len(tests) >= f.parallel, false)
			done[i] <- result{t, err}
		}()
		select {
		case <-ready:
		case r := <-done[i]:
			done[i] <- r
		}
	}
	start := time.Now()
	res := &runResult{}
	var firstErr error
	type heldTest struct {
		t    *testResult
		name string
	}
	var held []heldTest
	for i, name := range tests {
		r := <-done[i]
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
		if firstErr != nil {
			continue
		}
		shown := name
		if spec.Main {
			shown = "main"
		}
		if !interrupted.Load() && (len(tests) > 1 || r.t.workers > 1) && needsConfirm(r.t) {
			// Found beside other workers of the package: confirmed
			// alone once they are done (confirm.go).
			for j := i + 1; j < len(tests); j++ {
				x := <-done[j]
				done[j] <- x
			}
			slot := sem.enqueue([3]int{bin, i, 0}) // the replays are a worker's
			<-slot.ch
			bad, what := unconfirmed(spec, r.t)
			sem.release()
			if len(bad) > 0 && !interrupted.Load() {
				for _, file := range bad {
					os.Remove(file)
				}
				t, err := runTest(spec, f, name, sem, [2]int{bin, i}, make(chan struct{}), false, true)
				if err != nil {
					firstErr = err
					continue
				}
				note := confirmNote(shown, what, bad)
				if spec.JSON {
					spec.Out.printEvent(event.Event{Action: event.Output, Package: spec.Package, Test: shown, Output: note})
				} else {
					spec.Out.Write([]byte(note))
				}
				res.Output += note
				r.t = t
			}
		}
		if interrupted.Load() && r.t.notStarted {
			// Printed only if a test after it was explored: in one
			// process, the tests after an interrupt skip.
			held = append(held, heldTest{r.t, shown})
			continue
		}
		for _, h := range held {
			res.Output += h.t.print(spec, f, h.name)
			res.Events = append(res.Events, h.t.events...)
		}
		held = nil
		out := r.t.print(spec, f, shown)
		res.Events = append(res.Events, r.t.events...)
		res.Output += out
		res.Failed = res.Failed || r.t.failed
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if len(held) == len(tests) {
		return nil, errNotTested // an interrupt came before any of its tests' turn
	}
	for _, h := range held {
		res.Output += h.t.print(spec, f, h.name)
		res.Events = append(res.Events, h.t.events...)
	}
	if err := groupAfter(spec, res, sem, bin, len(tests), time.Since(start)); err != nil {
		return nil, err
	}
	if err := runAfterTests(spec, res, sem, bin, len(tests)+1, after, start); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	end := "PASS\n"
	if res.Failed {
		end = "FAIL\n"
	}
	switch {
	case spec.JSON:
		spec.Out.printEvent(event.Event{Action: event.Output, Package: spec.Package, Output: end})
	case spec.Verbose || res.Failed:
		spec.Out.Write([]byte(end))
	}
	res.Output += end
	return res, nil
}

// errNotTested is runTests's error when an interrupt came before any of
// the binary's tests was explored: the package is not tested, as the
// packages after an interrupt in one process.
var errNotTested = errors.New("heddle: interrupted: not tested")

// runAfterTests runs the fuzz targets (their seed corpora) and examples
// names of spec's binary, after its tests as go test runs them, each in a
// process of its own as runEach does, in one worker slot at a time (key
// bin, first, ...); it adds what they did to res. Their output is printed
// as it comes: every test before them is printed already.
func runAfterTests(spec runSpec, res *runResult, sem *slotQueue, bin, first int, names []string, start time.Time) error {
	for i, name := range names {
		if interrupted.Load() {
			return nil // in one process, a fuzz target or example after an interrupt does not run
		}
		s := spec
		s.Part = true
		s.Args = argsForTest(spec.Args, name)
		if spec.Config.PackageTime > 0 {
			// -budget-total: what is left of the package's time, over
			// what is left to run.
			s.Config.PackageTime = max(spec.Config.PackageTime-time.Since(start), explore.MinShare)
			s.Config.Tests = len(names) - i
		}
		<-sem.enqueue([3]int{bin, first + i, 0}).ch
		r, err := runBinary(s)
		sem.release()
		if err != nil {
			return err
		}
		res.Events = append(res.Events, r.Events...)
		res.Failed = res.Failed || r.Failed
		res.Output += strings.TrimSuffix(strings.TrimSuffix(r.Output, "PASS\n"), "FAIL\n")
	}
	return nil
}

// unitRun is what one worker did.
type unitRun struct {
	// unit is the unit explored: a run range as it was, a subtree
	// (DFS, IPB, IDB, the DPORs) without its path (compact), whose
	// place in an ordered split's sequential order is key.
	unit    *strategy.Unit
	key     []int
	res     *runResult
	summary event.Event
	bugRun  int  // the run of its first bug, 0 if none
	stopRun int  // the run at which one process would stop: a bug (without -keep-going), or the test found nondeterministic
	killed  bool // its work was not needed: a bug elsewhere made it useless
	// first is, for a unit of an ordered tree split, the sequential number
	// of its first run once renumbered (0: not known).
	first int
}

// worker explores unit u (nil: the whole test) of test name, with a
// budget of runs runs (0: the configured budget).
//
// With pool, the unit goes to one of the test's served worker processes
// (serve.go).
func worker(spec runSpec, f *testFlags, name string, u *strategy.Unit, runs int, slice time.Duration, yield string, cancel <-chan struct{}, onEvent func(event.Event), pool *serverPool) (*unitRun, error) {
	s := spec
	s.OnEvent = onEvent
	s.Args = argsForTest(spec.Args, name)
	s.Config.Unit = u
	s.Config.Yield = yield
	if u != nil {
		s.Config.Runs, s.Config.Time = runs, slice
	}
	s.Quiet = true
	s.JSON = false // runTests prints the merged events
	s.Cancel = cancel
	var res *runResult
	var err error
	if pool != nil && u != nil {
		// Its TMPDIR is the process's (startServer).
		res, err = pool.run(s)
	} else {
		// A worker killed (its work made useless by a bug elsewhere)
		// cannot remove what the test put in t.TempDir: each worker
		// gets a temporary directory of its own, removed when it ends.
		tmp, terr := os.MkdirTemp("", "heddle-worker-")
		if terr != nil {
			return nil, fmt.Errorf("heddle: %v", terr)
		}
		trackTemp(tmp)
		defer untrackTemp(tmp)
		defer os.RemoveAll(tmp)
		s.Env = append(append([]string(nil), spec.Env...), "TMPDIR="+tmp)
		res, err = runBinary(s)
	}
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
			if (!f.keepGoing || e.Kind == "blocked") && (ur.stopRun == 0 || e.Run < ur.stopRun) {
				ur.stopRun = e.Run
			}
		case event.Nondeterministic:
			if ur.stopRun == 0 || e.Run < ur.stopRun {
				ur.stopRun = e.Run
			}
		}
	}
	return ur, nil
}

// compact forgets what of a unit run the merge of the units' runs does
// not need, once the coordinator has its rest and spawned units: the
// subtree's path (its key is kept: renumber), and the JSON of the rest
// and of the spawned units in its summary. A test's unit runs are all
// kept until it ends: on GoKer's Grpc3017 (paths of 30,000 scheduling
// points) each held some 15 MB, and idb's 402 units took the
// coordinator's heap past its bound (-max-memory).
func (ur *unitRun) compact() {
	if u := ur.unit; u != nil && (u.Frag != nil || u.OD != nil) {
		if u.Frag != nil {
			ur.key = strategy.UnitKey(*u)
		}
		ur.unit = &strategy.Unit{Strategy: u.Strategy, Pass: u.Pass}
	}
	ur.summary.UnitRest, ur.summary.UnitSpawned = nil, nil
	if ur.res == nil {
		return
	}
	for i := range ur.res.Events {
		if e := &ur.res.Events[i]; e.Action == event.Summary {
			e.UnitRest, e.UnitSpawned = nil, nil
		}
	}
}

// runTest explores one test with workers taken from sem, at priority
// prio (its binary's and its own number). It closes ready when it has
// asked for its first workers.
//
// With probe, a randomized strategy's runs start in one worker
// (exploreRuns): the binary has enough tests to keep the other workers
// busy meanwhile.
//
// With alone, the test is explored by one worker, as one process explores
// it (a bug found beside other workers did not reproduce alone: confirm.go).
func runTest(spec runSpec, f *testFlags, name string, sem *slotQueue, prio [2]int, ready chan struct{}, probe, alone bool) (*testResult, error) {
	var readyOnce sync.Once
	isReady := func() { readyOnce.Do(func() { close(ready) }) }
	defer isReady()
	var began time.Time // when its first worker started
	var units atomic.Int64
	cancel := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(cancel) }) }
	defer stop()
	var mu sync.Mutex
	var runs, all []*unitRun // the units whose work counts; all units that ran
	var firstErr error
	prog := &testProgress{spec: spec, name: name, strategy: f.strategy}
	var pool *serverPool // the test's served worker processes
	if serveUnits(spec) {
		pool = &serverPool{maxAge: f.timeout / 2}
		defer pool.close()
	}
	ask := func(u *strategy.Unit) *slotWaiter {
		seq := int(units.Add(1))
		if u != nil && u.From > 0 {
			seq = u.From // ranges of runs in run order
		}
		return sem.enqueue([3]int{prio[0], prio[1], seq})
	}
	explore := func(u *strategy.Unit, budget int, slice time.Duration, yield string, kill <-chan struct{}, slot *slotWaiter) (*unitRun, bool) {
		if slot == nil {
			slot = ask(u)
			isReady()
		}
		<-slot.ch
		defer sem.release()
		if interrupted.Load() {
			return nil, false // an interrupt: no new worker
		}
		select {
		case <-cancel:
			return nil, false
		case <-kill:
			return nil, false
		default:
		}
		mu.Lock()
		if began.IsZero() {
			began = time.Now()
		}
		mu.Unlock()
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
		id := prog.begin()
		ur, err := worker(spec, f, name, u, budget, slice, yield, k, func(e event.Event) { prog.event(id, e) }, pool)
		close(done)
		prog.end(id, ur)
		mu.Lock()
		defer mu.Unlock()
		if ur != nil {
			all = append(all, ur)
		}
		select {
		case <-k:
			if ur != nil {
				ur.killed = true
				ur.compact()
			}
			return nil, false // killed: its work is not needed
		default:
		}
		if ur != nil && ur.summary.Action == "" && interrupted.Load() {
			// The interrupt reached it before it could stop by itself
			// (it had just started): it explored nothing.
			ur.killed = true
			return nil, false
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			stop()
			return nil, false
		}
		if err := unitSummaryMissing(name, u, ur); err != nil {
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
	if f.budget.Time > 0 || alone {
		kind = "" // a time budget is the test's, not a unit's
	}
	finished := false
	switch kind {
	case "runs":
		var err error
		var st strategy.CoordStats
		cpu0, wall0 := cpuTime(), time.Now()
		if finished, st, err = exploreRuns(f, explore, ask, isReady, probe); err != nil {
			return nil, err
		}
		pool.close()
		if os.Getenv("HEDDLE_PARSTATS") != "" && st.Units > 0 {
			cpu := cpuTime() - cpu0
			fmt.Fprintf(os.Stderr, "heddle: parallel %s: %v, %d worker processes, %.2fs processor time in %.2fs (%.2fs per unit)\n", name, st, pool.processes(st.Units), cpu.Seconds(), time.Since(wall0).Seconds(), cpu.Seconds()/float64(max(st.Units, 1)))
		}
	case "tree":
		root := strategy.RootUnit(f.strategy, 0)
		// DFS, IPB and IDB split into units ordered as the sequential
		// runs (strategy.Ordered): a bug stops the units after it only,
		// and the budget is the sequential order's first runs
		// (CoordinateWork). Source DPOR's units share the budget.
		ordered := strategy.Ordered(f.strategy)
		share := !ordered && f.budget.Runs > 0
		budget := 0
		if ordered {
			budget = f.budget.Runs
		}
		reserved, inflight := 0, 0 // runs of the budget given to workers, and workers out
		returned := sync.NewCond(&mu)
		yieldDir, err := os.MkdirTemp("", "heddle-yield-")
		if err != nil {
			return nil, err
		}
		trackTemp(yieldDir)
		defer untrackTemp(yieldDir)
		defer os.RemoveAll(yieldDir)
		nyield := 0
		var st strategy.CoordStats
		cm := newCoordMemory(name, f.maxMemory)
		cpu0, self0, wall0 := cpuTime(), selfCPUTime(), time.Now()
		finished, st = strategy.CoordinateWork(root, f.parallel, budget, func(w strategy.Work) strategy.Outcome {
			u := w.Unit
			slice := w.Runs // runs: no bound but the time slice when 0
			mu.Lock()
			if share {
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
				reserved += slice
			}
			inflight++
			nyield++
			yield := filepath.Join(yieldDir, strconv.Itoa(nyield))
			mu.Unlock()
			defer yieldOnAsk(w.Yield, yield)()
			defer func() {
				mu.Lock()
				inflight--
				returned.Broadcast()
				mu.Unlock()
			}()
			ur, ok := explore(&u, slice, sliceTime, yield, w.Kill, nil)
			if !ok {
				select {
				case <-w.Kill:
					return strategy.Outcome{} // not needed: after a bug, or past the budget
				default:
				}
				return strategy.Outcome{Stop: true}
			}
			o := strategy.Outcome{Runs: ur.summary.Runs}
			if share {
				mu.Lock()
				reserved -= slice - ur.summary.Runs
				mu.Unlock()
			}
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
			mu.Lock()
			ur.compact()
			mu.Unlock()
			if ur.res.Failed && ur.bugRun == 0 && countBugs(ur.res.Events) == 0 {
				o.Stop = true // the worker failed without a bug: stop
			}
			if ur.stopRun > 0 {
				o.Found = true
				if !ordered {
					stop() // the other workers stop at once
				}
			}
			if ur.summary.Interrupted {
				o.Stop = true
				stop()
			}
			if err := cm.check(u, o); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				o.Stop = true
				stop()
			}
			return o
		})
		pool.close() // its processes' time counts
		if os.Getenv("HEDDLE_PARSTATS") != "" {
			// Processor time: heddle's and every child's it waited for
			// meanwhile (the workers', when one test is explored).
			// heddle's own: the coordinator's, which competes with the
			// workers for the processors.
			cpu := cpuTime() - cpu0
			fmt.Fprintf(os.Stderr, "heddle: parallel %s: %v, %d worker processes, %.2fs processor time in %.2fs (%.2fs per unit, %.2fs heddle's)\n", name, st, pool.processes(st.Units), cpu.Seconds(), time.Since(wall0).Seconds(), cpu.Seconds()/float64(max(st.Units, 1)), (selfCPUTime() - self0).Seconds())
		}
	default:
		explore(nil, 0, 0, "", cancel, nil)
		finished = true
	}
	if firstErr != nil {
		return nil, firstErr
	}
	shown := name
	if spec.Main {
		shown = "main" // as heddle run prints main's test
	}
	t := mergeUnits(spec, f, shown, kind, runs, finished)
	if !began.IsZero() {
		t.elapsed = time.Since(began)
	}
	if kind != "" {
		for k := range t.events {
			if t.events[k].Action == event.Summary {
				t.events[k].Elapsed = t.elapsed.Seconds()
			}
		}
	}
	t.removeSchedules(all)
	t.workers = len(all)
	return t, nil
}

// splitWork is the work of a split exploration's units: how many, the
// complete runs whose class a run before had (by the classes the units
// reported, event.Event.UnitClasses), and the sleep-set blocked runs.
func splitWork(runs []*unitRun) (units, twice, blocked int) {
	seen := map[uint64]bool{}
	for _, r := range runs {
		if r.killed {
			continue
		}
		units++
		blocked += r.summary.UnitBlocked
		for _, c := range r.summary.UnitClasses {
			if seen[c] {
				twice++
			}
			seen[c] = true
		}
	}
	return units, twice, blocked
}

// testProgress makes, with -json, the progress events of a test explored
// by workers: about once a second, the runs and bugs of all its workers
// (those done and the latest progress of those running), as one process
// reports them while it explores.
type testProgress struct {
	spec     runSpec
	name     string
	strategy string

	mu      sync.Mutex
	started time.Time
	last    time.Time
	done    int // runs and bugs of the workers done
	bugs    int
	next    int
	running map[int][2]int // worker -> its latest runs and bugs
}

// progressEvery is how often a test's progress is printed; HEDDLE_PROGRESS_EVERY
// (a duration) changes it, for tests (the workers print theirs as often).
var progressEvery = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("HEDDLE_PROGRESS_EVERY")); err == nil && d > 0 {
		return d
	}
	return time.Second
}()

// begin registers a worker starting.
func (p *testProgress) begin() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running == nil {
		p.running = map[int][2]int{}
		p.started = time.Now()
	}
	p.next++
	p.running[p.next] = [2]int{}
	return p.next
}

// event takes a worker's event: its progress.
func (p *testProgress) event(id int, e event.Event) {
	if e.Action != event.Progress || !p.spec.JSON {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[id] = [2]int{e.Runs, e.Bugs}
	now := time.Now()
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	runs, bugs := p.done, p.bugs
	for _, rb := range p.running {
		runs += rb[0]
		bugs += rb[1]
	}
	p.spec.Out.printEvent(event.Event{Action: event.Progress, Package: p.spec.Package, Test: p.name, Runs: runs, Bugs: bugs, Elapsed: now.Sub(p.started).Seconds(), Strategy: p.strategy})
}

// end registers a worker done.
func (p *testProgress) end(id int, ur *unitRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
	if ur != nil && !ur.killed {
		p.done += ur.summary.Runs
		p.bugs += ur.summary.Bugs
	}
}

// probeTime is how long the first worker of a randomized strategy's test
// explores its runs alone, from run 1: a test that is done by then (most
// tests of a suite) costs one process, as in one test binary; the runs
// of a longer one are then split among the workers.
// HEDDLE_PROBE_TIME (a duration) changes it, for tests.
var probeTime = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("HEDDLE_PROBE_TIME")); err == nil && d > 0 {
		return d
	}
	return 100 * time.Millisecond
}()

// exploreRuns explores the runs of a randomized strategy: with probe, runs
// from 1 for probeTime in one worker, then what is left in ranges (two per
// worker to begin with); without, all of them in ranges at once. The
// ranges go through strategy.CoordinateWork, in run order: a worker with
// nothing left to do makes the range explored longest yield its rest
// after its current run, which is split for it, so that the last ranges
// are rebalanced (a range of PCT restarts at its block, RunBlock: the runs
// of the block made twice are counted once, runsMade).
// On a bug (without -keep-going) the workers on ranges after it are
// killed at once and those ranges dropped; the ranges before it are
// explored to their end, so that the bug reported is the first, as in a
// sequential exploration.
func exploreRuns(f *testFlags, explore func(*strategy.Unit, int, time.Duration, string, <-chan struct{}, *slotWaiter) (*unitRun, bool), ask func(*strategy.Unit) *slotWaiter, ready func(), probe bool) (bool, strategy.CoordStats, error) {
	rest := strategy.RootUnit(f.strategy, f.budget.Runs)
	if probe {
		first := rest
		slot := ask(&first)
		ready()
		ur, ok := explore(&first, 0, probeTime, "", nil, slot)
		if !ok || ur.stopRun > 0 || ur.summary.Interrupted {
			return false, strategy.CoordStats{}, nil
		}
		if len(ur.summary.UnitRest) == 0 {
			return ur.summary.UnitFinished, strategy.CoordStats{}, nil
		}
		rest = strategy.Unit{}
		if json.Unmarshal(ur.summary.UnitRest, &rest) != nil || rest.From < 1 {
			return false, strategy.CoordStats{}, nil
		}
	}
	align := func(u *strategy.Unit) {
		if a := runAlign(f.strategy); a > 1 {
			// PCT learns its bounds within blocks of runs: a range
			// starts at a block, and the runs of the block a yield cut
			// are made again (counted once: mergeUnits).
			u.From = (u.From-1)/a*a + 1
		}
	}
	align(&rest)
	yieldDir, err := os.MkdirTemp("", "heddle-yield-")
	if err != nil {
		return false, strategy.CoordStats{}, err
	}
	trackTemp(yieldDir)
	defer untrackTemp(yieldDir)
	defer os.RemoveAll(yieldDir)
	var nyield atomic.Int64
	finished, st := strategy.CoordinateWork(rest, f.parallel, 0, func(w strategy.Work) strategy.Outcome {
		u := w.Unit
		yield := filepath.Join(yieldDir, strconv.Itoa(int(nyield.Add(1))))
		defer yieldOnAsk(w.Yield, yield)()
		ur, ok := explore(&u, 0, 0, yield, w.Kill, nil)
		if !ok {
			select {
			case <-w.Kill:
				return strategy.Outcome{} // after a bug: not needed
			default:
			}
			return strategy.Outcome{Stop: true}
		}
		o := strategy.Outcome{Runs: ur.summary.Runs, Found: ur.stopRun > 0, Stop: ur.summary.Interrupted}
		if len(ur.summary.UnitRest) > 0 && !o.Found {
			var r strategy.Unit
			if json.Unmarshal(ur.summary.UnitRest, &r) == nil && r.From >= 1 {
				align(&r)
				o.Rest = &r
			}
		}
		return o
	})
	ready()
	return finished, st, nil
}

// runsMade is the number of distinct runs of run ranges: a range of PCT
// may make again runs of the probe's last block.
func runsMade(runs []*unitRun) int {
	var iv [][2]int
	for _, r := range runs {
		if r.summary.Runs > 0 {
			from := max(unitFrom(r), 1)
			iv = append(iv, [2]int{from, from + r.summary.Runs - 1})
		}
	}
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	n, end := 0, 0
	for _, x := range iv {
		if x[1] <= end {
			continue
		}
		n += x[1] - max(x[0], end+1) + 1
		end = x[1]
	}
	return n
}

// testResult is one test's result, merged from its workers'.
type testResult struct {
	events  []event.Event // start, bugs and the like, summary, pass or fail
	bodies  []string      // the test's own output (-v), each worker's, with the test's RUN and verdict lines left out
	failed  bool
	skipped bool
	// notStarted: an interrupt came before the test's turn.
	notStarted bool
	elapsed    time.Duration
	kept       map[string]bool // the schedule files of the bugs reported
	workers    int             // the worker processes that explored it
}

// mergeUnits makes one test's result of its workers': the runs of all;
// the first bug (the lowest run for run ranges), or with -keep-going each
// distinct bug at its first run, as one process reports them; the proof
// when every unit of a subtree split was finished and proved the same.
func mergeUnits(spec runSpec, f *testFlags, name, kind string, runs []*unitRun, finished bool) *testResult {
	t := &testResult{kept: map[string]bool{}}
	if len(runs) == 0 {
		// Nothing explored: an interrupt came before the test's turn, as
		// in one process, where the tests after an interrupt skip.
		t.skipped, t.notStarted = true, true
		t.bodies = []string{"    heddle: interrupted\n"}
		t.events = []event.Event{{Action: event.Skip, Package: spec.Package, Test: name, Output: "heddle: interrupted"}}
		return t
	}
	// seq: the runs are numbered as one process numbers them (run
	// ranges, and the units of an ordered tree split once renumbered).
	seq := kind == "runs"
	if kind == "tree" && strategy.Ordered(f.strategy) {
		seq = true
		renumber(runs, f.budget.Runs)
	}
	sort.SliceStable(runs, func(i, j int) bool { return unitFrom(runs[i]) < unitFrom(runs[j]) })
	// Where one process would have stopped: its first bug (without
	// -keep-going) or the test found nondeterministic.
	stop := 0
	for _, r := range runs {
		if r.stopRun > 0 && (stop == 0 || seq && r.stopRun < stop) {
			stop = r.stopRun
			if !seq {
				break
			}
		}
	}
	var stopUnit *unitRun
	for _, r := range runs {
		if stop > 0 && r.stopRun == stop {
			stopUnit = r
			break
		}
	}
	// The events one process reports, each distinct bug (and timing
	// verdict) once: for run ranges the lowest run's, as one process meets
	// them in run order; for subtrees, the first unit's.
	var reported []event.Event
	seen := map[string]bool{}
	keptReports := map[string]bool{}
	total, bugs, fresh := 0, 0, 0
	interruptedTest := false
	proofs := map[string]string{} // proof -> races
	noClaim := ""                 // why a finished unit claims nothing
	spinBound := 0                // of the units whose runs kept polling goroutines from running
	for _, r := range runs {
		spinBound = max(spinBound, r.summary.SpinBound)
	}
	for _, r := range runs {
		total += r.summary.Runs
		fresh += r.summary.FreshRuns
		interruptedTest = interruptedTest || r.summary.Interrupted
		if r.summary.UnitFinished {
			// One unit's drops bound the whole test's claim: the units'
			// proofs are worded alike.
			proofs[explore.SpinClaim(r.summary.UnitProven, spinBound)] = r.summary.Races
			if noClaim == "" {
				// A unit that claims nothing (goroutines waited outside
				// heddle's control, runs cut short) leaves the test
				// unproved: its schedules' orders were not all explored.
				noClaim = r.summary.NoClaim
			}
		}
	}
	var cands []event.Event
	for _, r := range runs {
		for _, e := range r.res.Events {
			switch e.Action {
			case event.Bug, event.Timing, event.Nondeterministic, event.Skip:
			default:
				continue
			}
			if seq && stop > 0 && e.Run > stop && e.Action != event.Skip {
				continue // one process had stopped before
			}
			if seq && kind == "tree" && f.budget.Runs > 0 && e.Run > f.budget.Runs {
				continue // past the budget: one process had ended before
			}
			if !seq && stopUnit != nil && r != stopUnit && e.Action == event.Bug && !f.keepGoing {
				continue // the first bug only
			}
			cands = append(cands, e)
		}
	}
	if seq {
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Run < cands[j].Run })
	}
	for _, e := range cands {
		id := e.Action + " " + e.Key
		if e.Action == event.Nondeterministic || e.Action == event.Skip {
			id = e.Action
		}
		if e.Action == event.Bug && !f.keepGoing {
			id = e.Action
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		e.Test = name
		reported = append(reported, e)
		if e.Schedule != "" {
			t.kept[e.Schedule] = true
		}
		keptReports[e.Report] = true
		switch e.Action {
		case event.Bug:
			bugs++
		case event.Skip:
			t.skipped = true
		}
	}
	var dropped []string // reports of bugs found again by another worker, or past the stop
	for _, r := range runs {
		for _, e := range r.res.Events {
			if (e.Action == event.Bug || e.Action == event.Timing) && e.Report != "" && !keptReports[e.Report] {
				dropped = append(dropped, e.Report)
			}
		}
	}
	for _, r := range runs {
		failedAlone := r.res.Failed && r.bugRun == 0 && countAction(r.res.Events, event.Nondeterministic) == 0
		if failedAlone {
			t.failed = true // the worker failed without a bug
		}
		if seq && stop > 0 && unitFrom(r) > stop {
			continue // its runs are past the stop: not one process's
		}
		body := dropReports(testBody(r.res.Output, name), dropped)
		if kind != "" {
			body = interruptedLines.ReplaceAllString(body, "")
		}
		if strings.TrimSpace(body) != "" {
			t.bodies = append(t.bodies, body)
		}
	}
	t.failed = t.failed || bugs > 0
	for _, e := range reported {
		if e.Action == event.Nondeterministic && f.strictND {
			t.failed = true
		}
	}
	if kind == "" {
		// One worker explored the test: its events as they are.
		r := runs[0]
		for _, e := range r.res.Events {
			switch e.Action {
			case event.Start, event.Summary:
				t.events = append(t.events, e)
			case event.Pass, event.Fail:
				if r.res.Failed || e.Action == event.Fail {
					t.failed = true
				}
			}
		}
		t.events = insertReported(t.events, reported)
		t.events = append(t.events, verdictEvent(spec.Package, name, t))
		return t
	}
	if kind == "runs" {
		total = runsMade(runs)
	}
	if seq && kind == "tree" && f.budget.Runs > 0 {
		total = min(total, f.budget.Runs) // runs past the budget are not one process's
	}
	if !finished && stop == 0 && interrupted.Load() {
		interruptedTest = true // its workers were done, the rest never started
	}
	sum := event.Event{Action: event.Summary, Package: spec.Package, Test: name, Runs: total, Bugs: bugs, Strategy: f.strategy, Budget: f.budget.Text, Interrupted: interruptedTest, FreshRuns: fresh}
	sum.Parallel = anyParallel(runs)
	if kind == "tree" {
		sum.SplitUnits, sum.SplitTwice, sum.SplitBlocked = splitWork(runs)
	}
	if seq && stop > 0 {
		sum.Runs = stop // as one process stops there
	}
	if noClaim != "" {
		sum.NoClaim = noClaim
	} else if bugs == 0 && kind == "tree" && finished && !interruptedTest && !t.failed && stop == 0 {
		// Every schedule, or (SpinBound) every one in which no goroutine
		// polls more than spinBound times in a row while another can run.
		sum.Exhausted, sum.SpinBound = spinBound == 0, spinBound
		if len(proofs) == 1 {
			for p, races := range proofs {
				sum.Proven, sum.Races = p, races
			}
		}
	}
	if interruptedTest {
		el := time.Duration(0)
		for _, r := range runs {
			el = max(el, time.Duration(r.summary.Elapsed*float64(time.Second)))
		}
		t.bodies = append(t.bodies, fmt.Sprintf("    heddle: interrupted after %d runs (%v)\n", sum.Runs, el.Round(time.Millisecond)))
	}
	t.events = []event.Event{{Action: event.Start, Package: spec.Package, Test: name, Strategy: f.strategy, Budget: f.budget.Text}}
	t.events = append(t.events, reported...)
	t.events = append(t.events, sum, verdictEvent(spec.Package, name, t))
	return t
}

// insertReported puts the reported events before the summary.
func insertReported(evs, reported []event.Event) []event.Event {
	var out []event.Event
	put := false
	for _, e := range evs {
		if e.Action == event.Summary && !put {
			out = append(out, reported...)
			put = true
		}
		out = append(out, e)
	}
	if !put {
		out = append(out, reported...)
	}
	return out
}

func verdictEvent(pkg, name string, t *testResult) event.Event {
	a := event.Pass
	if t.failed {
		a = event.Fail
	}
	return event.Event{Action: a, Package: pkg, Test: name}
}

// removeSchedules removes the schedule files the workers wrote for bugs
// that are not reported: found again by another worker, past the bug one
// process would have stopped at, or by a worker killed as useless. One
// schedule file per distinct bug, as one process writes.
//
// A worker says which file it is about to write (event.Writing) before it
// writes it: one killed while it made the report (a bug before its unit
// made its work useless) leaves the file, or the temporary it is written
// through, which are removed too.
func (t *testResult) removeSchedules(all []*unitRun) {
	for _, r := range all {
		for _, e := range r.res.Events {
			if (e.Action == event.Bug || e.Action == event.Timing || e.Action == event.Writing) && e.Schedule != "" && !t.kept[e.Schedule] {
				os.Remove(e.Schedule)
				if e.Action == event.Writing {
					tmps, _ := filepath.Glob(e.Schedule + ".*.tmp")
					for _, f := range tmps {
						os.Remove(f)
					}
				}
			}
		}
	}
}

// interruptedLines are the lines a worker prints when an interrupt stops
// it: runTest prints one for the test.
var interruptedLines = regexp.MustCompile(`(?m)^.*heddle: interrupted after [0-9]+ runs.*\n`)

// testBody is a worker's output with the lines that one test binary prints
// once per test (its RUN and verdict lines) and once per binary (PASS,
// FAIL) left out.
func testBody(out, name string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		s := strings.TrimSuffix(l, "\n")
		switch {
		case l == "":
		case s == "=== RUN   "+name, s == "=== PAUSE "+name, s == "=== CONT  "+name, s == "=== NAME  "+name:
		case strings.HasPrefix(s, "--- PASS: "+name+" ("), strings.HasPrefix(s, "--- FAIL: "+name+" ("), strings.HasPrefix(s, "--- SKIP: "+name+" ("):
		case s == "PASS", s == "FAIL", s == "testing: warning: no tests to run":
		default:
			b.WriteString(l)
		}
	}
	return b.String()
}

// dropReports leaves out of out the reports in drop, each as t.Error
// printed it: the line before the report's first line (the position) and
// the report's lines, indented deeper.
func dropReports(out string, drop []string) string {
	if len(drop) == 0 {
		return out
	}
	lines := strings.SplitAfter(out, "\n")
	skip := make([]bool, len(lines))
	for _, rep := range drop {
		first := firstLine(rep)
		if first == "" {
			continue
		}
		for i, l := range lines {
			if skip[i] || !strings.Contains(l, first) {
				continue
			}
			ind := indent(l)
			from := i
			if i > 0 && indent(lines[i-1]) < ind && strings.HasSuffix(strings.TrimRight(lines[i-1], " \n"), ":") {
				from = i - 1 // "    file_test.go:12:" above the report
			}
			to := i + 1
			for to < len(lines) && (strings.TrimSpace(lines[to]) == "" || indent(lines[to]) >= ind) {
				to++
			}
			for k := from; k < to; k++ {
				skip[k] = true
			}
			break
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if !skip[i] {
			b.WriteString(l)
		}
	}
	return b.String()
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// print prints the test's result as one test binary would (its output, or
// with -json its events and output events), and returns the text printed.
func (t *testResult) print(spec runSpec, f *testFlags, name string) string {
	verdict := "PASS"
	switch {
	case t.failed:
		verdict = "FAIL"
	case t.skipped:
		verdict = "SKIP"
	}
	line := fmt.Sprintf("--- %s: %s (%.2fs)\n", verdict, name, t.elapsed.Seconds())
	body := strings.Join(t.bodies, "")
	if spec.JSON {
		emit := func(e event.Event) {
			e.Time = time.Time{} // stamped as printed: the events of a test were made by several processes
			e.Package = spec.Package
			if e.Test == "" {
				e.Test = name
			}
			spec.Out.printEvent(e)
		}
		output := func(s string) { emit(event.Event{Action: event.Output, Output: s}) }
		var rest []event.Event
		output("=== RUN   " + name + "\n")
		for _, e := range t.events {
			if e.Action == event.Start {
				emit(e)
			} else {
				rest = append(rest, e)
			}
		}
		for _, l := range strings.SplitAfter(body, "\n") {
			if l != "" {
				output(l)
			}
		}
		for _, e := range rest {
			if e.Action == event.Pass || e.Action == event.Fail {
				output(line)
				e.Elapsed = t.elapsed.Seconds()
			}
			emit(e)
		}
		return ""
	}
	var s string
	switch {
	case f.verbose:
		s = "=== RUN   " + name + "\n" + body + line
	case t.failed:
		s = line + body
	}
	spec.Out.Write([]byte(s))
	return s
}

func unitFrom(r *unitRun) int {
	if r.unit == nil {
		return 0
	}
	if r.first > 0 {
		return r.first
	}
	return r.unit.From
}

// renumber gives the units of an ordered tree split (dfs, ipb, idb; every
// unit before the first bug, and before the budget's end, was explored:
// strategy.CoordinateWork) the run numbers of one process: a unit's run k
// is the sequential run off+k (strategy.RunOffsets). So are numbered its
// events, their reports (the first line, in the events and in the
// worker's output), its stop and first bug, and the schedule files of its
// bugs ("run:", and the runs of "before:"). A bug past the budget (from
// a unit explored before the budget's end was known) is no stop.
func renumber(runs []*unitRun, budget int) {
	keys := make([][]int, len(runs))
	n := make([]int, len(runs))
	for i, r := range runs {
		keys[i] = r.key
		if r.key == nil && r.unit != nil {
			keys[i] = strategy.UnitKey(*r.unit)
		}
		n[i] = r.summary.Runs
	}
	off := strategy.RunOffsetsByKey(keys, n)
	for i, r := range runs {
		d := off[i]
		r.first = d + 1
		if r.bugRun > 0 {
			r.bugRun += d
		}
		if r.stopRun > 0 {
			r.stopRun += d
			if budget > 0 && r.stopRun > budget {
				r.stopRun = 0
			}
		}
		if d == 0 {
			continue
		}
		for j := range r.res.Events {
			e := &r.res.Events[j]
			switch e.Action {
			case event.Bug, event.Timing, event.Nondeterministic:
			default:
				continue
			}
			if e.Run <= 0 {
				continue
			}
			run := e.Run + d
			if e.Report != "" {
				old := firstLine(e.Report)
				now := renumberLine(old, e.Run, run)
				e.Report = strings.Replace(e.Report, old, now, 1)
				r.res.Output = strings.ReplaceAll(r.res.Output, old, now)
			}
			if e.Schedule != "" {
				renumberSchedule(e.Schedule, d)
			}
			e.Run = run
		}
	}
}

// renumberLine is the first line of a report of run old, as the report
// of run now.
func renumberLine(l string, old, now int) string {
	for _, f := range []string{"(run %d, ", "(run %d)"} {
		if a := fmt.Sprintf(f, old); strings.Contains(l, a) {
			return strings.Replace(l, a, fmt.Sprintf(f, now), 1)
		}
	}
	return l
}

// renumberSchedule makes the schedule file at path, written by a unit
// whose runs are the sequential runs d+1 on, say so: its run, and the runs
// after which it replayed (Schedule.Before), by their sequential numbers.
// Its replay goes through the strategy's runs from the first (warmUp),
// not the unit's (design.md).
func renumberSchedule(path string, d int) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	sc, err := schedule.Parse(f)
	f.Close()
	if err != nil {
		return
	}
	sc.Run += d
	var before []string
	for _, b := range strings.Fields(sc.Before) {
		if r, what, ok := strings.Cut(b, ":"); ok {
			if n, err := strconv.Atoi(r); err == nil {
				b = fmt.Sprintf("%d:%s", n+d, what)
			}
		}
		before = append(before, b)
	}
	sc.Before = strings.Join(before, " ")
	var buf bytes.Buffer
	if sc.Write(&buf) != nil {
		return
	}
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	tmp := path + ".renumber.tmp"
	if os.WriteFile(tmp, buf.Bytes(), info.Mode().Perm()) != nil {
		return
	}
	if os.Chmod(tmp, info.Mode().Perm()) != nil || os.Rename(tmp, path) != nil {
		os.Remove(tmp)
	}
}

// lanes print the output of packages explored at once in package order,
// as go test does: a package's output goes straight to out while it is the
// first package not finished, and is held until then otherwise. Only that
// package draws the progress line, or off a terminal says that it is still
// running.
type lanes struct {
	mu       sync.Mutex
	out      io.Writer
	progress io.Writer
	head     int
	held     []bytes.Buffer
	done     []bool
	ws       []*syncWriter
}

func newLanes(out *syncWriter, n int) *lanes {
	l := &lanes{out: out, progress: out.progress, held: make([]bytes.Buffer, n), done: make([]bool, n), ws: make([]*syncWriter, n)}
	for i := range l.ws {
		l.ws[i] = &syncWriter{w: lane{l, i}, progress: io.Discard}
	}
	if n > 0 {
		l.ws[0].progress = l.progress
	}
	return l
}

type lane struct {
	l *lanes
	i int
}

func (w lane) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.i == w.l.head {
		return w.l.out.Write(p)
	}
	return w.l.held[w.i].Write(p)
}

// finish marks package i done, and prints what the packages after it
// held, up to the first one not done.
func (l *lanes) finish(i int) {
	l.mu.Lock()
	l.done[i] = true
	var next *syncWriter
	for l.head < len(l.done) && l.done[l.head] {
		l.head++
		if l.head < len(l.done) {
			l.out.Write(l.held[l.head].Bytes())
			l.held[l.head].Reset()
			next = l.ws[l.head]
		}
	}
	l.mu.Unlock()
	if next != nil {
		next.mu.Lock()
		// Erase what it drew where it drew it (nowhere, io.Discard)
		// before it draws on l.progress, which is nil off a terminal.
		next.clearLocked()
		next.progress = l.progress
		next.mu.Unlock()
	}
}

// testPackages builds and explores the packages of heddle test and prints
// their results in order, as go test does. With -parallel, packages are
// explored at once, sharing the workers (go test -p): the build of a
// package (one at a time, in order) overlaps the exploration of those
// before it. -budget-total, which spreads a time over the packages in
// turn, explores them one after another.
func testPackages(prog *build.Program, f *testFlags, outDir string, out *syncWriter, stderr io.Writer) int {
	pkgs := prog.Packages
	total := newTotalBudget(f, pkgs)
	ln := newLanes(out, len(pkgs))
	codes := make([]int, len(pkgs))
	var fatal atomic.Bool
	together := useParallel(f) && f.total <= 0
	prev := make(chan struct{}) // closed when the package before may let this one start
	close(prev)
	var wg sync.WaitGroup
	for i, pkg := range pkgs {
		next := make(chan struct{})
		wg.Add(1)
		go func(prev <-chan struct{}, next chan struct{}) {
			defer wg.Done()
			var once sync.Once
			release := func() { once.Do(func() { close(next) }) }
			defer release()
			defer ln.finish(i)
			w := ln.ws[i]
			<-prev
			if fatal.Load() || interrupted.Load() {
				return // not tested
			}
			if !pkg.HasTests {
				if f.json {
					w.printEvent(event.Event{Action: event.Skip, Package: pkg.ImportPath, Output: "no test files"})
				} else {
					fmt.Fprintf(w, "?   \t%s\t[no test files]\n", pkg.ImportPath)
				}
				return
			}
			run := func(spec runSpec) (*runResult, error) { return runTests(spec, f) }
			c, bad := explorePackage(prog, pkg, f, outDir, w, stderr, func(cfg *explore.Config, bin string) {
				cfg.PackageTime, cfg.Tests = total.share(i, bin, pkg.Dir)
				if together {
					release() // built: the next package builds
				}
			}, run)
			codes[i] = c
			if bad {
				fatal.Store(true)
			}
		}(prev, next)
		prev = next
	}
	wg.Wait()
	if fatal.Load() {
		return exitUsage
	}
	code := exitOK
	for _, c := range codes {
		code = max(code, c)
	}
	if interrupted.Load() {
		fmt.Fprintln(stderr, "heddle: interrupted: the packages after this one were not tested")
		if code == exitOK {
			code = exitUsage
		}
	}
	return code
}

// yieldOnAsk writes the yield file a worker watches (explore's yield
// check) when the coordinator asks the unit to yield (Work.Yield), until
// the returned function is called.
func yieldOnAsk(ask <-chan struct{}, file string) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ask:
			os.WriteFile(file, nil, 0o644)
		case <-done:
		}
	}()
	return func() { close(done) }
}

// unitSummaryMissing is the error of a unit's worker that ended without
// its summary and without failing: what it explored, and what is left of
// its unit, are not known, and the unit must not be taken for finished
// (GoKer's Grpc3017 split under odpor: a summary line nested deeper than
// encoding/json reads did not parse, and the test was reported "0 runs,
// 1 exhausted"). nil otherwise.
func unitSummaryMissing(name string, u *strategy.Unit, ur *unitRun) error {
	if u == nil || ur == nil || ur.res == nil || ur.res.Failed || ur.summary.Action == event.Summary {
		return nil
	}
	return fmt.Errorf("heddle: %s: the worker exploring %v ended without its summary: what it explored is not known", name, *u)
}
