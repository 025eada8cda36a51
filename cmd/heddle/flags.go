package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// parseArgs parses flags that may come before, between or after the
// positional arguments, as go test allows: `heddle test ./... -run X`.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		for len(args) > 0 && (!strings.HasPrefix(args[0], "-") || args[0] == "-") {
			pos = append(pos, args[0])
			args = args[1:]
		}
		if len(args) == 0 {
			return pos, nil
		}
	}
}

// budget is the exploration budget of each test: a number of runs or a
// wall-time duration.
type budget struct {
	Runs int
	Time time.Duration
	Text string // as the user wrote it
}

func (b budget) String() string { return b.Text }

// parseBudget reads "1000" (runs) or "10s" (wall time per test).
func parseBudget(s string) (budget, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 {
			return budget{}, fmt.Errorf("budget %q: the number of runs must be positive", s)
		}
		return budget{Runs: n, Text: s}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return budget{}, fmt.Errorf("budget %q is neither a number of runs (1000) nor a duration (10s)", s)
	}
	if d <= 0 {
		return budget{}, fmt.Errorf("budget %q: the duration must be positive", s)
	}
	return budget{Time: d, Text: s}, nil
}

// budgetFlag is a flag.Value for -budget.
type budgetFlag struct{ b *budget }

func (f budgetFlag) String() string {
	if f.b == nil {
		return ""
	}
	return f.b.Text
}

func (f budgetFlag) Set(s string) error {
	b, err := parseBudget(s)
	if err != nil {
		return err
	}
	*f.b = b
	return nil
}

// newFlagSet returns a flag set that reports errors to stderr with the
// command's usage.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
