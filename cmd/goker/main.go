// Command goker measures heddle on the GoKer kernels shipped with Go and
// writes docs/results/goker.md. See docs/goker.md.
//
//	go run ./cmd/goker                      # everything, writes docs/results/goker.md
//	go run ./cmd/goker -run 'Moby|Etcd' -o - # some kernels, table on stdout
//
// With -seeds it measures runs to the first bug per program, member
// strategy and seed instead, appending to a CSV file (-samples); with
// -simulate it evaluates portfolio mixes from such a file
// (docs/strategies.md, "Why the portfolio is built this way").
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/goker"
)

func main() {
	var (
		budget      = flag.Int("budget", 1000, "heddle runs per kernel, form and strategy")
		strategies  = flag.String("strategies", "default,random,pct,pos,sdpor,odpor,idb", "comma-separated strategies; default means no -strategy flag")
		shippedS    = flag.String("shipped-strategies", "default,random,pct", "strategies run on the shipped form (one run of a thousand copies can take seconds)")
		forms       = flag.String("forms", "single,shipped", "forms to run: single, shipped")
		nativeRuns  = flag.Int("native-runs", 10000, "native baseline: at most this many runs per kernel (0: no native baseline)")
		nativeTime  = flag.Duration("native-time", 20*time.Second, "native baseline: at most this much time per kernel")
		nativeGrace = flag.Duration("native-grace", time.Second, "native baseline: how long the leak check waits for the kernel's goroutines after each run")
		nativeBatch = flag.Int("native-batch", 10000, "native baseline: runs per process")
		jobs        = flag.Int("j", 2, "kernels measured in parallel")
		run         = flag.String("run", "", "only kernels whose name or file matches this regexp")
		timeout     = flag.Duration("timeout", 2*time.Minute, "time limit of one heddle command on the single form")
		shippedTO   = flag.Duration("shipped-timeout", time.Minute, "time limit of one heddle command on the shipped form")
		out         = flag.String("o", "docs/results/goker.md", "where to write the results (- for standard output)")
		heddleBin   = flag.String("heddle", "", "heddle binary to measure (default: built from this module)")
		keep        = flag.Bool("keep", false, "keep the temporary modules")
		rev         = flag.String("rev", "HEAD", "build heddle from this commit of the repository (\"\": from the working tree)")
		seeds       = flag.String("seeds", "", "measure runs to the first bug with seeds 1 to N (\"N\") or A to B (\"A-B\") instead, into -samples")
		members     = flag.String("members", "random,pos,pct1,pct2,pct3,idb,sdpor,odpor", "with -seeds: strategies measured (pctN: pct with -pct-depth N; default: the portfolio)")
		samples     = flag.String("samples", "docs/results/portfolio-samples.csv", "with -seeds: CSV file the samples are appended to (samples already there are skipped); with -simulate: the file read")
		examples    = flag.String("examples", "examples", "with -seeds: the examples module measured besides the kernels (\"\": none)")
		simulate    = flag.Bool("simulate", false, "evaluate portfolio mixes from -samples and print the table")
		mixes       = flag.String("mixes", "", "with -simulate: mixes to evaluate besides the built-in candidates, separated by spaces (member:warmup:weight,...)")
		search      = flag.Bool("search", false, "with -simulate: also search a grid of mixes and list the best")
		prove       = flag.String("prove", "dfs,odpor", "exhaustive strategies run on the single form of kernels whose bug the default strategy did not find (\"\": none)")
		via         = flag.String("via", "test", "how heddle runs a kernel: test (heddle test on a generated test calling the kernel) or run (heddle run on the kernel's package as a program, through GOROOT's main.go)")
		proveBudget = flag.Int("prove-budget", 100000, "runs of each -prove search")
		discrim     = flag.Bool("discriminating", false, "with -seeds: skip the programs whose samples in -samples all found the bug at run 1, and members that missed it in two samples or more")
		speedup     = flag.Bool("speedup", false, "measure heddle test -parallel 2 against -parallel 1 on a few kernels instead (speedup.go)")
	)
	flag.Parse()
	command := "go run ./cmd/goker " + strings.Join(os.Args[1:], " ")
	if *speedup {
		if err := speedupMain(*run, *heddleBin, *rev, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "goker:", err)
			os.Exit(1)
		}
		return
	}
	if *simulate {
		if err := simulateMain(command, *samples, *budget, *mixes, *search); err != nil {
			fmt.Fprintln(os.Stderr, "goker:", err)
			os.Exit(1)
		}
		return
	}
	if *seeds != "" {
		if err := seedsMain(*seeds, *members, *samples, *examples, *discrim, *budget, *run, *timeout, *heddleBin, *rev, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "goker:", err)
			os.Exit(1)
		}
		return
	}
	if err := mainErr(command, *budget, *strategies, *forms, *nativeRuns, *nativeTime, *nativeGrace, *nativeBatch, *jobs, *run, *timeout, *shippedTO, *shippedS, *prove, *proveBudget, *via, *out, *heddleBin, *rev, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "goker:", err)
		os.Exit(1)
	}
}

