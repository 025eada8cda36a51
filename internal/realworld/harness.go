package realworld

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"heddle.dev/internal/event"
)

// Config is one run of the harness.
type Config struct {
	Heddle        string         // the heddle binary measured
	Work          string         // where modules are copied
	Budget        string         // heddle test's -budget, per test (runs or a duration)
	Flags         []string       // more heddle test flags
	Timeout       time.Duration  // time limit of one module's heddle test
	NativeTimeout time.Duration  // time limit of one module's go test
	ReplayTimeout time.Duration  // time limit of one replay
	Jobs          int            // modules measured in parallel
	MaxRSS        int64          // bound on a command's resident memory, with its descendants (0: MaxRSS)
	Run           *regexp.Regexp `json:"-"` // only modules whose path matches (nil: all)
	Modules       []Module       `json:"-"` // the corpus (nil: Modules)
	Log           io.Writer      `json:"-"` // progress (nil: none)
}

// Results is the outcome of a harness run.
type Results struct {
	Config  Config
	Modules []*ModuleResult
	Wall    time.Duration

	// How the results were made, for the page.
	Command, Machine, Commit string

	// Reruns are the modules run again with -merge, each with the
	// command that ran it, in the order they were merged.
	Reruns []Rerun `json:",omitempty"`

	// The pages' file names, for the links between them: the page of
	// results and the page of report texts (ReportsMarkdown). Set by
	// whoever writes them; not saved.
	Page, ReportsPage string `json:"-"`
}

// A Rerun is one run of some of the corpus's modules merged into the
// results of a whole run (Merge).
type Rerun struct {
	Command string
	Modules []string
	Wall    time.Duration
}

// Merge puts the modules of redo, a run of some of the corpus's modules
// with the same heddle (commit), in place of their rows in res: a module
// a whole run could not measure (the machine was too loaded for its time
// limit, say) is run again without running the whole corpus. The page
// lists every rerun and its command.
func (res *Results) Merge(redo *Results) error {
	if redo.Commit != res.Commit {
		return fmt.Errorf("the results to merge into were made with %s, this run with %s: run again with the same -rev", res.Commit, redo.Commit)
	}
	rr := Rerun{Command: redo.Command, Wall: redo.Wall}
	for _, m := range redo.Modules {
		found := false
		for i, old := range res.Modules {
			if old.Module.Path == m.Module.Path {
				res.Modules[i], found = m, true
				break
			}
		}
		if !found {
			res.Modules = append(res.Modules, m)
		}
		rr.Modules = append(rr.Modules, m.Module.Path)
	}
	res.Reruns = append(res.Reruns, rr)
	return nil
}

// Reclassify looks up every report's classification again (after
// classes.go changed).
func (res *Results) Reclassify() {
	for _, mr := range res.Modules {
		for _, r := range mr.Reports {
			r.Class = Classify(r.Package, r.Test, r.Kind)
		}
	}
}

// ModuleResult is what the harness saw on one module.
type ModuleResult struct {
	Module  Module
	Err     string // the module could not be fetched or copied
	Native  NativeResult
	Heddle  HeddleResult
	Reports []*Report
}

// NativeResult is `go test -count=1 -json ./...` on a module.
type NativeResult struct {
	OK       bool
	Failed   []string // pkg.Test of the failed tests, or packages that failed to build
	Wall     float64  // seconds of the whole command
	TestTime float64  // seconds: the packages' own times (go test's pkg elapsed), summed
	Err      string   // the command did not finish or printed nothing
}

// HeddleResult is `heddle test -json ./...` on a module.
type HeddleResult struct {
	Exit        int
	Wall        float64  // seconds of the whole command
	BuildFailed []string // packages that did not build
	Tests       int      // tests explored (a summary was printed)
	OK          int      // tests that passed
	Skipped     int
	Reported    int     // tests with at least one report
	Runs        int     // runs made, all tests
	Elapsed     float64 // seconds of exploration, all tests
	PerRun      float64 // Σ over tests of elapsed/runs: one run of every test, in seconds
	// Timing are the timing verdicts: tests that fail only when a timer
	// fires early, reported apart from bugs (not failing the run).
	Timing []TimingVerdict `json:",omitempty"`
	Err    string          // heddle did not finish, crashed or printed an internal error
	// Unexplorable are the tests heddle could not explore because they are
	// nondeterministic by themselves (the "nondeterministic" action): not
	// reports, since they say nothing about the code.
	Unexplorable []Unexplorable
}

