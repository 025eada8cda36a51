package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
)

// runSpec says how to run one test binary.
type runSpec struct {
	Package string
	Dir     string // the package directory: test binaries run there, as under go test
	Binary  string
	Args    []string // -test.* flags
	Config  explore.Config
	JSON    bool // print events as JSON lines instead of text
	Verbose bool // -v: the binary's output is printed in full
	Main    bool // heddle run: the one test is main's, and is called main in the output
	Out     *syncWriter
	OnEvent func(event.Event) // if set, called with each event as it comes (heddle test -shard's checkpoint)
	// Cancel, if set, kills the binary when it is closed (a -parallel
	// worker whose work another worker's bug made useless).
	Cancel <-chan struct{}
	// Quiet keeps the binary's output out of Out (a -parallel worker's:
	// runTests prints what is to be printed); progress still shows.
	Quiet bool
	// Part marks one of several processes that run a package's tests
	// (runEach): the closing PASS or FAIL line of its output is left to
	// the caller, which prints one for the package.
	Part bool
	// Env is added to the binary's environment.
	Env []string
	// Lines, if set, rewrites each line of the binary's output before it
	// is printed (drop: false leaves it out); Output keeps it as it was.
	Lines func(line string) (out string, keep bool)
}

// runResult is what a test binary did.
type runResult struct {
	Failed  bool          // the binary exited with a failure
	Events  []event.Event // the events it wrote, with Package set
	Output  string        // its combined output
	Elapsed time.Duration
	NoTests bool // no test matched -run
}

// syncWriter serializes writes of whole lines from several goroutines. On a
// terminal it also keeps a progress line on progress (stderr), erased
// before any other output.
type syncWriter struct {
	mu       sync.Mutex
	w        io.Writer
	progress io.Writer // nil when not on a terminal
	shown    bool

	// Off a terminal, a line every stillEvery for a test still running,
	// so that a CI log never looks hung.
	lastWrite time.Time   // of any output
	last      event.Event // the last progress (or start) event seen
	started   time.Time   // when the last test's exploration started
	replaying bool        // heddle replay: one schedule, no runs to count
}

// stillEvery is how often, off a terminal, heddle says that a test is
// still running when nothing else was printed. HEDDLE_PROGRESS_INTERVAL
// (a duration) changes it, for tests.
var stillEvery = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("HEDDLE_PROGRESS_INTERVAL")); err == nil && d > 0 {
		return d
	}
	return 30 * time.Second
}()

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	s.lastWrite = time.Now()
	return s.w.Write(p)
}

// noteStart records that a test's exploration began.
func (s *syncWriter) noteStart(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = e
	s.last.Runs, s.last.Bugs = 0, 0
	s.started = time.Now()
}

// stillRunning prints, off a terminal, a line for the test still running
// when nothing was printed for stillEvery.
func (s *syncWriter) stillRunning(pkg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress != nil {
		return
	}
	now := time.Now()
	if s.lastWrite.IsZero() {
		s.lastWrite = now
	}
	if now.Sub(s.lastWrite) < stillEvery {
		return
	}
	s.lastWrite = now
	if s.last.Test == "" {
		fmt.Fprintf(s.w, "heddle: %s: still running\n", pkg)
		return
	}
	el := s.last.Elapsed
	if !s.started.IsZero() {
		el = now.Sub(s.started).Seconds()
	}
	if s.replaying {
		fmt.Fprintf(s.w, "heddle: %s %s: still replaying the schedule, %.0fs\n", pkg, s.last.Test, el)
		return
	}
	fmt.Fprintf(s.w, "heddle: %s %s: still exploring: %d runs, %d bugs, %.0fs\n", pkg, s.last.Test, s.last.Runs, s.last.Bugs, el)
}

func (s *syncWriter) clearLocked() {
	if s.shown {
		io.WriteString(s.progress, "\r\033[K")
		s.shown = false
	}
}

// showProgress replaces the progress line, on a terminal.
func (s *syncWriter) showProgress(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = e
	if s.progress == nil {
		return
	}
	rate := 0.0
	if e.Elapsed > 0 {
		rate = float64(e.Runs) / e.Elapsed
	}
	fmt.Fprintf(s.progress, "\r%s %s: %d runs (%.0f/s), %d bugs, %s\033[K", e.Package, e.Test, e.Runs, rate, e.Bugs, e.Strategy)
	s.shown = true
}

