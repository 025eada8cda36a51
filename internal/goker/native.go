package goker

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nativeTest is the test file of the native baseline. It runs the kernel
// (single form) once per run, in a loop, and after each run waits for the
// kernel's goroutines to finish the way goleak does: it looks at every
// goroutine's stack (runtime.Stack with all=true) and retries with an
// exponential backoff (1µs doubling, at most 100ms a sleep) until none runs a
// kernel function or the grace period is over. Goroutines still there after
// the grace period are printed and the test stops: the harness decides
// whether they are the kernel's expected leak. Go's own deadlock detector
// stays armed (-test.timeout=0 leaves no timer pending): if every goroutine
// blocks, the runtime kills the process with "all goroutines are asleep",
// which the harness reads from the crash dump. GOKER-RUN lines on standard
// error say which run was under way.
const nativeTest = `package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kernelFuncs are the functions the kernel file declares.
var kernelFuncs = map[string]bool{%s}

func envInt(name string) int64 {
	n, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil {
		panic(name + ": " + err.Error())
	}
	return n
}

// left returns the stacks of the goroutines (other than this one) that run
// a kernel function.
func left() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // this goroutine
		}
		for _, l := range strings.Split(g, "\n") {
			// A package main under test is compiled with its import path.
			if !strings.HasPrefix(l, "%s.") {
				continue
			}
			fn := strings.TrimPrefix(l, "%s.")
			if j := strings.LastIndex(fn, "("); j > 0 {
				fn = fn[:j]
			}
			if j := strings.Index(fn, ".func"); j > 0 {
				fn = fn[:j]
			}
			if j := strings.Index(fn, ".gowrap"); j > 0 {
				fn = fn[:j]
			}
			if kernelFuncs[fn] {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func TestNative(t *testing.T) {
	from, to := envInt("GOKER_FROM"), envInt("GOKER_TO")
	deadline := time.Unix(0, envInt("GOKER_DEADLINE"))
	grace := time.Duration(envInt("GOKER_GRACE"))
	for run := from; run <= to; run++ {
		if time.Now().After(deadline) {
			fmt.Printf("GOKER-STOP %%d\n", run-1)
			return
		}
		fmt.Fprintf(os.Stderr, "GOKER-RUN %%d\n", run)
		%s()
		end := time.Now().Add(grace)
		d := time.Microsecond
		for {
			gs := left()
			if len(gs) == 0 {
				break
			}
			if time.Now().After(end) {
				fmt.Printf("GOKER-LEFT %%d\n%%s\nGOKER-END\n", run, strings.Join(gs, "\n\n"))
				return
			}
			time.Sleep(d)
			if d < 100*time.Millisecond {
				d *= 2
			}
		}
	}
	fmt.Printf("GOKER-STOP %%d\n", to)
}
`

// NativeTestFile returns the native baseline's test file for k.
func (k *Kernel) NativeTestFile() string {
	var names []string
	for f := range k.Funcs {
		names = append(names, strconv.Quote(f)+": true")
	}
	sort.Strings(names)
	return fmt.Sprintf(nativeTest, strings.Join(names, ", "), ModuleName, ModuleName, k.Name)
}

// NativeResult is the native baseline of one kernel.
type NativeResult struct {
	Found   bool    // a run left the kernel's expected leak, or Go reported a deadlock
	How     string  // "leak check" or "deadlock detector"
	Run     int     // the run that showed it
	Runs    int     // runs made
	Wall    float64 // seconds, build excluded
	Build   float64 // seconds of go test -c
	Verdict Verdict // the check of the leftover goroutines of the detecting run
	Notes   []string
	Err     string
}

// NativeConfig bounds the native baseline.
type NativeConfig struct {
	Runs  int           // at most this many runs
	Time  time.Duration // and at most this much time
	Grace time.Duration // the leak check's grace period after each run
	Batch int           // runs per subprocess
}

