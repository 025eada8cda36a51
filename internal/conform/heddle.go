package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"heddle.dev/internal/event"
)

// HeddleConfig is how heddle explores the corpus.
type HeddleConfig struct {
	Binary   string        // the heddle binary
	Strategy string        // an exhaustive strategy (odpor)
	Racy     bool          // heddle test -racy: racy accesses as scheduling points
	Budget   int           // runs per program
	Timeout  time.Duration // of the whole heddle command
	Flags    []string      // more flags
}

// HeddleRun is what heddle reached on one program.
type HeddleRun struct {
	Outcomes  map[string]bool // outcomes reached (Pass: a run returned without failing)
	Other     []string        // reports of other kinds (steplimit, nondeterminism, ...)
	Runs      int
	Exhausted bool
	// SpinBound: not Exhausted, but every schedule in which no goroutine
	// polls more than SpinBound times in a row while another can run was
	// explored (event.Event.SpinBound).
	SpinBound int
	Proven    string
	Elapsed   float64
	Err       string
	// NoClaim is why heddle made no claim that every schedule was
	// explored though its strategy ended (goroutines that waited outside
	// its control, runs cut short, ...), or "" (event.Event.NoClaim).
	NoClaim string
}

// goexitMsg is testing's panic when a test's goroutine calls runtime.Goexit
// (or panics with nil) without FailNow.
const goexitMsg = "test executed panic(nil) or runtime.Goexit"

var blockedAtRE = regexp.MustCompile(`blocked forever: .* at (\S+\.go:\d+) in `)

// HeddleOutcome converts a bug event into an outcome ("" for kinds that
// are not outcomes of a native run).
func HeddleOutcome(e event.Event) string {
	switch e.Kind {
	case "fail":
		if strings.HasPrefix(e.Message, goexitMsg) {
			// Natively testing panics with it (the process ends).
			return "panic: " + goexitMsg
		}
		// The first line of the run's first failing message, with the
		// subtest's name after its position (f.go:12: sub: msg): what
		// the native side reads (outputLine); a message's second line
		// is indented natively and belongs to no position.
		msg, _, _ := strings.Cut(e.Message, "\n")
		return "fail: " + msg
	case "panic", "misuse":
		// A goroutine that died of several panics is reported as Go
		// prints it, one line for each, the earliest first; the native
		// outcome is the first line.
		msg, _, _ := strings.Cut(e.Message, "\n")
		if e.Kind == "misuse" {
			// The runtime's words ("fatal error: sync: unlock of
			// unlocked mutex" prints as such, and the harness reads a
			// native fatal error as a panic), without heddle's account
			// of the misuse in parentheses.
			msg = strings.TrimPrefix(msg, "fatal error: ")
			if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
				msg = msg[:i]
			}
		}
		if e.Test != "" {
			msg = strings.ReplaceAll(msg, e.Test, "TEST")
		}
		if strings.HasPrefix(msg, "concurrent map ") {
			// "concurrent map writes: g0.2 was writing the map": the
			// runtime's words, then which goroutine wrote.
			msg, _, _ = strings.Cut(msg, ": ")
		}
		return "panic: " + msg
	case "timing":
		// A failure heddle reached but set apart as timing-dependent
		// (the test's own timer fired early): still an outcome reached.
		_, failure, ok := strings.Cut(e.Message, "the failure: ")
		if !ok {
			return ""
		}
		kind, msg, _ := strings.Cut(failure, ": ")
		e.Kind, e.Message = kind, msg
		return HeddleOutcome(e)
	case "deadlock":
		return Deadlock
	case "leak":
		var ps []string
		for _, m := range blockedAtRE.FindAllStringSubmatch(e.Report, -1) {
			ps = append(ps, m[1])
		}
		sort.Strings(ps)
		return "leak: " + strings.Join(ps, ",")
	}
	return ""
}

// RunHeddle runs `heddle test -json -keep-going [-racy] -strategy S -budget
// N -run ^(programs)$ .` in dir, a module written by WriteHeddleModule, and returns
// what it reached on each program.
func RunHeddle(ctx context.Context, dir string, ps []*Program, cfg HeddleConfig) (map[string]*HeddleRun, error) {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	marks := filepath.Join(dir, "marks")
	os.Remove(marks)
	args := []string{"test", "-json", "-keep-going", "-strategy", cfg.Strategy, "-budget", fmt.Sprint(cfg.Budget),
		"-timeout", "0", "-o", filepath.Join(dir, "schedules"), "-run", "^(" + strings.Join(names, "|") + ")$"}
	if cfg.Racy {
		args = append(args, "-racy")
	}
	args = append(args, cfg.Flags...)
	args = append(args, ".")
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "CONFORM_MARKS="+marks)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := map[string]*HeddleRun{}
	for _, n := range names {
		res[n] = &HeddleRun{Outcomes: map[string]bool{}}
	}
	var output []string
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 16<<20), 64<<20)
	summaries := 0
	for sc.Scan() {
		var e event.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			output = append(output, sc.Text())
			continue
		}
		if e.Action == event.Output {
			output = append(output, strings.TrimRight(e.Output, "\n"))
		}
		r := res[e.Test]
		if r == nil {
			continue
		}
		switch e.Action {
		case event.Bug, event.Timing:
			if o := HeddleOutcome(e); o != "" {
				r.Outcomes[o] = true
			} else {
				r.Other = append(r.Other, e.Kind+": "+e.Message)
			}
		case event.Summary:
			summaries++
			r.Runs, r.Exhausted, r.SpinBound, r.Proven, r.Elapsed, r.NoClaim = e.Runs, e.Exhausted, e.SpinBound, e.Proven, e.Elapsed, e.NoClaim
		}
	}
	if b, rerr := os.ReadFile(marks); rerr == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if r := res[l]; r != nil {
				r.Outcomes[Pass] = true
			}
		}
	}
	if ctx.Err() != nil || summaries < len(names) {
		why := fmt.Sprintf("heddle printed %d summaries for %d programs (%v): %s", summaries, len(names), err, tail(strings.Join(output, "\n")+"\n"+stderr.String(), 15))
		if ctx.Err() != nil {
			why = fmt.Sprintf("heddle did not finish within %v", cfg.Timeout)
		}
		for _, r := range res {
			if r.Runs == 0 {
				r.Err = why
			}
		}
		if summaries == 0 {
			return res, fmt.Errorf("%s", why)
		}
	}
	return res, nil
}