// TimingVerdict is one timing event of heddle test.
type TimingVerdict struct {
	Package, Test, Message string
	Schedule               string
	Text                   string // the verdict's report as heddle printed it
	Replayed               bool   // its printed replay command reproduced the failure
	ReplayOut              string // why not, when it did not
}

// Unexplorable is a test heddle could not explore: it is nondeterministic
// by itself.
type Unexplorable struct {
	Package, Test string
	Why           string // what differed
}

// Report is one bug event of heddle test and its replay.
type Report struct {
	Package, Test, Kind, Message string
	Schedule, Replay             string
	First                        string // the report's first line after the heading
	Text                         string // the report as heddle printed it
	Replayed                     bool   // the printed replay command said "reproduced" and exited 1
	ReplayOut                    string // why not, when it did not
	Class                        Class
}

// Run measures every module of the corpus.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	if cfg.Modules == nil {
		cfg.Modules = Modules
	}
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	if cfg.MaxRSS <= 0 {
		cfg.MaxRSS = MaxRSS
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	start := time.Now()
	res := &Results{Config: cfg}
	var mods []Module
	for _, m := range cfg.Modules {
		if cfg.Run == nil || cfg.Run.MatchString(m.Path) {
			mods = append(mods, m)
		}
	}
	res.Modules = make([]*ModuleResult, len(mods))
	var wg sync.WaitGroup
	sem := make(chan struct{}, cfg.Jobs)
	var logMu sync.Mutex
	for i, m := range mods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				res.Modules[i] = &ModuleResult{Module: m, Err: "interrupted"}
				return
			}
			mr := RunModule(ctx, cfg, m)
			res.Modules[i] = mr
			logMu.Lock()
			fmt.Fprintln(cfg.Log, mr.Line())
			logMu.Unlock()
		}()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	return res, ctx.Err()
}

// Line is a one-line progress summary of a module.
func (mr *ModuleResult) Line() string {
	if mr.Err != "" {
		return fmt.Sprintf("realworld: %s: %s", mr.Module.Path, mr.Err)
	}
	replayed := 0
	for _, r := range mr.Reports {
		if r.Replayed {
			replayed++
		}
	}
	return fmt.Sprintf("realworld: %s: native ok=%v (%.0fs); heddle exit %d, %d tests, %d ok, %d reported, %d/%d replayed (%.0fs)%s",
		mr.Module.Path, mr.Native.OK, mr.Native.Wall, mr.Heddle.Exit, mr.Heddle.Tests, mr.Heddle.OK, mr.Heddle.Reported, replayed, len(mr.Reports), mr.Heddle.Wall, errSuffix(mr.Heddle.Err))
}

func errSuffix(s string) string {
	if s == "" {
		return ""
	}
	return "; " + firstLine(s)
}

// RunModule fetches one module and measures it.
func RunModule(ctx context.Context, cfg Config, m Module) *ModuleResult {
	mr := &ModuleResult{Module: m}
	dir, err := Fetch(ctx, cfg.Work, m)
	if err != nil {
		mr.Err = err.Error()
		return mr
	}
	mr.Native = runNative(ctx, dir, m.Skip, cfg.NativeTimeout, cfg.MaxRSS)
	var bugs []event.Event
	mr.Heddle, bugs = runHeddleTest(ctx, cfg, dir, m.Skip, filepath.Join(dir, ".heddle-schedules"))
	for _, e := range bugs {
		r := &Report{Package: e.Package, Test: e.Test, Kind: e.Kind, Message: e.Message, Schedule: e.Schedule, Replay: e.Replay, First: reportFirst(e.Report), Text: e.Report}
		r.Class = Classify(r.Package, r.Test, r.Kind)
		if r.Schedule == "" {
			r.ReplayOut = "no schedule was written"
		} else {
			r.Replayed, r.ReplayOut = replay(ctx, cfg, dir, r.Schedule)
		}
		mr.Reports = append(mr.Reports, r)
	}
	for i := range mr.Heddle.Timing {
		v := &mr.Heddle.Timing[i]
		if v.Schedule == "" {
			v.ReplayOut = "no schedule was written"
			continue
		}
		v.Replayed, v.ReplayOut = replay(ctx, cfg, dir, v.Schedule)
	}
	return mr
}

