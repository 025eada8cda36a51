// Command realworld measures heddle on the test suites of the corpus of
// real modules (heddle.dev/internal/realworld) and writes
// docs/results/realworld.md. See docs/realworld.md.
//
//	go run ./cmd/realworld                       # the whole corpus
//	go run ./cmd/realworld -run go-retry -o -    # one module, table on stdout
//	go run ./cmd/realworld -speed -modules golang-lru,conc   # cost per run, test by test: docs/results/speed.md
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/goker"
	"heddle.dev/internal/realworld"
)

func main() {
	var (
		budget    = flag.String("budget", "1s", "heddle test's -budget for every test: runs (1000) or time (1s)")
		timeout   = flag.Duration("timeout", 6*time.Minute, "time limit of heddle test on one module")
		nativeTO  = flag.Duration("native-timeout", 5*time.Minute, "time limit of go test on one module")
		replayTO  = flag.Duration("replay-timeout", 2*time.Minute, "time limit of one replay")
		jobs      = flag.Int("j", 1, "modules measured in parallel")
		run       = flag.String("run", "", "only modules whose path matches this regexp")
		out       = flag.String("o", "docs/results/realworld.md", "where to write the results (- for standard output)")
		heddleBin = flag.String("heddle", "", "heddle binary to measure (default: built from this module)")
		rev       = flag.String("rev", "HEAD", "build heddle from this commit of the repository (\"\": from the working tree)")
		keep      = flag.Bool("keep", false, "keep the module copies and schedules")
		flags     = flag.String("flags", "", "more heddle test flags, separated by spaces")
		merge     = flag.String("merge", "", "run the modules -run selects and put their rows into the results saved by an earlier run with the same heddle (its .json file), writing the page -o names")
		from      = flag.String("from", "", "render the page from the results saved by an earlier run (its .json file), with the classification of this tree, instead of running")
		speed     = flag.Bool("speed", false, "measure heddle's cost per run against native, test by test, and write docs/results/speed.md (-o to change)")
		modules   = flag.String("modules", "", "with -speed: the modules measured, comma-separated, each a path or its last elements (golang-lru,conc; default: all)")
		nativeT   = flag.Duration("native-time", 500*time.Millisecond, "with -speed: how long each test runs natively (it runs -test.count N times)")
		minNative = flag.Duration("min-native", 100*time.Microsecond, "with -speed: the tests shown are those whose native run takes at least this")
	)
	flag.Parse()
	command := "go run ./cmd/realworld " + strings.Join(os.Args[1:], " ")
	if *speed {
		o := *out
		if o == "docs/results/realworld.md" {
			o = "docs/results/speed.md"
		}
		if err := speedMain(command, *budget, *modules, *nativeT, *minNative, *timeout, o, *heddleBin, *rev, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "realworld:", err)
			os.Exit(1)
		}
		return
	}
	if *from != "" {
		if err := render(*from, *out); err != nil {
			fmt.Fprintln(os.Stderr, "realworld:", err)
			os.Exit(1)
		}
		return
	}
	if *merge != "" && *run == "" {
		fmt.Fprintln(os.Stderr, "realworld: -merge needs -run: the modules to run again")
		os.Exit(2)
	}
	if err := mainErr(command, *budget, *flags, *timeout, *nativeTO, *replayTO, *jobs, *run, *out, *heddleBin, *rev, *merge, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "realworld:", err)
		os.Exit(1)
	}
}

func mainErr(command, budget, flags string, timeout, nativeTO, replayTO time.Duration, jobs int, run, out, heddleBin, rev, merge string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var into *realworld.Results
	if merge != "" {
		// Read first: a bad file is an error before the modules run.
		var err error
		if into, err = readResults(merge); err != nil {
			return err
		}
	}
	modDir, err := goker.ModuleDir("realworld")
	if err != nil {
		return err
	}
	work, heddleBin, commit, cleanup, err := prepare(ctx, modDir, "realworld-", heddleBin, rev, keep)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := realworld.Config{
		Heddle:        heddleBin,
		Work:          work,
		Budget:        budget,
		Flags:         strings.Fields(flags),
		Timeout:       timeout,
		NativeTimeout: nativeTO,
		ReplayTimeout: replayTO,
		Jobs:          jobs,
		Log:           os.Stderr,
	}
	if run != "" {
		if cfg.Run, err = regexp.Compile(run); err != nil {
			return err
		}
	}
	res, err := realworld.Run(ctx, cfg)
	if err != nil {
		return err
	}
	res.Command, res.Machine, res.Commit = command, goker.Machine(), commit
	if into != nil {
		if res.Config.Budget != into.Config.Budget || strings.Join(res.Config.Flags, " ") != strings.Join(into.Config.Flags, " ") {
			return fmt.Errorf("-merge %s: its run used -budget %s -flags %q, this one -budget %s -flags %q", merge, into.Config.Budget, strings.Join(into.Config.Flags, " "), res.Config.Budget, strings.Join(res.Config.Flags, " "))
		}
		if err := into.Merge(res); err != nil {
			return fmt.Errorf("-merge %s: %v", merge, err)
		}
		res = into
	}
	if out != "-" && !filepath.IsAbs(out) {
		out = filepath.Join(modDir, out)
	}
	if err := write(res, out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "realworld: wrote %s (%v)\n", out, res.Wall.Round(time.Second))
	return nil
}