var (
	leftRE  = regexp.MustCompile(`(?s)GOKER-LEFT (\d+)\n(.*?)\nGOKER-END`)
	stopRE  = regexp.MustCompile(`GOKER-STOP (\d+)`)
	runRE   = regexp.MustCompile(`GOKER-RUN (\d+)`)
	asleep  = "all goroutines are asleep"
	fatalRE = regexp.MustCompile(`(?m)^(fatal error|panic): .*$`)
)

// RunNative builds dir (a module written with NativeTestFile) with plain
// go test -c and runs it in subprocesses of at most cfg.Batch runs until the
// bug shows, cfg.Runs runs were made, or cfg.Time is spent. A subprocess that
// ends with leftovers that are not the expected leak, or that crashes for
// another reason, is noted and the next one starts at the following run.
func (k *Kernel) RunNative(ctx context.Context, dir string, cfg NativeConfig) *NativeResult {
	r := &NativeResult{}
	bin := filepath.Join(dir, "kernel.test")
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		r.Err = fmt.Sprintf("go test -c: %v: %s", err, tail(strings.Split(string(out), "\n"), 10))
		return r
	}
	r.Build = time.Since(start).Seconds()
	start = time.Now()
	deadline := start.Add(cfg.Time)
	next := 1
	for next <= cfg.Runs && time.Now().Before(deadline) && ctx.Err() == nil {
		to := min(next+cfg.Batch-1, cfg.Runs)
		cctx, cancel := context.WithTimeout(ctx, time.Until(deadline)+cfg.Grace+30*time.Second)
		cmd := exec.CommandContext(cctx, bin, "-test.run=^TestNative$", "-test.timeout=0")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GOKER_FROM="+strconv.Itoa(next), "GOKER_TO="+strconv.Itoa(to),
			"GOKER_DEADLINE="+strconv.FormatInt(deadline.UnixNano(), 10),
			"GOKER_GRACE="+strconv.FormatInt(int64(cfg.Grace), 10))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = 5 * time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		out := stdout.String()
		lastRun := 0
		sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if m := runRE.FindStringSubmatch(sc.Text()); m != nil {
				lastRun, _ = strconv.Atoi(m[1])
			}
		}
		if m := leftRE.FindStringSubmatch(out); m != nil {
			run, _ := strconv.Atoi(m[1])
			r.Runs = run
			v := k.Check(k.ParseStacks(m[2]))
			if v.OK {
				r.Found, r.How, r.Run, r.Verdict = true, "leak check", run, v
				break
			}
			r.Notes = append(r.Notes, fmt.Sprintf("run %d left goroutines that are not the expected leak: %s", run, v.Why))
			next = run + 1
			continue
		}
		if m := stopRE.FindStringSubmatch(out); m != nil && err == nil {
			r.Runs, _ = strconv.Atoi(m[1])
			next = r.Runs + 1
			if next <= to {
				break // the deadline passed
			}
			continue
		}
		// The process died.
		errText := stderr.String()
		r.Runs = lastRun
		if strings.Contains(errText, asleep) {
			v := k.Check(k.ParseStacks(errText))
			if v.OK {
				r.Found, r.How, r.Run, r.Verdict = true, "deadlock detector", lastRun, v
				break
			}
			r.Notes = append(r.Notes, fmt.Sprintf("run %d: Go reported a deadlock that is not the expected leak: %s", lastRun, v.Why))
		} else {
			what := fatalRE.FindString(errText)
			if what == "" {
				what = fmt.Sprint(err)
			}
			r.Notes = append(r.Notes, fmt.Sprintf("run %d: the process died: %s", lastRun, what))
		}
		if lastRun == 0 {
			r.Err = "the native test binary fails before its first run: " + tail(strings.Split(errText, "\n"), 10)
			break
		}
		next = lastRun + 1
	}
	r.Wall = time.Since(start).Seconds()
	return r
}