// goEnv is the environment of the go and heddle commands the harness runs
// in a module copy.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GOWORK=") || strings.HasPrefix(kv, "GOFLAGS=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOWORK=off", "GOFLAGS=-mod=mod")
}

// Fetch downloads m through the module proxy (go mod download) and copies
// it, writable, into work; it returns the copy's directory.
func Fetch(ctx context.Context, work string, m Module) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", m.Path+"@"+m.Version)
	cmd.Dir = work
	cmd.Env = goEnv()
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", m.Path, m.Version, err, info.Error)
	}
	dst := filepath.Join(work, strings.NewReplacer("/", "_", "@", "_").Replace(m.Path+"@"+m.Version))
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if err := copyTree(info.Dir, dst); err != nil {
		return "", fmt.Errorf("copying %s: %v", m.Path, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); os.IsNotExist(err) {
		// A module from before modules (+incompatible).
		if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module "+m.Path+"\n\ngo 1.21\n"), 0o644); err != nil {
			return "", err
		}
	}
	dl := exec.CommandContext(ctx, "go", "mod", "download")
	dl.Dir = dst
	dl.Env = goEnv()
	if b, err := dl.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod download in %s: %v\n%s", m.Path, err, b)
	}
	return dst, nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}

// result is what command saw of a command.
type result struct {
	stdout, stderr []byte
	exit           int
	timedOut       bool
	wall           float64 // seconds
	cpu            float64 // seconds of processor time, user and system (of the process, not of its children)
	killed         string  // why the harness killed it for its memory, if it did
}

// command runs name args in dir with a time limit and a memory bound
// (MaxRSS), killing its whole process tree (heddle starts test binaries)
// when either is exceeded.
func command(ctx context.Context, timeout time.Duration, maxRSS int64, dir, name string, args ...string) result {
	return commandEnv(ctx, timeout, maxRSS, dir, nil, name, args...)
}

// commandEnv is command with more environment variables.
func commandEnv(ctx context.Context, timeout time.Duration, maxRSS int64, dir string, env []string, name string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { killTree(cmd.Process.Pid); return nil }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	r := result{exit: -1}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.stderr = []byte(err.Error())
		return r
	}
	stop := make(chan struct{})
	killed := make(chan string, 1)
	go watchMemory(cmd.Process.Pid, maxRSS, stop, killed)
	cmd.Wait() // the exit status is read from ProcessState below
	close(stop)
	select {
	case r.killed = <-killed:
	default:
	}
	r.wall = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		r.exit = cmd.ProcessState.ExitCode()
		r.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	r.stdout, r.stderr, r.timedOut = o.Bytes(), e.Bytes(), ctx.Err() != nil
	return r
}

// MaxRSS is the default bound on the resident memory of a command and its
// descendants: the machine is shared, and a test binary was seen to grow
// by gigabytes a minute (issue 13, point 6). Above it they are killed.
const MaxRSS = 4 << 30

// watchMemory kills process pid and its descendants when their resident
// memory exceeds maxRSS, and says so on killed; it returns when stop is
// closed.
func watchMemory(pid int, maxRSS int64, stop chan struct{}, killed chan<- string) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if rss, cmd := groupRSS(pid); rss > maxRSS {
			// Say so before killing: once the command is dead, Wait
			// returns and the caller reads killed at once.
			killed <- fmt.Sprintf("killed by the harness: %s used %d MB of memory (bound %d MB)", cmd, rss>>20, maxRSS>>20)
			killTree(pid)
			return
		}
	}
}

