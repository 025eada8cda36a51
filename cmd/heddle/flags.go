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

// sizeFlag is a flag.Value for a size in bytes: 4GB, 512MB, 1GiB, or a
// number of bytes; 0 means no bound.
type sizeFlag struct{ n *uint64 }

func (f sizeFlag) String() string {
	if f.n == nil {
		return ""
	}
	return formatSize(*f.n)
}

func (f sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*f.n = n
	return nil
}

// parseSize reads a size: a number of bytes, or a number with the unit
// KB, MB, GB (powers of 1024, as KiB, MiB, GiB).
func parseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is not a number of bytes or a number with KB, MB or GB", s)
	}
	return n * mult, nil
}

func formatSize(n uint64) string {
	switch {
	case n == 0:
		return "0"
	case n%(1<<30) == 0:
		return strconv.FormatUint(n>>30, 10) + "GB"
	case n%(1<<20) == 0:
		return strconv.FormatUint(n>>20, 10) + "MB"
	}
	return strconv.FormatUint(n, 10)
}
