package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"heddle.dev/internal/build"
	"heddle.dev/internal/event"
	"heddle.dev/internal/explore"
	"heddle.dev/internal/schedule"
)

const replayUsage = `usage: heddle replay FILE [flags]

Replay rebuilds the package a schedule file was recorded on and runs its
test once, following the schedule's choices exactly, so the bug shows again.
A schedule found by heddle run calls main once, with the recorded
arguments, and shows the program's output.
It refuses a schedule recorded on a different version of the program, and
runs with the exploration settings recorded in the schedule.
The exit status is 1 when the bug reproduces (the same kind of bug, at the
same place, at the same step), and 2 when it does not (the replay diverged,
or the test is gone) and for usage and build errors.

Flags:

	-v        print every step of the run
	-debug    print a command that runs the replay under delve, instead of
	          running it
	-x        print the go commands heddle runs
`

func shortID(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// testRunPattern is the -test.run pattern that selects exactly the test
// (or subtest path) name.
func testRunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// argsForTest returns args with its -test.run replaced by one that selects
// test name alone: the subtests -run selects are the binary's to select
// (Config.Run), and -test.run's other alternatives must not select other
// tests.
func argsForTest(args []string, name string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-test.run=") {
			out = append(out, a)
		}
	}
	return append(out, "-test.run="+testRunPattern(name))
}

