package conform

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is one run of the harness.
type Config struct {
	Corpus *Corpus
	Native NativeConfig
	Heddle HeddleConfig
	Work   string // where the temporary modules go
	Jobs   int    // native settings run in parallel
	Log    io.Writer
}

// ProgramResult is everything measured on one program.
type ProgramResult struct {
	Program *Program
	Native  []*NativeRun
	Heddle  *HeddleRun
}

// NativeOutcomes merges the outcomes of every native setting.
func (pr *ProgramResult) NativeOutcomes() Outcomes {
	all := Outcomes{}
	for _, r := range pr.Native {
		all.Merge(r.Outcomes)
	}
	return all
}

// NativeRuns is the number of native runs over every setting.
func (pr *ProgramResult) NativeRuns() int {
	n := 0
	for _, r := range pr.Native {
		n += r.Runs
	}
	return n
}

// Reached reports whether heddle reached native outcome o.
func (h *HeddleRun) Reached(o string) bool {
	if h.Outcomes[o] {
		return true
	}
	if o == Hang {
		// A native run that never ends is a deadlock or a leak for heddle.
		for ho := range h.Outcomes {
			if ho == Deadlock || strings.HasPrefix(ho, "leak: ") {
				return true
			}
		}
	}
	return false
}

// Missed lists the native outcomes heddle did not reach, sorted.
func (pr *ProgramResult) Missed() []string {
	var out []string
	for o := range pr.NativeOutcomes() {
		if pr.Heddle == nil || !pr.Heddle.Reached(o) {
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

// Unseen lists heddle's outcomes that no native run showed, sorted: not
// errors (native runs sample), but a measure of what stress testing misses.
func (pr *ProgramResult) Unseen() []string {
	nat := pr.NativeOutcomes()
	var out []string
	if pr.Heddle == nil {
		return nil
	}
	for o := range pr.Heddle.Outcomes {
		if nat[o] == 0 {
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

// Errs lists what went wrong in the measurement of the program.
func (pr *ProgramResult) Errs() []string {
	var out []string
	for _, r := range pr.Native {
		if r.Err != "" {
			out = append(out, fmt.Sprintf("native %s: %s", r.Setting, r.Err))
		}
	}
	if pr.Heddle == nil {
		out = append(out, "heddle: not run")
	} else if pr.Heddle.Err != "" {
		out = append(out, "heddle: "+pr.Heddle.Err)
	}
	return out
}

// Results of a whole harness run.
type Results struct {
	Config   Config
	Programs []*ProgramResult
	Start    time.Time
	Wall     time.Duration
}

// Run builds the corpus natively (in each variant) and for heddle, runs
// heddle on every program, then runs every program natively in every
// setting.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	res := &Results{Config: cfg, Start: time.Now()}
	ps := cfg.Corpus.Programs()
	if len(ps) == 0 {
		return nil, fmt.Errorf("empty corpus")
	}
	for _, p := range ps {
		res.Programs = append(res.Programs, &ProgramResult{Program: p})
	}
	hdir := filepath.Join(cfg.Work, "heddle")
	if err := WriteHeddleModule(hdir, cfg.Corpus); err != nil {
		return nil, err
	}
	bins := map[Variant]string{}
	for _, v := range cfg.Native.Variants {
		dir := filepath.Join(cfg.Work, string(v))
		if err := WriteNativeModule(dir, cfg.Corpus, v); err != nil {
			return nil, err
		}
		bins[v] = filepath.Join(dir, "prog.test")
		if err := BuildNative(ctx, dir, bins[v]); err != nil {
			return nil, err
		}
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format, args...)
		}
	}
	racy := ""
	if cfg.Heddle.Racy {
		racy = " -racy"
	}
	logf("conform: heddle%s -strategy %s on %d programs\n", racy, cfg.Heddle.Strategy, len(ps))
	hr, err := RunHeddle(ctx, hdir, ps, cfg.Heddle)
	if err != nil && hr == nil {
		return nil, err
	}
	for _, pr := range res.Programs {
		pr.Heddle = hr[pr.Program.Name]
	}
	type job struct {
		pr *ProgramResult
		s  Setting
		i  int
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	settings := cfg.Native.Settings()
	left := map[*ProgramResult]int{}
	for _, pr := range res.Programs {
		pr.Native = make([]*NativeRun, len(settings))
		left[pr] = len(settings)
	}
	for range max(cfg.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				nr := RunNative(ctx, bins[j.s.Variant], j.pr.Program, j.s, cfg.Native)
				mu.Lock()
				j.pr.Native[j.i] = nr
				left[j.pr]--
				if left[j.pr] == 0 {
					logf("%s\n", j.pr.Line())
				}
				mu.Unlock()
			}
		}()
	}
	for _, pr := range res.Programs {
		for i, s := range settings {
			select {
			case jobs <- job{pr, s, i}:
			case <-ctx.Done():
			}
		}
	}
	close(jobs)
	wg.Wait()
	res.Wall = time.Since(res.Start)
	return res, ctx.Err()
}

// Line is a one-line summary of a program's result.
func (pr *ProgramResult) Line() string {
	var b strings.Builder
	h := pr.Heddle
	fmt.Fprintf(&b, "%-28s native: %d runs, %d outcomes; heddle: ", pr.Program.Name, pr.NativeRuns(), len(pr.NativeOutcomes()))
	if h != nil {
		fmt.Fprintf(&b, "%d runs, %d outcomes", h.Runs, len(h.Outcomes))
		switch {
		case h.Exhausted:
		case h.SpinBound > 0:
			fmt.Fprintf(&b, " (exhausted up to the spin bound, %d polls in a row)", h.SpinBound)
		default:
			b.WriteString(" (not exhausted)")
		}
		if h.NoClaim != "" {
			fmt.Fprintf(&b, "\n    %s", h.NoClaim)
		}
	}
	if m := pr.Missed(); len(m) > 0 {
		fmt.Fprintf(&b, "; MISSED %q", m)
	}
	for _, e := range pr.Errs() {
		fmt.Fprintf(&b, "\n    %s", e)
	}
	return b.String()
}
