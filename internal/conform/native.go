package conform

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outcomes of a run, as strings (the same for native runs and heddle's):
//
//	pass                 the test returned without failing, no goroutine left
//	fail: f.go:12: msg   the first t.Error/t.Fatal message, with its position
//	panic: msg           a panic or a fatal error of the runtime (the process crashed)
//	deadlock             Go's "all goroutines are asleep", or heddle's deadlock
//	hang                 (native) the run made no progress for NativeConfig.Hang
//	leak: f.go:3,f.go:9  the test returned without failing and left
//	                     goroutines blocked at these positions
const (
	Pass     = "pass"
	Deadlock = "deadlock"
	Hang     = "hang"
)

// Outcomes counts the runs that showed each outcome.
type Outcomes map[string]int

// Add counts n runs of outcome o.
func (os Outcomes) Add(o string, n int) { os[o] += n }

// Merge adds the counts of other.
func (os Outcomes) Merge(other Outcomes) {
	for o, n := range other {
		os[o] += n
	}
}

// NativeConfig bounds the native runs of one program in one setting.
type NativeConfig struct {
	Runs  int           // at most this many runs per setting
	Time  time.Duration // and at most this much time per setting
	Procs []int         // GOMAXPROCS values
	// Variants built: Plain, Noise.
	Variants []Variant
	Grace    time.Duration // the leak check's limit for goroutines still running
	Stable   time.Duration // how long leftovers must stay blocked in a program with timers
	Hang     time.Duration // a process silent this long is killed: the run under way hangs
}

// Setting is one native configuration.
type Setting struct {
	Variant Variant
	Procs   int
}

func (s Setting) String() string { return fmt.Sprintf("%s/%d", s.Variant, s.Procs) }

// Settings lists cfg's settings.
func (cfg NativeConfig) Settings() []Setting {
	var ss []Setting
	for _, v := range cfg.Variants {
		for _, p := range cfg.Procs {
			ss = append(ss, Setting{v, p})
		}
	}
	return ss
}

// NativeRun is what the native runs of one program in one setting showed.
type NativeRun struct {
	Setting  Setting
	Runs     int
	Outcomes Outcomes
	Wall     time.Duration
	Err      string
}

// BuildNative builds the native test binary of the module in dir.
func BuildNative(ctx context.Context, dir, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c in %s: %v\n%s", dir, err, out)
	}
	return nil
}

var (
	runLineRE = regexp.MustCompile(`^CONFORM-RUN (\d+)$`)
	endLineRE = regexp.MustCompile(`^CONFORM-END (\d+) ?(.*)$`)
	stopRE    = regexp.MustCompile(`^CONFORM-STOP (\d+)$`)
	msgRE     = regexp.MustCompile(`^\s+(\S+\.go:\d+: .*)$`)
	crashRE   = regexp.MustCompile(`(?m)^(panic|fatal error): (.*)$`)
	recRE     = regexp.MustCompile(` \[recovered.*\]$`)
	subtestRE = regexp.MustCompile(`TestConformNative/r(#\d+)?`)
	// The test whose output follows (package testing's chatty printer
	// names it when it changes), and a run that failed (the driver's
	// t.Run returned false).
	testNameRE = regexp.MustCompile(`^=== (?:RUN|PAUSE|CONT|NAME)\s+(\S+)$`)
	failedRE   = regexp.MustCompile(`^CONFORM-FAILED (\d+)$`)
	runTestRE  = regexp.MustCompile(`^TestConformNative/r(?:#\d+)?(/.*)?$`)
	posRE      = regexp.MustCompile(`^\S+\.go:\d+: `)
)

// outputLine is what a line of a run's output, printed by test (its full
// name), says as a message: the line as heddle writes it, with the
// subtest's name after its position (f.go:12: sub: msg), and whether a
// call that does not fail printed it (a Log or Skip, marked LogMark).
func outputLine(test, msg string) (line string, log bool) {
	pos := posRE.FindString(msg)
	rest := msg[len(pos):]
	if strings.HasPrefix(rest, LogMark) {
		return msg, true
	}
	if m := runTestRE.FindStringSubmatch(test); m != nil && m[1] != "" {
		return pos + m[1][1:] + ": " + rest, false
	}
	return msg, false
}

// RunNative runs program p with the binary bin (built from a module
// written by WriteNativeModule) in setting s, in processes that each make
// as many runs as they can: a crash (panic, fatal error, Go's deadlock
// detector) ends the run under way and the next process starts at the
// following run.
func RunNative(ctx context.Context, bin string, p *Program, s Setting, cfg NativeConfig) *NativeRun {
	r := &NativeRun{Setting: s, Outcomes: Outcomes{}}
	start := time.Now()
	deadline := start.Add(cfg.Time)
	stable := time.Duration(0)
	if p.Timers {
		stable = cfg.Stable
	}
	next := 1
	for next <= cfg.Runs && time.Now().Before(deadline) && ctx.Err() == nil {
		last, err := runProcess(ctx, bin, p, s, cfg, next, deadline, stable, r)
		if err != nil {
			r.Err = err.Error()
			break
		}
		if last < next && time.Now().Before(deadline) {
			r.Err = fmt.Sprintf("the test binary made no run from run %d", next)
			break
		}
		next = last + 1
	}
	r.Wall = time.Since(start)
	return r
}