// clearProgress erases the progress line.
func (s *syncWriter) clearProgress() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// printEvent writes e as one JSON line.
func (s *syncWriter) printEvent(e event.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // an Event always marshals
	}
	s.Write(append(b, '\n'))
}

// runBinary runs a test binary with HEDDLE_CONFIG set, streams its output
// go-test style (or as output events with -json), and collects the events it
// writes to Config.Events.
func runBinary(spec runSpec) (*runResult, error) {
	ev, err := os.CreateTemp("", "heddle-events-*.jsonl")
	if err != nil {
		return nil, err
	}
	evPath := ev.Name()
	ev.Close()
	trackTemp(evPath)
	defer untrackTemp(evPath)
	defer os.Remove(evPath)
	spec.Config.Events = evPath
	cfg, err := json.Marshal(spec.Config)
	if err != nil {
		return nil, err
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(spec.Binary, spec.Args...)
	cmd.Dir = spec.Dir
	entry, removeCfg, err := explore.ConfigEnv(cfg, "")
	if err != nil {
		return nil, fmt.Errorf("heddle: the configuration of %s: %v", spec.Package, err)
	}
	defer removeCfg()
	cmd.Env = append(append(os.Environ(), spec.Env...), entry)
	cmd.Stdout, cmd.Stderr = pw, pw
	childAttr(cmd)
	if lockThreadForChild {
		// The child's death signal fires when the thread that started it
		// ends: keep this goroutine on it until the child is gone.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	watchSignals()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("heddle: running %s: %v", spec.Binary, err)
	}
	pw.Close()
	if spec.Cancel != nil {
		exited := make(chan struct{})
		defer close(exited)
		go func() {
			select {
			case <-spec.Cancel:
				cmd.Process.Kill()
			case <-exited:
			}
		}()
	}
	defer trackChild(cmd.Process)()
	if interrupted.Load() {
		cmd.Process.Signal(os.Interrupt) // between two packages
	}

	res := &runResult{}
	finishEvents := followEvents(spec, evPath, res)

	var out bytes.Buffer
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var held []string // "PASS" and the like, printed only with -v
	for sc.Scan() {
		line := sc.Text()
		if spec.Main {
			line = strings.ReplaceAll(line, build.MainTest, "main")
		}
		out.WriteString(line + "\n")
		if spec.Part && (line == "PASS" || line == "FAIL") {
			continue // runEach prints one for the package
		}
		if spec.Lines != nil {
			var keep bool
			if line, keep = spec.Lines(line); !keep {
				continue
			}
		}
		if spec.JSON {
			spec.Out.printEvent(event.Event{Action: event.Output, Package: spec.Package, Output: line + "\n"})
			continue
		}
		if spec.Quiet {
			continue
		}
		if !spec.Verbose && (line == "PASS" || line == "testing: warning: no tests to run") {
			held = append(held, line)
			continue
		}
		spec.Out.Write([]byte(line + "\n"))
	}
	pr.Close()
	werr := cmd.Wait()
	res.Elapsed = time.Since(start)
	finishEvents()
	res.Output = out.String()
	for _, h := range held {
		if h == "testing: warning: no tests to run" {
			res.NoTests = true
		}
	}
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return nil, fmt.Errorf("heddle: running %s: %v", spec.Binary, werr)
		}
		res.Failed = true
		if !spec.Verbose && !spec.JSON && !spec.Quiet {
			// On failure go test shows everything.
			for _, h := range held {
				spec.Out.Write([]byte(h + "\n"))
			}
		}
	}
	return res, nil
}

var (
	// interrupted is set by the first SIGINT or SIGTERM: it is forwarded
	// to the test binary, which stops exploring and reports what it
	// explored; heddle starts no other test binary. A second one ends
	// heddle at once.
	interrupted   atomic.Bool
	watchSignalsO sync.Once
)