// killTree kills pid, its descendants and its process group.
func killTree(pid int) {
	for id := range tree(pid) {
		syscall.Kill(id, syscall.SIGKILL)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
}

// groupRSS sums the resident memory of process pid and its descendants
// (a test binary may run in a process group of its own) and names the
// largest.
func groupRSS(pid int) (int64, string) {
	var total, most int64
	name := ""
	for _, p := range tree(pid) {
		total += p.rss
		if p.rss > most {
			most, name = p.rss, p.name
		}
	}
	return total, name
}

type proc struct {
	ppid int
	rss  int64 // bytes
	name string
}

// tree returns process pid and its descendants, from /proc.
func tree(pid int) map[int]proc {
	procs := map[int]proc{}
	ents, _ := os.ReadDir("/proc")
	page := int64(os.Getpagesize())
	for _, d := range ents {
		var id int
		if _, err := fmt.Sscan(d.Name(), &id); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: fields after the last ')'.
		i, j := bytes.LastIndexByte(b, ')'), bytes.IndexByte(b, '(')
		if i < 0 || j < 0 || j > i {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 22 {
			continue
		}
		p := proc{name: string(b[j+1 : i])}
		fmt.Sscan(f[1], &p.ppid)
		fmt.Sscan(f[21], &p.rss)
		p.rss *= page
		procs[id] = p
	}
	out := map[int]proc{}
	if p, ok := procs[pid]; ok {
		out[pid] = p
	}
	for changed := true; changed; {
		changed = false
		for id, p := range procs {
			if _, in := out[id]; !in {
				if _, parentIn := out[p.ppid]; parentIn {
					out[id], changed = p, true
				}
			}
		}
	}
	return out
}

// testEvent is a line of go test -json.
type testEvent struct {
	Action, Package, Test, Output string
	Elapsed                       float64
}

// nativeArgs are the arguments of go test on a module whose tests
// matching skip (Module.Skip; "": none) are not run.
func nativeArgs(skip string) []string {
	args := []string{"test", "-count=1", "-json"}
	if skip != "" {
		args = append(args, "-skip", skip)
	}
	return append(args, "./...")
}

func runNative(ctx context.Context, dir, skip string, timeout time.Duration, maxRSS int64) NativeResult {
	c := command(ctx, timeout, maxRSS, dir, "go", nativeArgs(skip)...)
	out, errOut, exit := c.stdout, c.stderr, c.exit
	r := NativeResult{Wall: c.wall}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	sawPkg := false
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
			sawPkg = true
			r.TestTime += e.Elapsed
			if e.Action == "fail" && !hasPrefixIn(r.Failed, e.Package+".") {
				r.Failed = append(r.Failed, e.Package)
			}
		case e.Test != "" && !strings.Contains(e.Test, "/") && e.Action == "fail":
			r.Failed = append(r.Failed, e.Package+"."+e.Test)
		}
	}
	switch {
	case c.killed != "":
		r.Err = "go test " + c.killed
	case c.timedOut:
		r.Err = fmt.Sprintf("go test did not finish within %v", timeout)
	case !sawPkg:
		r.Err = fmt.Sprintf("go test printed no result (exit %d): %s", exit, tailLines(string(errOut), 5))
	}
	r.OK = exit == 0 && r.Err == ""
	return r
}