// runProcess runs one process from run from, adds the outcomes of its
// runs to r, and returns the last run it made.
func runProcess(ctx context.Context, bin string, p *Program, s Setting, cfg NativeConfig, from int, deadline time.Time, stable time.Duration, r *NativeRun) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestConformNative$", "-test.v", "-test.timeout=0")
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(),
		"GOMAXPROCS="+strconv.Itoa(s.Procs),
		"CONFORM_PROG="+p.Name,
		"CONFORM_FROM="+strconv.Itoa(from), "CONFORM_TO="+strconv.Itoa(cfg.Runs),
		"CONFORM_DEADLINE="+strconv.FormatInt(deadline.UnixNano(), 10),
		"CONFORM_STABLE="+strconv.FormatInt(int64(stable), 10),
		"CONFORM_GRACE="+strconv.FormatInt(int64(cfg.Grace), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var mu sync.Mutex
	lastLine := time.Now()
	hung := false
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(cfg.Hang / 10)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				mu.Lock()
				idle := now.Sub(lastLine)
				mu.Unlock()
				if idle >= cfg.Hang {
					mu.Lock()
					hung = true
					mu.Unlock()
					cancel()
					return
				}
			}
		}
	}()
	rp := &runParser{r: r, last: from - 1}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		mu.Lock()
		lastLine = time.Now()
		mu.Unlock()
		if err := rp.line(sc.Text()); err != nil {
			close(stop)
			return rp.last, err
		}
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	close(stop)
	mu.Lock()
	h := hung
	mu.Unlock()
	cur, last := rp.cur, rp.last
	if rp.stopped {
		return last, nil // werr is set when a run failed
	}
	if cur == 0 {
		if ctx.Err() != nil && !h {
			return last, nil // interrupted
		}
		return last, fmt.Errorf("the test binary exited between runs (%v): %s", werr, tail(stderr.String(), 10))
	}
	// The run under way ended the process.
	o := ""
	switch {
	case h:
		o = Hang
	case strings.Contains(stderr.String(), "all goroutines are asleep"):
		o = Deadlock
	default:
		if m := crashRE.FindStringSubmatch(stderr.String()); m != nil {
			o = "panic: " + normPanic(m[2])
		} else {
			return last, fmt.Errorf("run %d ended the process (%v) without a panic: %s", cur, werr, tail(stderr.String(), 10))
		}
	}
	r.Outcomes.Add(o, 1)
	r.Runs++
	return cur, nil
}

// runParser reads the output of a native test process: the runs it
// frames, and their outcomes, added to r.
type runParser struct {
	r        *NativeRun
	cur      int    // the run under way, 0 between runs
	last     int    // the last run that ended
	stopped  bool   // the process said it made its last run
	firstMsg string // the run's first failing line (outputLine)
	test     string // the test whose output the lines are
	failed   bool   // the run's test failed
}

func (p *runParser) line(line string) error {
	if m := runLineRE.FindStringSubmatch(line); m != nil {
		p.cur, _ = strconv.Atoi(m[1])
		p.firstMsg, p.test, p.failed = "", "", false
		return nil
	}
	if m := testNameRE.FindStringSubmatch(line); m != nil {
		p.test = m[1]
		return nil
	}
	if m := failedRE.FindStringSubmatch(line); m != nil {
		if n, _ := strconv.Atoi(m[1]); n == p.cur {
			p.failed = true
		}
		return nil
	}
	if m := endLineRE.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n != p.cur {
			return fmt.Errorf("run %d ended while run %d was under way", n, p.cur)
		}
		p.r.Outcomes.Add(runOutcome(p.failed, p.firstMsg, m[2]), 1)
		p.r.Runs++
		p.last, p.cur = n, 0
		return nil
	}
	if stopRE.MatchString(line) {
		p.stopped = true
		return nil
	}
	if m := msgRE.FindStringSubmatch(line); m != nil && p.cur != 0 && p.firstMsg == "" {
		if l, log := outputLine(p.test, m[1]); !log {
			p.firstMsg = l
		}
	}
	return nil
}

// runOutcome is the outcome of a native run that ended: if it failed,
// its first failing line (the first line of its output that no Log or
// Skip printed), else its leak, else pass (a skipped run passes, as a
// run that logged).
func runOutcome(failed bool, firstMsg, leak string) string {
	switch {
	case failed:
		return "fail: " + firstMsg
	case leak != "":
		return "leak: " + leak
	}
	return Pass
}

// normPanic normalizes a native panic message: testing's " [recovered]"
// marks go, and the driver's subtest names become the program's.
func normPanic(msg string) string {
	msg = recRE.ReplaceAllString(strings.TrimSpace(msg), "")
	msg = strings.ReplaceAll(msg, LogMark+" ", "")
	return subtestRE.ReplaceAllString(msg, "TEST")
}

func tail(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}