// interruptGrace is how long the test binaries have, after the first
// interrupt, to stop and report what they explored. A binary that is still
// running then (stuck in a system call, or ignoring the signal) is killed,
// so that heddle never hangs on a cancel. HEDDLE_INTERRUPT_GRACE (a
// duration) sets it.
func interruptGrace() time.Duration {
	if v := os.Getenv("HEDDLE_INTERRUPT_GRACE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return 10 * time.Second
}

func watchSignals() {
	watchSignalsO.Do(func() {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			for sig := range ch {
				if interrupted.Swap(true) {
					signalChildren(os.Kill)
					os.Exit(exitUsage)
				}
				signalChildren(sig)
				grace := interruptGrace()
				time.AfterFunc(grace, func() {
					switch n := killChildren(); n {
					case 0:
					case 1:
						fmt.Fprintf(os.Stderr, "heddle: a test binary did not stop within %v of the interrupt: killed it\n", grace)
					default:
						fmt.Fprintf(os.Stderr, "heddle: %d test binaries did not stop within %v of the interrupt: killed them\n", n, grace)
					}
				})
			}
		}()
	})
}

// tailer reads the JSON lines appended to a file.
type tailer struct {
	path    string
	off     int64
	partial []byte
}

func newTailer(path string) *tailer { return &tailer{path: path} }

func (t *tailer) read() []event.Event {
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return nil
	}
	b, err := io.ReadAll(f)
	if err != nil || len(b) == 0 {
		return nil
	}
	t.off += int64(len(b))
	b = append(t.partial, b...)
	var evs []event.Event
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSpace(b[:i])
		b = b[i+1:]
		if len(line) == 0 {
			continue
		}
		var e event.Event
		if err := json.Unmarshal(line, &e); err != nil {
			e = event.Event{Action: event.Output, Output: fmt.Sprintf("heddle: bad event line %q: %v\n", line, err)}
		}
		evs = append(evs, e)
	}
	t.partial = append([]byte(nil), b...)
	return evs
}

// replayCommand is the command line that replays the schedule file.
func replayCommand(file string) string {
	return heddleCommand() + " replay " + shellQuote(file)
}

// heddleCommand is how the user can run this heddle again: "heddle" when
// that is what PATH finds, "go tool heddle" when run as a Go tool, else the
// executable's path.
func heddleCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "heddle"
	}
	if p, err := exec.LookPath("heddle"); err == nil {
		if same(p, exe) {
			return "heddle"
		}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") || strings.Contains(filepath.ToSlash(exe), "/go/tool") {
		return "go tool heddle"
	}
	return shellQuote(exe)
}

func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// runEach runs the tests of a test binary one process each, one after the
// other, and merges what they did as one binary's run: each test's
// exploration starts from the state of a new process, as its replay does,
// whatever the tests before it left in package variables (a default pool
// made in init, a buffered channel a Stop filled) or could not finish (a
// run ended at the time budget in the middle). Fuzz targets and examples,
// which go test runs after the tests, run after them, one process each as
// well. Then, if at least two tests called t.Parallel, they are explored
// together in one more process (exploreGroup), as go test runs them
// concurrently. A binary with one test (or none) runs as it is.
func runEach(spec runSpec) (*runResult, error) {
	names, err := listRunnable(spec)
	if err != nil {
		return nil, err
	}
	if len(names) <= 1 {
		return runBinary(spec)
	}
	res := &runResult{}
	var out strings.Builder
	share := spec.Config.PackageTime > 0
	start := time.Now()
	for i, name := range names {
		if interrupted.Load() {
			// runBinary forwarded the signal; start no other test. The
			// tests left skip, as in one process they did.
			if strings.HasPrefix(name, "Test") {
				skip := fmt.Sprintf("--- SKIP: %s (0.00s)\n    heddle: interrupted\n", name)
				out.WriteString(skip)
				switch {
				case spec.JSON:
					spec.Out.printEvent(event.Event{Action: event.Output, Package: spec.Package, Output: skip})
				case spec.Verbose:
					spec.Out.Write([]byte(skip))
				}
			}
			continue
		}
		s := spec
		s.Part = true
		s.Args = argsForTest(spec.Args, name)
		if share {
			// -budget-total: what is left of the package's time, over the
			// tests left (explore.shareTime spreads it within a process).
			s.Config.PackageTime = max(spec.Config.PackageTime-time.Since(start), explore.MinShare)
			s.Config.Tests = len(names) - i + groupShare(res.Events)
		}
		r, err := runBinary(s)
		if err != nil {
			return nil, err
		}
		res.Events = append(res.Events, r.Events...)
		res.Failed = res.Failed || r.Failed
		res.Elapsed += r.Elapsed
		out.WriteString(strings.TrimSuffix(strings.TrimSuffix(r.Output, "PASS\n"), "FAIL\n"))
	}
	// The tests that called t.Parallel, together, as go test runs them
	// (group.go).
	g, err := exploreGroup(spec, res.Events, spec.Config.PackageTime-time.Since(start), time.Since(start), nil)
	if err != nil {
		return nil, err
	}
	out.WriteString(addGroup(res, g))
	closing := "PASS"
	if res.Failed {
		closing = "FAIL"
	}
	out.WriteString(closing + "\n")
	res.Output = out.String()
	switch {
	case spec.JSON:
		spec.Out.printEvent(event.Event{Action: event.Output, Package: spec.Package, Output: closing + "\n"})
	case spec.Quiet:
	case res.Failed || spec.Verbose:
		spec.Out.Write([]byte(closing + "\n"))
	}
	return res, nil
}