func mainErr(command string, budget int, strategies, forms string, nativeRuns int, nativeTime, nativeGrace time.Duration, nativeBatch, jobs int, run string, timeout, shippedTO time.Duration, shippedS, prove string, proveBudget int, via, out, heddleBin, rev string, keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	goroot, err := goker.GOROOT()
	if err != nil {
		return err
	}
	modDir, err := goker.ModuleDir("goker")
	if err != nil {
		return err
	}
	work, heddleBin, cleanup, err := workDir(ctx, "goker-", keep, modDir, rev, heddleBin)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := goker.Config{
		GOROOT:         goroot,
		Heddle:         heddleBin,
		Budget:         budget,
		Jobs:           jobs,
		Timeout:        timeout,
		ShippedTimeout: shippedTO,
		Work:           work,
		Log:            os.Stderr,
		Native:         goker.NativeConfig{Runs: nativeRuns, Time: nativeTime, Grace: nativeGrace, Batch: nativeBatch},
	}
	cfg.Strategies = strings.Split(strategies, ",")
	cfg.ShippedStrategies = strings.Split(shippedS, ",")
	switch via {
	case goker.ViaTest, goker.ViaRun:
		cfg.Via = via
	default:
		return fmt.Errorf("unknown -via %q (test, run)", via)
	}
	if prove != "" {
		cfg.Prove, cfg.ProveBudget = strings.Split(prove, ","), proveBudget
	}
	for _, f := range strings.Split(forms, ",") {
		switch goker.Form(f) {
		case goker.Single, goker.Shipped:
			cfg.Forms = append(cfg.Forms, goker.Form(f))
		default:
			return fmt.Errorf("unknown form %q (single, shipped)", f)
		}
	}
	if run != "" {
		if cfg.Run, err = regexp.Compile(run); err != nil {
			return err
		}
	}
	res, err := goker.Run(ctx, cfg)
	if err != nil {
		return err
	}
	commit := "the binary " + heddleBin
	switch {
	case !strings.HasPrefix(heddleBin, work):
		// given with -heddle
	case rev != "":
		commit = goker.Commit(modDir, rev) + ", built by the harness with git archive"
	default:
		commit = goker.Commit(modDir, "HEAD") + " plus the working tree's changes, built by the harness"
	}
	md := res.Markdown(command, goker.Machine(), commit)
	if out == "-" {
		_, err = os.Stdout.WriteString(md)
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(modDir, out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "goker: wrote %s (%v)\n", out, res.Wall.Round(time.Second))
	return nil
}

// workDir makes the temporary directory of a harness command (kept, and
// named on standard error, if keep is set; cleanup removes it otherwise)
// and, unless heddleBin names a binary already, builds heddle there from
// commit rev of the module in modDir.
func workDir(ctx context.Context, prefix string, keep bool, modDir, rev, heddleBin string) (work, bin string, cleanup func(), err error) {
	work, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(work) }
	if keep {
		fmt.Fprintln(os.Stderr, "goker: temporary modules in", work)
		cleanup = func() {}
	}
	if heddleBin == "" {
		heddleBin = filepath.Join(work, "heddle")
		if err := goker.BuildHeddle(ctx, modDir, rev, heddleBin); err != nil {
			cleanup()
			return "", "", nil, err
		}
	}
	return work, heddleBin, cleanup, nil
}
