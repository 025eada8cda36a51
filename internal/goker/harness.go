package goker

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Config is one run of the harness.
type Config struct {
	GOROOT     string
	Heddle     string   // the heddle binary
	Budget     int      // runs per kernel and strategy
	Strategies []string // DefaultStrategy first, then -strategy names
	Forms      []Form
	Native     NativeConfig // Runs == 0: no native baseline
	Jobs       int          // kernels in parallel
	Run        *regexp.Regexp
	Timeout    time.Duration // per heddle command
	// ShippedTimeout is the time limit of a heddle command on the shipped
	// form (0: Timeout): one run of a thousand copies can take seconds.
	ShippedTimeout time.Duration
	// ShippedStrategies are the strategies run on the shipped form.
	ShippedStrategies []string
	// Prove are the exhaustive strategies run, with ProveBudget runs, on
	// the single form of each kernel whose bug the default strategy did not
	// find: an exhausted search without a bug shows that no schedule of the
	// kernel has it (as heddle models Go), which "not found" alone does not.
	Prove       []string
	ProveBudget int
	// Via is how heddle is run: ViaTest (the default, "") or ViaRun.
	Via  string
	Work string // where the temporary modules go (outside the repository)
	Log  io.Writer
}

// KernelResult is everything measured on one kernel.
type KernelResult struct {
	Kernel  *Kernel
	Copies  string            // copies per run as shipped
	Changes map[Form][]string // what Prepare changed
	Heddle  map[Form]map[string]*HeddleResult
	Same    bool // shipped == single (no copy loop): shipped results are the single ones
	Native  *NativeResult
	// Proof holds the Config.Prove searches, run when the default strategy
	// did not find the bug.
	Proof map[string]*HeddleResult
	Err   string
}

// Results of a whole harness run.
type Results struct {
	Config  Config
	Kernels []*KernelResult
	Start   time.Time
	Wall    time.Duration
}

// Run measures every kernel selected by cfg.Run.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	ks, err := Load(cfg.GOROOT)
	if err != nil {
		return nil, err
	}
	var sel []*Kernel
	for _, k := range ks {
		if cfg.Run == nil || cfg.Run.MatchString(k.Name) || cfg.Run.MatchString(k.Key) {
			sel = append(sel, k)
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("no kernel matches %v", cfg.Run)
	}
	res := &Results{Config: cfg, Start: time.Now(), Kernels: make([]*KernelResult, len(sel))}
	jobs := max(cfg.Jobs, 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	idx := make(chan int)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				kr := runKernel(ctx, cfg, sel[i])
				mu.Lock()
				res.Kernels[i] = kr
				if cfg.Log != nil {
					fmt.Fprintln(cfg.Log, kr.Line())
				}
				mu.Unlock()
			}
		}()
	}
	for i := range sel {
		idx <- i
	}
	close(idx)
	wg.Wait()
	res.Wall = time.Since(res.Start)
	return res, nil
}

func runKernel(ctx context.Context, cfg Config, k *Kernel) *KernelResult {
	kr := &KernelResult{Kernel: k, Changes: map[Form][]string{}, Heddle: map[Form]map[string]*HeddleResult{}}
	dir := filepath.Join(cfg.Work, k.Key)
	forms := cfg.Forms
	for _, f := range forms {
		c, err := k.Prepare(f)
		if err != nil {
			kr.Err = err.Error()
			return kr
		}
		kr.Copies = c.Copies
		kr.Changes[f] = c.Changes
		if f == Shipped && c.Copies == "1" && hasForm(forms, Single) {
			kr.Same = true
			continue
		}
		fdir := filepath.Join(dir, string(f))
		if err := k.WriteModule(fdir, c, heddleTestFile(k)); err != nil {
			kr.Err = err.Error()
			return kr
		}
		kr.Heddle[f] = map[string]*HeddleResult{}
		timeout := cfg.Timeout
		if f == Shipped && cfg.ShippedTimeout > 0 {
			timeout = cfg.ShippedTimeout
		}
		strats := cfg.Strategies
		if f == Shipped && cfg.ShippedStrategies != nil {
			strats = cfg.ShippedStrategies
		}
		for _, s := range strats {
			kr.Heddle[f][s] = k.runHeddleSteps(ctx, cfg.Via, cfg.Heddle, fdir, s, cfg.Budget, timeout)
		}
		if r := kr.Heddle[f][DefaultStrategy]; f == Single && r != nil && !r.OK() && len(cfg.Prove) > 0 {
			kr.Proof = map[string]*HeddleResult{}
			for _, s := range cfg.Prove {
				kr.Proof[s] = k.RunHeddleVia(ctx, cfg.Via, cfg.Heddle, fdir, s, cfg.ProveBudget, timeout)
			}
		}
	}
	if kr.Same {
		kr.Heddle[Shipped] = kr.Heddle[Single]
	}
	if cfg.Native.Runs > 0 {
		c, err := k.Prepare(Single)
		if err != nil {
			kr.Err = err.Error()
			return kr
		}
		ndir := filepath.Join(dir, "native")
		if err := k.WriteModule(ndir, c, k.NativeTestFile()); err != nil {
			kr.Err = err.Error()
			return kr
		}
		kr.Native = k.RunNative(ctx, ndir, cfg.Native)
	}
	return kr
}

