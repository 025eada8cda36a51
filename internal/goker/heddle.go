package goker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"heddle.dev/internal/event"
)

// DefaultStrategy names heddle's default (no -strategy flag) in results.
const DefaultStrategy = "default"

// HeddleResult is one `heddle test -json` on one kernel in one form.
type HeddleResult struct {
	Strategy  string
	Found     bool    // a bug event was printed
	Kind      string  // its kind
	Run       int     // the run of the first bug
	Runs      int     // runs made
	Elapsed   float64 // seconds of exploration (the summary's Elapsed)
	Exhausted bool    // the strategy covered its whole space (the summary's Exhausted)
	Proven    string  // what the exhaustion proves, if anything (the summary's Proven)
	Races     string  // what Proven assumes about data races (the summary's Races; "" from a heddle that did not say: assumed)
	Wall      float64 // seconds of the whole command, build included
	Verdict   Verdict // the check of the bug against the expected leaks
	Report    string  // the bug's report
	Err       string  // heddle failed (build error, timeout, no events)

	// StepLimit is set when heddle's first report, with default flags, was
	// "step bound exceeded": the result is then that of a second command
	// with -disable steplimit, and StepLimit is the first one.
	StepLimit *HeddleResult
	Flags     []string // flags added to the harness's usual ones
}

// OK reports whether heddle found the kernel's bug and the bug meets the
// criterion.
func (r *HeddleResult) OK() bool { return r.Found && r.Err == "" && r.Verdict.OK }

// Ways the harness runs heddle on a kernel (Config.Via).
const (
	// ViaTest runs `heddle test` on the generated test file, which calls
	// the kernel's function.
	ViaTest = "test"
	// ViaRun runs `heddle run . -- Name`: the kernel's package as a
	// program, through main.go of GOROOT's kernel directory, which calls
	// the function registered under the name given as its argument.
	ViaRun = "run"
)

// target is what a heddle command explores: `heddle test -run ^Test$
// pkg` or `heddle run pkg -- args`.
type target struct {
	verb string   // test or run
	pre  []string // before heddle's flags: test's -run
	post []string // after them: the package and, for run, -- and the program's arguments
}

func testTarget(test, pkg string) target {
	return target{verb: "test", pre: []string{"-run", test}, post: []string{pkg}}
}

// target of the kernel in the module written by WriteModule.
func (k *Kernel) target(via string) target {
	if via == ViaRun {
		return target{verb: "run", post: []string{".", "--", k.Name}}
	}
	return testTarget("^TestKernel$", ".")
}

// RunHeddle runs `heddle test -json -budget budget [-strategy s] -run
// ^TestKernel$` in dir, a module written by WriteModule.
func (k *Kernel) RunHeddle(ctx context.Context, heddle, dir, strategy string, budget int, timeout time.Duration, flags ...string) *HeddleResult {
	return k.RunHeddleVia(ctx, ViaTest, heddle, dir, strategy, budget, timeout, flags...)
}

// RunHeddleVia is RunHeddle with `heddle run` instead of `heddle test` when
// via is ViaRun.
func (k *Kernel) RunHeddleVia(ctx context.Context, via, heddle, dir, strategy string, budget int, timeout time.Duration, flags ...string) *HeddleResult {
	r := runHeddle(ctx, heddle, dir, filepath.Join(dir, "schedules"), k.target(via), strategy, budget, timeout, flags...)
	if r.Found {
		if r.Kind != "leak" && r.Kind != "deadlock" {
			r.Verdict = Verdict{Why: "bug of kind " + r.Kind + ", not a leak or deadlock: " + firstLine(r.Report, 2)}
		} else {
			r.Verdict = k.Check(k.ParseReport(r.Report))
		}
	}
	return r
}

// runHeddle runs `heddle VERB -json -budget budget [-strategy s] -o
// schedules flags...` on t in dir and reads its first bug and its summary.
func runHeddle(ctx context.Context, heddle, dir, schedules string, t target, strategy string, budget int, timeout time.Duration, flags ...string) *HeddleResult {
	r := &HeddleResult{Strategy: strategy, Flags: flags}
	args := append([]string{t.verb, "-json", "-budget", fmt.Sprint(budget)}, t.pre...)
	args = append(args, "-o", schedules)
	if strategy != DefaultStrategy {
		args = append(args, "-strategy", strategy)
	}
	args = append(args, flags...)
	args = append(args, t.post...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, heddle, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	// heddle starts the test binary: kill the whole process group on timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start).Seconds()
	var output []string
	sawSummary := false
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 16<<20), 16<<20)
	for sc.Scan() {
		var e event.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			output = append(output, sc.Text())
			continue
		}
		switch e.Action {
		case event.Bug:
			if !r.Found {
				r.Found, r.Kind, r.Run, r.Report = true, e.Kind, e.Run, e.Report
			}
		case event.Summary:
			sawSummary = true
			r.Runs, r.Elapsed, r.Exhausted, r.Proven, r.Races = e.Runs, e.Elapsed, e.Exhausted, e.Proven, e.Races
		case event.Output:
			output = append(output, strings.TrimRight(e.Output, "\n"))
		}
	}
	switch {
	case ctx.Err() != nil:
		r.Err = fmt.Sprintf("heddle did not finish within %v", timeout)
	case !sawSummary:
		r.Err = fmt.Sprintf("heddle printed no summary (%v): %s", err, tail(append(output, strings.Split(stderr.String(), "\n")...), 15))
	}
	return r
}

func tail(lines []string, n int) string {
	var keep []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}

func firstLine(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.TrimSpace(strings.Join(lines, " / "))
}