// listRunnable lists what spec's binary runs with its -run and -skip
// (its -test.run and -test.skip): its tests, fuzz targets (their seed corpus)
// and examples with output, in go test's order (-test.list lists
// benchmarks too, which do not run without -test.bench).
func listRunnable(spec runSpec) ([]string, error) {
	run, skip := argPatterns(spec.Args)
	names, err := listSelected(spec.Binary, spec.Dir, run, skip)
	if err != nil {
		return nil, fmt.Errorf("heddle: listing the tests of %s: %v", spec.Package, err)
	}
	var tests, fuzz, examples []string
	for _, l := range names {
		switch {
		case strings.HasPrefix(l, "Test"):
			tests = append(tests, l)
		case strings.HasPrefix(l, "Fuzz"):
			fuzz = append(fuzz, l)
		case strings.HasPrefix(l, "Example"):
			examples = append(examples, l)
		}
	}
	return append(append(tests, fuzz...), examples...), nil
}

// listSelected lists the names (tests, benchmarks, fuzz targets, examples)
// of test binary bin, run in dir, that the -run pattern run and the -skip
// pattern skip select at the top level, as go test selects them: each
// alternative of run by its first element, skip only by an alternative of
// one element (-test.list takes one regular expression, matched against
// the whole pattern, and no -skip).
func listSelected(bin, dir, run, skip string) ([]string, error) {
	m, err := explore.NewNameMatcher(run, skip)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-test.list=.")
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var names []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" && m.Selects(l) {
			names = append(names, l)
		}
	}
	return names, nil
}

// argPatterns returns the -test.run and -test.skip patterns of args.
func argPatterns(args []string) (run, skip string) {
	for _, a := range args {
		if p, ok := strings.CutPrefix(a, "-test.run="); ok {
			run = p
		}
		if p, ok := strings.CutPrefix(a, "-test.skip="); ok {
			skip = p
		}
	}
	return run, skip
}

// followEvents follows the events a run appends to the file at path: every
// 100 ms, and once more when the returned function is called after the run,
// it gives the new ones to spec.OnEvent, shows progress events, prints the
// others with -json and records them in res.Events. Off a terminal, a tick
// says that the test is still running when nothing was printed for a while.
func followEvents(spec runSpec, path string, res *runResult) (finish func()) {
	var mu sync.Mutex // guards res.Events until finish returns
	tail := newTailer(path)
	onEvents := func(evs []event.Event) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range evs {
			e.Package = spec.Package
			if spec.OnEvent != nil {
				spec.OnEvent(e)
			}
			if e.Action == event.Progress && !spec.JSON {
				spec.Out.showProgress(e)
				continue
			}
			if e.Action == event.Start {
				spec.Out.noteStart(e)
			}
			res.Events = append(res.Events, e)
			if spec.JSON {
				spec.Out.printEvent(e)
			}
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				onEvents(tail.read())
				if !spec.JSON {
					spec.Out.stillRunning(spec.Package)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		onEvents(tail.read())
		spec.Out.clearProgress()
	}
}
