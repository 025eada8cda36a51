// Command conform checks heddle against the real Go runtime and writes
// docs/results/conformance.md. See docs/conformance.md.
//
//	go run ./cmd/conform                       # everything, writes docs/results/conformance.md
//	go run ./cmd/conform -run Arrive -o -      # some programs, report on stdout
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"heddle.dev/internal/conform"
	"heddle.dev/internal/goker"
)

func main() {
	var (
		gen      = flag.Int("gen", 60, "generated programs (seeds 1 to n) besides the hand-written ones")
		genRacy  = flag.Int("gen-racy", 20, "generated racy programs, half of whose operations race (seeds 1 to n)")
		runs     = flag.Int("runs", 5000, "native runs per program and setting")
		perTime  = flag.Duration("time", 3*time.Second, "at most this much time per program and setting")
		procs    = flag.String("procs", "1,2,4", "GOMAXPROCS values of the native runs")
		variants = flag.String("variants", "plain,noise", "native builds: plain, noise (runtime.Gosched injected between statements)")
		grace    = flag.Duration("grace", time.Second, "the native leak check's limit for goroutines still running after a run")
		stable   = flag.Duration("stable", 20*time.Millisecond, "how long leftover goroutines of a program with timers must stay blocked to be a leak")
		hang     = flag.Duration("hang", 20*time.Second, "a native process silent this long is killed, and its run is a hang")
		strategy = flag.String("strategy", "odpor", "heddle's exhaustive strategy")
		racy     = flag.Bool("racy", true, "run heddle test -racy (racy accesses as scheduling points)")
		budget   = flag.Int("budget", 20000, "heddle runs per program")
		timeout  = flag.Duration("timeout", 30*time.Minute, "time limit of the heddle command (all programs)")
		jobs     = flag.Int("j", 2, "native settings run in parallel")
		run      = flag.String("run", "", "only programs whose name matches this regexp")
		out      = flag.String("o", "docs/results/conformance.md", "where to write the results (- for standard output)")
		heddle   = flag.String("heddle", "", "heddle binary to check (default: built from this module's working tree)")
		keep     = flag.Bool("keep", false, "keep the temporary modules")
	)
	flag.Parse()
	command := strings.TrimSpace("go run ./cmd/conform " + strings.Join(os.Args[1:], " "))
	if err := mainErr(command, *gen, *genRacy, *runs, *perTime, *procs, *variants, *grace, *stable, *hang, *strategy, *racy, *budget, *timeout, *jobs, *run, *out, *heddle, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "conform:", err)
		os.Exit(1)
	}
}

func mainErr(command string, gen, genRacy, runs int, perTime time.Duration, procs, variants string, grace, stable, hang time.Duration, strategy string, racy bool, budget int, timeout time.Duration, jobs int, run, out, heddle string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	modDir, err := goker.ModuleDir("conform")
	if err != nil {
		return err
	}
	corpus, err := conform.Full(gen, genRacy)
	if err != nil {
		return err
	}
	if run != "" {
		re, err := regexp.Compile(run)
		if err != nil {
			return err
		}
		corpus = corpus.Select(func(p *conform.Program) bool { return re.MatchString(p.Name) })
	}
	ncfg := conform.NativeConfig{Runs: runs, Time: perTime, Grace: grace, Stable: stable, Hang: hang}
	for _, p := range strings.Split(procs, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return fmt.Errorf("bad -procs %q", procs)
		}
		ncfg.Procs = append(ncfg.Procs, n)
	}
	for _, v := range strings.Split(variants, ",") {
		switch conform.Variant(v) {
		case conform.Plain, conform.Noise:
			ncfg.Variants = append(ncfg.Variants, conform.Variant(v))
		default:
			return fmt.Errorf("unknown variant %q (plain, noise)", v)
		}
	}
	work, err := os.MkdirTemp("", "conform-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "conform: temporary modules in", work)
	} else {
		defer os.RemoveAll(work)
	}
	commit := "the binary " + heddle
	if heddle == "" {
		heddle = filepath.Join(work, "heddle-bin")
		if err := goker.BuildHeddle(ctx, modDir, "", heddle); err != nil {
			return err
		}
		commit = goker.Commit(modDir, "HEAD")
		if dirty(modDir) {
			commit += " plus the working tree's changes"
		}
	}
	cfg := conform.Config{
		Corpus: corpus,
		Native: ncfg,
		Heddle: conform.HeddleConfig{Binary: heddle, Strategy: strategy, Racy: racy, Budget: budget, Timeout: timeout},
		Work:   work,
		Jobs:   jobs,
		Log:    os.Stderr,
	}
	res, err := conform.Run(ctx, cfg)
	if err != nil {
		return err
	}
	md := res.Markdown(command, goker.Machine(), commit)
	if out == "-" {
		_, err = os.Stdout.WriteString(md)
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(modDir, out)
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "conform: wrote %s (%v)\n", out, res.Wall.Round(time.Second))
	return nil
}

// dirty reports whether the working tree has changes to tracked files.
func dirty(dir string) bool {
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = dir
	b, err := cmd.Output()
	return err != nil || len(strings.TrimSpace(string(b))) > 0
}