func hasPrefixIn(ss []string, p string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// internalError matches heddle's own failures in its output: a panic of
// heddle, an internal error.
var internalError = regexp.MustCompile(`(?i)heddle: internal error|panic: .*heddle\.dev/internal|fatal error: `)

// heddleArgs are the arguments of heddle test on a module whose tests
// matching skip (Module.Skip; "": none) are not run.
func heddleArgs(cfg Config, skip, schedules string) []string {
	args := []string{"test", "-json", "-budget", cfg.Budget, "-o", schedules}
	if skip != "" {
		args = append(args, "-skip", skip)
	}
	args = append(args, cfg.Flags...)
	return append(args, "./...")
}

func runHeddleTest(ctx context.Context, cfg Config, dir, skip, schedules string) (HeddleResult, []event.Event) {
	c := command(ctx, cfg.Timeout, cfg.MaxRSS, dir, cfg.Heddle, heddleArgs(cfg, skip, schedules)...)
	out, errOut, exit := c.stdout, c.stderr, c.exit
	// Kept with the module copy (cmd/realworld -keep), for reading the
	// reports when classifying them.
	os.WriteFile(filepath.Join(dir, ".heddle-test.json"), append(out, errOut...), 0o644)
	r := HeddleResult{Exit: exit, Wall: c.wall}
	var bugs []event.Event
	reported := map[string]bool{}
	summaries := 0
	var text []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			text = append(text, sc.Text())
			continue
		}
		switch e.Action {
		case event.Bug:
			bugs = append(bugs, e)
			reported[e.Package+"."+e.Test] = true
		case event.Timing:
			r.Timing = append(r.Timing, TimingVerdict{Package: e.Package, Test: e.Test, Message: e.Message, Schedule: e.Schedule, Text: e.Report})
		case event.Nondeterministic:
			r.Unexplorable = append(r.Unexplorable, Unexplorable{Package: e.Package, Test: e.Test, Why: e.Message})
		case event.Summary:
			summaries++
			r.Runs += e.Runs
			r.Elapsed += e.Elapsed
			if e.Runs > 0 {
				r.PerRun += e.Elapsed / float64(e.Runs)
			}
		case event.Pass:
			if e.Test != "" {
				r.OK++
			}
		case event.Skip:
			if e.Test != "" {
				r.Skipped++
			}
		case event.Fail:
			if e.Test == "" && e.Output == "build failed" {
				r.BuildFailed = append(r.BuildFailed, e.Package)
			}
		case event.Output:
			text = append(text, strings.TrimRight(e.Output, "\n"))
		}
		if e.Test != "" && (e.Action == event.Pass || e.Action == event.Fail || e.Action == event.Skip) {
			r.Tests++
		}
	}
	r.Reported = len(reported)
	all := strings.Join(text, "\n") + "\n" + string(errOut)
	switch {
	case c.killed != "":
		r.Err = "heddle test " + c.killed
	case c.timedOut:
		r.Err = fmt.Sprintf("heddle test did not finish within %v", cfg.Timeout)
	case exit != 0 && exit != 1:
		r.Err = fmt.Sprintf("heddle test exited %d: %s", exit, tailLines(all, 8))
	case internalError.MatchString(all):
		r.Err = "internal error: " + internalError.FindString(all)
	case summaries == 0 && r.Tests == 0:
		r.Err = fmt.Sprintf("heddle test explored no test (exit %d): %s", exit, tailLines(all, 8))
	}
	return r, bugs
}

// replay runs heddle replay on a schedule, as the report prints it, and
// says whether it reproduced the bug: exit status 1 and "heddle:
// reproduced" on its standard output.
func replay(ctx context.Context, cfg Config, dir, sched string) (bool, string) {
	c := command(ctx, cfg.ReplayTimeout, cfg.MaxRSS, dir, cfg.Heddle, "replay", sched)
	out, errOut, exit := c.stdout, c.stderr, c.exit
	switch {
	case c.killed != "":
		return false, c.killed
	case c.timedOut:
		return false, fmt.Sprintf("did not finish within %v", cfg.ReplayTimeout)
	}
	if exit == 1 && bytes.Contains(out, []byte("heddle: reproduced")) {
		return true, ""
	}
	return false, fmt.Sprintf("exit %d: %s", exit, tailLines(string(out)+"\n"+string(errOut), 2))
}

// reportFirst is the first line of a report that says what happened.
func reportFirst(report string) string {
	for _, l := range strings.Split(report, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "heddle: ") && strings.Contains(l, " in ") && strings.Contains(l, "(run ") {
			continue
		}
		return l
	}
	return ""
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func tailLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " / ")
}

// sortedReports are the reports of every module, by module, package, test.
func (res *Results) sortedReports() []modReport {
	var all []modReport
	for _, mr := range res.Modules {
		for _, r := range mr.Reports {
			all = append(all, modReport{mr.Module.Path, r})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.module != b.module {
			return a.module < b.module
		}
		return a.r.Package+a.r.Test < b.r.Package+b.r.Test
	})
	return all
}

type modReport struct {
	module string
	r      *Report
}
