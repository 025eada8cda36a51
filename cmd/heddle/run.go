package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"heddle.dev/internal/build"
)

const runUsage = `usage: heddle run [flags] [package] [-- args...]

Run explores a main package the way heddle test explores a test: it
rewrites the program's concurrency operations, builds it with a test that
calls its main function, and calls main many times, forcing one
interleaving of goroutines per run. The package defaults to "."; the
arguments after -- are os.Args[1:] of every run. Flags may come before or
after the package.

	heddle run ./cmd/server -- -addr :0 -workers 2
	heddle run -budget 30s -race .
	heddle run -stdin testdata/requests.txt ./cmd/worker

Each run starts with os.Args set and flag.CommandLine holding the flags
the program defined at initialization, as they were then; main's flag.Parse
parses the arguments after --. Package variables and init functions are
initialized once, as in a test binary. main returning ends the run as a
test returning does: goroutines still blocked are leaks (-leaks=false turns
this off), and all goroutines asleep before main returns is a deadlock.
os.Exit, log.Fatal and a failed flag.Parse end the run, not heddle: exit
status 0 is a normal end, any other is a bug of kind fail. The program's
output is kept from the terminal (-v shows every run's): a report ends
with the output of the run it shows, and heddle replay shows it too. The
package's own tests are not built or run; the program runs in the
current directory, as under go run, with an empty standard input unless
-stdin names a file (or - for heddle's own standard input): every run then
reads that input from its start.

For each bug it prints a report and a command that replays the bug from its
schedule file. The exit status is 0 when every run passed, 1 when a bug
was found, and 2 for usage and build errors.

Flags: those of heddle test (see heddle help test), except -run and -skip, and

	-stdin file      the standard input of every run of main, read from its
	                 start in each run (- for heddle's own standard input,
	                 read once); a schedule records a copy for replay
`

// splitDashDash splits heddle run's arguments at the first "--": heddle's
// before, the program's after.
func splitDashDash(args []string) (heddle, prog []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// pkgOf is the package pattern of the directory of a .go file.
func pkgOf(file string) string {
	dir := filepath.ToSlash(filepath.Dir(file))
	if dir == "." || strings.HasPrefix(dir, "./") || strings.HasPrefix(dir, "../") || filepath.IsAbs(dir) {
		return dir
	}
	return "./" + dir
}

// programName is os.Args[0] of the program's runs: the name go build
// gives its binary.
func programName(importPath string) string {
	return path.Base(importPath)
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	hargs, pargs := splitDashDash(args)
	f, pos, err := parseExploreFlags("run", runUsage, hargs, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if strings.HasPrefix(err.Error(), "heddle: ") {
			fmt.Fprintln(stderr, err)
		}
		return exitUsage
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "heddle: heddle run runs one package, got %s; the program's arguments go after --:\n\theddle run [flags] %s -- %s\n",
			strings.Join(pos, " "), pos[0], strings.Join(pos[1:], " "))
		return exitUsage
	}
	if len(pos) == 1 && strings.HasSuffix(pos[0], ".go") {
		fmt.Fprintf(stderr, "heddle: heddle run takes a package, not a .go file: name the package's directory (heddle run %s)\n", pkgOf(pos[0]))
		return exitUsage
	}
	cache, err := build.CacheDir()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "heddle:", err)
		return exitUsage
	}
	opts := build.Options{
		Dir:      wd,
		Patterns: pos,
		Race:     f.race,
		Tags:     f.tags,
		Main:     true,
		CacheDir: cache,
		Stderr:   stderr,
	}
	prog, outDir, out, ok := load(opts, f, stdout, stderr)
	if !ok {
		return exitUsage
	}
	pkg := prog.Packages[0]
	start := time.Now()
	bin, _ := buildPackage(prog, pkg, f, out, stderr)
	if bin == "" {
		return exitUsage
	}
	cfg := exploreConfig(f, outDir, prog, pkg)
	if f.stdin != "" {
		if cfg.Stdin, err = saveStdin(f.stdin, outDir); err != nil {
			fmt.Fprintln(stderr, "heddle:", err)
			return exitUsage
		}
	}
	cfg.Main = true
	cfg.Args = append([]string{programName(pkg.ImportPath)}, pargs...)
	cfg.Output = f.verbose
	cfg.WorkDir = wd
	targs := []string{"-test.paniconexit0", "-test.timeout=" + f.timeout.String(), "-test.run=" + testRunPattern(build.MainTest)}
	if f.verbose || f.json {
		targs = append(targs, "-test.v=true")
	}
	res, err := runTests(runSpec{
		Package: pkg.ImportPath,
		Dir:     wd, // as go run: the program runs where heddle was started
		Binary:  bin,
		Args:    targs,
		Config:  cfg,
		JSON:    f.json,
		Verbose: f.verbose,
		Main:    true,
		Out:     out,
	}, f)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if printResult(out, f, pkg.ImportPath, res, time.Since(start), true) {
		return exitFail
	}
	return exitOK
}

// saveStdin copies the input named by heddle run's -stdin (a file, or "-"
// for heddle's own standard input) into dir, the schedules' directory, as
// stdin-HASH, and returns the copy's path: every run of main reads it, and
// the schedules of the bugs found record it, so that heddle replay reads
// the same bytes even if the original changes or was a pipe.
func saveStdin(name, dir string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("-stdin: %v", err)
	}
	sum := sha256.Sum256(b)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("-stdin: %v", err)
	}
	p := filepath.Join(dir, "stdin-"+hex.EncodeToString(sum[:6]))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return "", fmt.Errorf("-stdin: %v", err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", fmt.Errorf("-stdin: %v", err)
	}
	return p, nil
}