// loadSchedule reads and parses a schedule file; its errors name the file.
func loadSchedule(file string) (*schedule.Schedule, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("heddle: %v", err)
	}
	defer f.Close()
	s, err := schedule.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("heddle: %s: %v", file, err)
	}
	if s.Package == "" || s.Dir == "" {
		return nil, fmt.Errorf("heddle: %s: the schedule does not say which package it was recorded on", file)
	}
	return s, nil
}

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", replayUsage, stderr)
	verbose := fs.Bool("v", false, "")
	debugFlag := fs.Bool("debug", false, "")
	x := fs.Bool("x", false, "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, replayUsage)
		return exitUsage
	}
	file, err := filepath.Abs(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	s, err := loadSchedule(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "heddle: %s was recorded in %s, which is not a directory here\n", pos[0], s.Dir)
		return exitUsage
	}
	race, tags, err := build.ParseFlags(s.Flags)
	if err != nil {
		fmt.Fprintf(stderr, "heddle: %s: %v\n", pos[0], err)
		return exitUsage
	}
	racy, err := build.ParseRacy(s.Flags)
	if err != nil {
		fmt.Fprintf(stderr, "heddle: %s: %v\n", pos[0], err)
		return exitUsage
	}
	// A schedule of heddle run: the test is the call of main, with the
	// recorded arguments.
	isMain := s.Extra["main"] == "true"
	var mainArgs []string
	mainStdin := "" // the file every run of main reads as standard input
	name := s.Test
	workDir := "" // where the binary runs: the package's directory, or heddle run's
	if isMain {
		workDir = s.Extra["workdir"]
		if fi, err := os.Stat(workDir); workDir != "" && (err != nil || !fi.IsDir()) {
			fmt.Fprintf(stderr, "heddle: %s was recorded by heddle run in %s, which is not a directory here\n", pos[0], workDir)
			return exitUsage
		}
		if err := json.Unmarshal([]byte(s.Extra["args"]), &mainArgs); err != nil {
			fmt.Fprintf(stderr, "heddle: %s: bad args: %v\n", pos[0], err)
			return exitUsage
		}
		name = "main"
		if stdin := s.Extra["stdin"]; stdin != "" {
			if _, err := os.Stat(stdin); err != nil {
				fmt.Fprintf(stderr, "heddle: %s was recorded with the standard input %s, which is gone: run heddle run -stdin again to find the bug anew\n", pos[0], stdin)
				return exitUsage
			}
			mainStdin = stdin
		}
	}
	cache, err := build.CacheDir()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	opts := build.Options{
		Dir:      s.Dir,
		Patterns: []string{s.Package},
		Race:     race,
		Tags:     tags,
		Racy:     racy,
		Debug:    *debugFlag,
		Main:     isMain,
		CacheDir: cache,
		Stderr:   stderr,
	}
	if *x {
		opts.Verbose = stderr
	}
	prog, err := build.Load(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	var pkg *build.Package
	for _, p := range prog.Packages {
		if p.ImportPath == s.Package {
			pkg = p
		}
	}
	if pkg == nil {
		fmt.Fprintf(stderr, "heddle: %s: package %s is not in %s any more\n", pos[0], s.Package, s.Dir)
		return exitUsage
	}
	if pkg.Fingerprint != s.Fingerprint {
		why := build.FileDiff(s.Files, pkg.Files)
		if why == "" {
			// The build flags are the recorded ones, so the runtime differs.
			why = "it was recorded with another build of heddle's runtime"
			if s.Version != "" && s.Version != version() {
				why = fmt.Sprintf("it was recorded with heddle %s, this is heddle %s", s.Version, version())
			}
		}
		fmt.Fprintf(stderr, "heddle: %s was recorded on a different version of the program: %s\n", pos[0], why)
		return exitUsage
	}
	bin, err := prog.Build(pkg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}

	cfg := explore.DefaultConfig()
	// The exploration's settings (step bound, early timer firings, kinds
	// disabled, ...): the replayed run must be the recorded one.
	if err := cfg.ApplySettings(s.Settings); err != nil {
		fmt.Fprintf(stderr, "heddle: %s: %v\n", pos[0], err)
		return exitUsage
	}
	if s.Format == schedule.FormatV1 {
		// Written before late wakes existed: the run offered none.
		cfg.NoLateWake = true
	}
	cfg.Strategy = "replay"
	cfg.Replay = file
	cfg.Verbose = *verbose
	cfg.Seed = s.Seed
	cfg.Runs = 1
	cfg.Budget = "1"
	cfg.OutDir = os.TempDir()
	cfg.Package = pkg.ImportPath
	cfg.Dir = pkg.Dir
	cfg.Version = version()
	cfg.Fingerprint = pkg.Fingerprint
	cfg.Files = pkg.Files
	cfg.BuildFlags = prog.BuildFlags
	cfg.TestOnly = pkg.TestOnly
	cfg.Main, cfg.Args, cfg.Output, cfg.WorkDir, cfg.Stdin = isMain, mainArgs, true, workDir, mainStdin
	if workDir == "" {
		workDir = pkg.Dir
	}
	targs := []string{"-test.run=" + testRunPattern(s.Test), "-test.v=true"}
	if g := s.Extra["group"]; g != "" {
		// The top-level parallel tests explored together (explore.Group).
		if err := json.Unmarshal([]byte(g), &cfg.Group); err != nil || len(cfg.Group) == 0 {
			fmt.Fprintf(stderr, "heddle: %s: bad group: %q\n", pos[0], g)
			return exitUsage
		}
		targs[0] = "-test.run=" + explore.GroupRunPattern(cfg.Group)
	}

	if *debugFlag {
		// Stopping at breakpoints is no sign of a hung run.
		cfg.RunTimeout = 24 * time.Hour
		b, err := json.Marshal(cfg)
		if err != nil {
			fmt.Fprintln(stderr, "heddle:", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "cd %s && %s=%s dlv exec %s --", shellQuote(workDir), explore.EnvConfig, shellQuote(string(b)), shellQuote(bin))
		for _, a := range targs {
			fmt.Fprintf(stdout, " %s", shellQuote(a))
		}
		fmt.Fprintln(stdout)
		return exitOK
	}

	res, err := runBinary(runSpec{
		Package: pkg.ImportPath,
		Dir:     workDir,
		Binary:  bin,
		Args:    targs,
		Config:  cfg,
		Verbose: true,
		Main:    isMain,
		Out:     &syncWriter{w: stdout, replaying: true},
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	started := false
	var verdict *event.Event
	for i, e := range res.Events {
		switch e.Action {
		case event.Start:
			started = true
		case event.Bug:
			if !strings.Contains(res.Output, firstLine(e.Report)) {
				fmt.Fprintln(stdout, strings.TrimRight(e.Report, "\n"))
			}
		case event.Replayed:
			verdict = &res.Events[i]
		}
	}
	switch {
	case !started:
		fmt.Fprintf(stderr, "heddle: %s: package %s has no test %s any more: nothing was replayed\n", pos[0], s.Package, s.Test)
		return exitUsage
	case verdict == nil:
		fmt.Fprintf(stderr, "heddle: the replay of %s ended without a verdict: the test binary stopped before the end of the run (its output above says why)\n", pos[0])
		return exitUsage
	case verdict.Message != "":
		fmt.Fprintf(stderr, "heddle: the replay of %s diverged: %s.\n"+
			"The program is the recorded one, so it does something heddle does not control (I/O, wall-clock time, unrewritten code) or heddle is at fault.\n", pos[0], verdict.Message)
		return exitUsage
	}
	fmt.Fprintf(stdout, "heddle: reproduced %s in %s (%s)\n", s.Kind, name, s.Package)
	return exitFail
}