// write writes the page to out (- for standard output) and, beside it,
// the reports' texts (out with -reports.md for .md) and the results as
// JSON (out with .json for .md), from which -from renders the pages again
// once reports are classified.
func write(res *realworld.Results, out string) error {
	if out == "-" {
		_, err := os.Stdout.WriteString(res.Markdown())
		return err
	}
	reports := strings.TrimSuffix(out, ".md") + "-reports.md"
	res.Page, res.ReportsPage = filepath.Base(out), filepath.Base(reports)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(res.Markdown()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(reports, []byte(res.ReportsMarkdown()), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(out, ".md")+".json", append(b, '\n'), 0o644)
}

// render renders the page from saved results, classifying the reports
// anew.
func render(from, out string) error {
	res, err := readResults(from)
	if err != nil {
		return err
	}
	res.Reclassify()
	return write(res, out)
}

// readResults reads the results an earlier run saved (write).
func readResults(file string) (*realworld.Results, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	res := new(realworld.Results)
	if err := json.Unmarshal(b, res); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return res, nil
}

// speedMain measures heddle's cost per run against native on every test
// of the modules named (-speed) and writes the table to out.
func speedMain(command, budget, modules string, nativeTime, minNative, timeout time.Duration, out, heddleBin, rev string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	mods, err := pickModules(modules)
	if err != nil {
		return err
	}
	modDir, err := goker.ModuleDir("realworld")
	if err != nil {
		return err
	}
	work, heddleBin, commit, cleanup, err := prepare(ctx, modDir, "realworld-speed-", heddleBin, rev, keep)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := realworld.SpeedConfig{Heddle: heddleBin, Work: work, Budget: budget, NativeTime: nativeTime, Timeout: timeout, Log: os.Stderr}
	start, load := time.Now(), loadAverage()
	var rows []*realworld.SpeedRow
	for _, m := range mods {
		r, err := realworld.Speed(ctx, cfg, m)
		rows = append(rows, r...)
		if err != nil {
			return fmt.Errorf("%s: %v", m.Path, err)
		}
	}
	// The machine may be shared: its load says how far to trust the times.
	machine := fmt.Sprintf("%s, load average %s at the start and %s at the end", goker.Machine(), load, loadAverage())
	md := realworld.SpeedMarkdown(rows, minNative, command, machine, commit, time.Since(start), cfg)
	if out == "-" {
		_, err := os.Stdout.WriteString(md)
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(modDir, out)
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "realworld: wrote %s\n", out)
	return nil
}

// pickModules returns the modules of the corpus named in list: a module's
// path, or its last path elements (golang-lru, conc, golang-lru/v2).
func pickModules(list string) ([]realworld.Module, error) {
	if list == "" {
		return realworld.Modules, nil
	}
	var mods []realworld.Module
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, m := range realworld.Modules {
			p := strings.TrimSuffix(m.Path, "/v2")
			p = strings.TrimSuffix(p, "/v4")
			if m.Path == name || strings.HasSuffix(m.Path, "/"+name) || strings.HasSuffix(p, "/"+name) {
				mods = append(mods, m)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("-modules: no module of the corpus is called %q", name)
		}
	}
	return mods, nil
}

// loadAverage is the one-minute load average of the machine, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// prepare makes the work directory (kept with -keep) and, unless a heddle
// binary is given, builds heddle from rev of this repository into it; it
// says which heddle is measured.
func prepare(ctx context.Context, modDir, prefix, heddleBin, rev string, keep bool) (work, bin, commit string, cleanup func(), err error) {
	work, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(work) }
	if keep {
		fmt.Fprintln(os.Stderr, "realworld: modules in", work)
		cleanup = func() {}
	}
	commit = "the binary " + heddleBin
	if heddleBin == "" {
		heddleBin = filepath.Join(work, "heddle")
		if err := goker.BuildHeddle(ctx, modDir, rev, heddleBin); err != nil {
			cleanup()
			return "", "", "", nil, err
		}
		commit = goker.Commit(modDir, rev) + ", built by the harness with git archive"
		if rev == "" {
			commit = goker.Commit(modDir, "HEAD") + workTreeState(modDir) + ", built by the harness"
		}
	}
	return work, heddleBin, commit, cleanup, nil
}

// workTreeState says whether the git working tree at dir differs from its
// HEAD, for the header of a page built from the working tree (-rev "").
func workTreeState(dir string) string {
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = dir
	out, err := cmd.Output()
	switch {
	case err != nil:
		return " plus the working tree's changes, if any (git status failed)"
	case len(bytes.TrimSpace(out)) == 0:
		return " (a clean working tree)"
	}
	return " plus the working tree's changes"
}
