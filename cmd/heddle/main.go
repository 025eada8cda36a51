// Heddle is a systematic concurrency tester for Go.
//
// It runs ordinary Go tests many times, forcing one interleaving of
// goroutines on each run, and reports deadlocks, goroutine leaks, panics,
// failed assertions and misuses of sync primitives with a schedule file that
// replays them exactly.
//
// Usage:
//
//	heddle test [packages] [flags]   explore the tests of packages
//	heddle run [flags] [package] [-- args...]
//	                                 explore a main package's main
//	heddle replay FILE [flags]       replay a recorded schedule
//	heddle merge [flags] FILES...    combine the results of heddle test -shard
//	heddle version                   print heddle's version
//	heddle help [command]            print help
//
// See docs/usage.md in heddle's repository for every flag.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"heddle.dev"
	"heddle.dev/internal/build"
)

// Exit codes, as go test uses them.
const (
	exitOK    = 0 // all tests passed
	exitFail  = 1 // a test failed or a bug was found
	exitUsage = 2 // bad usage, a build error, or a failure of heddle itself
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "test":
		return cmdTest(rest, stdout, stderr)
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "replay":
		return cmdReplay(rest, stdout, stderr)
	case "merge":
		return cmdMerge(rest, stdout, stderr)
	case reapCommand:
		return cmdReap(os.Stdin) // reap.go: not a user's command
	case "version":
		rh, err := build.RuntimeHash(heddle.Runtime)
		if err != nil {
			fmt.Fprintln(stderr, "heddle:", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "heddle %s (runtime %s, built with %s)\n", version(), rh[:12], runtime.Version())
		return exitOK
	case "help", "-h", "-help", "--help":
		return cmdHelp(rest, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "heddle %s: unknown command\nRun 'heddle help' for usage.\n", cmd)
		return exitUsage
	}
}

const mainUsage = `Heddle is a systematic concurrency tester for Go.

Usage:

	heddle <command> [arguments]

The commands are:

	test        explore the tests of packages, many interleavings each
	run         explore a main package: call its main many times
	replay      replay a recorded schedule exactly
	merge       combine the result files of heddle test -shard
	version     print heddle's version
	help        print help about a command

Run 'heddle help <command>' for more about a command.
`

func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, mainUsage)
		return exitOK
	}
	switch args[0] {
	case "test":
		fmt.Fprint(stdout, testUsage)
	case "run":
		fmt.Fprint(stdout, runUsage)
	case "replay":
		fmt.Fprint(stdout, replayUsage)
	case "merge":
		fmt.Fprint(stdout, mergeUsage)
	case "version":
		fmt.Fprint(stdout, "usage: heddle version\n\nVersion prints heddle's version.\n")
	default:
		fmt.Fprintf(stderr, "heddle help %s: unknown help topic. Run 'heddle help'.\n", args[0])
		return exitUsage
	}
	return exitOK
}

// version is heddle's module version, or "devel" for a build from a source
// tree.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		if v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