// runHeddleSteps is RunHeddle, run again with -disable steplimit when the
// first report is "step bound exceeded": the kernel runs past the step
// bound in some schedule (a loop that never ends where the bug does not
// happen, or a long scenario), so its bug is looked for with that report
// turned off, and both results are kept.
func (k *Kernel) runHeddleSteps(ctx context.Context, via, heddle, dir, strategy string, budget int, timeout time.Duration, flags ...string) *HeddleResult {
	r := k.RunHeddleVia(ctx, via, heddle, dir, strategy, budget, timeout, flags...)
	if r.Found && r.Kind == "steplimit" {
		again := k.RunHeddleVia(ctx, via, heddle, dir, strategy, budget, timeout, append(flags, "-disable", "steplimit")...)
		again.StepLimit = r
		r = again
	}
	return r
}

func hasForm(fs []Form, f Form) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

// Line is a one-line progress summary of a kernel.
func (kr *KernelResult) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s", kr.Kernel.Name)
	if kr.Err != "" {
		fmt.Fprintf(&b, " ERROR %s", kr.Err)
		return b.String()
	}
	for _, f := range []Form{Single, Shipped} {
		m := kr.Heddle[f]
		if m == nil || (f == Shipped && kr.Same) {
			continue
		}
		fmt.Fprintf(&b, " %s:", f)
		for _, s := range sortedStrategies(m) {
			fmt.Fprintf(&b, " %s=%s", s, m[s].Cell())
		}
	}
	if kr.Native != nil {
		fmt.Fprintf(&b, " native=%s", kr.Native.Cell())
	}
	if kr.Proof != nil {
		fmt.Fprintf(&b, " proof:")
		for _, s := range sortedStrategies(kr.Proof) {
			fmt.Fprintf(&b, " %s=%s", s, kr.Proof[s].Cell())
		}
	}
	for _, f := range []Form{Single, Shipped} {
		for _, s := range sortedStrategies(kr.Heddle[f]) {
			r := kr.Heddle[f][s]
			if r.Err != "" || (r.Found && !r.Verdict.OK) {
				fmt.Fprintf(&b, "\n    %s/%s: %s%s", f, s, r.Err, r.Verdict.Why)
			}
		}
	}
	return b.String()
}

func sortedStrategies(m map[string]*HeddleResult) []string {
	var out []string
	if _, ok := m[DefaultStrategy]; ok {
		out = append(out, DefaultStrategy)
	}
	var rest []string
	for s := range m {
		if s != DefaultStrategy {
			rest = append(rest, s)
		}
	}
	sortStrings(rest)
	return append(out, rest...)
}

// BuildHeddle builds heddle.dev/cmd/heddle into out from the commit rev of
// the repository at moduleDir (exported with git archive into a temporary
// directory, so that edits in progress in the working tree do not leak into
// the measurement), or from the working tree itself when rev is "".
func BuildHeddle(ctx context.Context, moduleDir, rev, out string) error {
	src := moduleDir
	if rev != "" {
		tmp, err := os.MkdirTemp("", "goker-heddle-src-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		archive := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", moduleDir, rev, tmp)
		if b, err := archive.CombinedOutput(); err != nil {
			return fmt.Errorf("git archive %s: %v\n%s", rev, err, b)
		}
		src = tmp
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "heddle.dev/cmd/heddle")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build heddle: %v\n%s", err, b)
	}
	return nil
}

// ModuleDir is the root of the heddle.dev module, for a harness command
// (named tool in the error) run inside it.
func ModuleDir(tool string) (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run %s inside the heddle.dev module", tool)
	}
	return filepath.Dir(mod), nil
}

// GOROOT returns `go env GOROOT`.
func GOROOT() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}
