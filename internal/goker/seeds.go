package goker

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A Sample is one exploration of one program by one strategy (a member of
// a portfolio, or the portfolio itself) with one seed: the data the
// portfolio simulator (Simulate) works from. `go run ./cmd/goker -seeds`
// writes them.
type Sample struct {
	Corpus    string // "goker" or "examples"
	Program   string // the kernel's name, or the example's package
	Member    string // see MemberArgs
	Seed      int64
	Found     bool // the program's bug was found (GoKer: it meets the criterion)
	Run       int  // the run of the first bug (of the first report when !Found)
	Runs      int  // runs made
	Exhausted bool // the strategy covered its whole space
	Elapsed   float64
	Err       string
}

// MemberArgs maps a member name to heddle test's strategy and flags:
// "default" is no -strategy flag (the portfolio), "pctN" is PCT of depth
// N, any other name is a -strategy name.
func MemberArgs(member string) (strategy string, flags []string) {
	if d, ok := strings.CutPrefix(member, "pct"); ok && d != "" {
		if _, err := strconv.Atoi(d); err == nil {
			return "pct", []string{"-pct-depth", d}
		}
	}
	return member, nil
}

// Deterministic reports whether a member's schedules do not depend on the
// seed (the systematic strategies): one sample is enough.
func Deterministic(member string) bool {
	switch member {
	case "dfs", "ipb", "idb", "sdpor", "odpor", "lazy", "hbrcache", "lazycache", "hapset":
		return true
	}
	return false
}

// SeedsConfig is one measurement of runs to the first bug.
type SeedsConfig struct {
	GOROOT   string
	Heddle   string
	Examples string // the examples module's directory ("": no examples)
	Budget   int
	Members  []string
	Seeds    []int64
	Run      *regexp.Regexp
	Timeout  time.Duration
	Work     string
	Log      io.Writer
	// Have reports samples already measured (they are skipped).
	Have func(corpus, program, member string, seed int64) bool
	// Skip reports programs and members not to measure (nil: none).
	Skip func(corpus, program, member string) bool
	// Add receives each new sample as soon as it is measured.
	Add func(Sample) error
}

// an example is one buggy test of the examples module.
type example struct{ pkg, test string }

// MeasureSeeds runs every selected program (GoKer kernels in single form,
// then the examples' buggy tests) with every member and seed, one command
// at a time. Deterministic members are run with the first seed only.
func MeasureSeeds(ctx context.Context, cfg SeedsConfig) error {
	ks, err := Load(cfg.GOROOT)
	if err != nil {
		return err
	}
	match := func(names ...string) bool {
		if cfg.Run == nil {
			return true
		}
		for _, n := range names {
			if cfg.Run.MatchString(n) {
				return true
			}
		}
		return false
	}
	seedsOf := func(m string) []int64 {
		if Deterministic(m) {
			return cfg.Seeds[:1]
		}
		return cfg.Seeds
	}
	for _, k := range ks {
		if !match(k.Name, k.Key) {
			continue
		}
		c, err := k.Prepare(Single)
		if err != nil {
			return fmt.Errorf("%s: %v", k.Name, err)
		}
		dir := filepath.Join(cfg.Work, k.Key)
		if err := k.WriteModule(dir, c, heddleTestFile(k)); err != nil {
			return err
		}
		for _, m := range cfg.Members {
			for _, seed := range seedsOf(m) {
				if cfg.Have != nil && cfg.Have("goker", k.Name, m, seed) || cfg.Skip != nil && cfg.Skip("goker", k.Name, m) {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				s, flags := MemberArgs(m)
				flags = append(flags, "-seed", fmt.Sprint(seed))
				r := k.runHeddleSteps(ctx, ViaTest, cfg.Heddle, dir, s, cfg.Budget, cfg.Timeout, flags...)
				if err := cfg.add(sampleOf("goker", k.Name, m, seed, r, r.OK())); err != nil {
					return err
				}
			}
		}
	}
	if cfg.Examples == "" {
		return nil
	}
	exs, err := findExamples(cfg.Examples)
	if err != nil {
		return err
	}
	for _, ex := range exs {
		if !match("examples/"+ex.pkg, ex.test) {
			continue
		}
		for _, m := range cfg.Members {
			for _, seed := range seedsOf(m) {
				if cfg.Have != nil && cfg.Have("examples", ex.pkg, m, seed) || cfg.Skip != nil && cfg.Skip("examples", ex.pkg, m) {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				s, flags := MemberArgs(m)
				flags = append(flags, "-seed", fmt.Sprint(seed))
				r := runHeddle(ctx, cfg.Heddle, cfg.Examples, filepath.Join(cfg.Work, "examples-schedules"), testTarget("^"+ex.test+"$", "./"+ex.pkg), s, cfg.Budget, cfg.Timeout, flags...)
				if r.Found && r.Kind == "steplimit" {
					r.Verdict.Why = "step bound exceeded"
				}
				if err := cfg.add(sampleOf("examples", ex.pkg, m, seed, r, r.Found && r.Err == "" && r.Kind != "steplimit")); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (cfg *SeedsConfig) add(s Sample) error {
	if cfg.Log != nil {
		cell := "no"
		if s.Found {
			cell = fmt.Sprint(s.Run)
		}
		fmt.Fprintf(cfg.Log, "%-8s %-16s %-8s seed %-3d %s (%d runs, %s)%s\n", s.Corpus, s.Program, s.Member, s.Seed, cell, s.Runs, secs(s.Elapsed), errSuffix(s.Err))
	}
	if cfg.Add == nil {
		return nil
	}
	return cfg.Add(s)
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " " + firstLine(e, 1)
}

func sampleOf(corpus, program, member string, seed int64, r *HeddleResult, found bool) Sample {
	s := Sample{Corpus: corpus, Program: program, Member: member, Seed: seed, Found: found,
		Run: r.Run, Runs: r.Runs, Exhausted: r.Exhausted, Elapsed: r.Elapsed, Err: r.Err}
	if r.Found && !found && r.Err == "" {
		s.Err = "not the expected bug: " + firstLine(r.Verdict.Why, 1)
	}
	if r.StepLimit != nil {
		s.Elapsed += r.StepLimit.Elapsed
	}
	return s
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)

// findExamples lists the buggy tests of the examples module: the tests
// whose name does not end in Fixed (examples/doc.go: each package has a
// buggy test and its fixed twin).
func findExamples(dir string) ([]example, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*_test.go"))
	if err != nil {
		return nil, err
	}
	var out []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasSuffix(m[1], "Fixed") {
				out = append(out, example{filepath.Base(filepath.Dir(f)), m[1]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].pkg < out[j].pkg || out[i].pkg == out[j].pkg && out[i].test < out[j].test
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("no buggy test in %s", dir)
	}
	return out, nil
}

var sampleHeader = []string{"corpus", "program", "member", "seed", "found", "run", "runs", "exhausted", "elapsed", "err"}

// SampleWriter appends samples to a CSV file, with a header when the file
// is new.
type SampleWriter struct {
	f *os.File
	w *csv.Writer
}

// AppendSamples opens (or creates) a CSV file of samples for appending.
func AppendSamples(path string) (*SampleWriter, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &SampleWriter{f: f, w: csv.NewWriter(f)}
	if st.Size() == 0 {
		w.w.Write(sampleHeader)
	}
	return w, nil
}

// Write appends one sample and flushes it.
func (w *SampleWriter) Write(s Sample) error {
	w.w.Write([]string{s.Corpus, s.Program, s.Member, fmt.Sprint(s.Seed), fmt.Sprint(s.Found), fmt.Sprint(s.Run),
		fmt.Sprint(s.Runs), fmt.Sprint(s.Exhausted), strconv.FormatFloat(s.Elapsed, 'g', 6, 64), oneLine(s.Err)})
	w.w.Flush()
	return w.w.Error()
}

// Close closes the file.
func (w *SampleWriter) Close() error { return w.f.Close() }

// ReadSamples reads a CSV file written by SampleWriter.
func ReadSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []Sample
	for i, row := range rows {
		if i == 0 && row[0] == sampleHeader[0] {
			continue
		}
		if len(row) != len(sampleHeader) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, i+1, len(row), len(sampleHeader))
		}
		var s Sample
		var errs [6]error
		s.Corpus, s.Program, s.Member, s.Err = row[0], row[1], row[2], row[9]
		s.Seed, errs[0] = strconv.ParseInt(row[3], 10, 64)
		s.Found, errs[1] = strconv.ParseBool(row[4])
		s.Run, errs[2] = strconv.Atoi(row[5])
		s.Runs, errs[3] = strconv.Atoi(row[6])
		s.Exhausted, errs[4] = strconv.ParseBool(row[7])
		s.Elapsed, errs[5] = strconv.ParseFloat(row[8], 64)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseSeeds parses "N" (seeds 1 to N) or "A-B" (seeds A to B).
func ParseSeeds(s string) ([]int64, error) {
	lo, hi := int64(1), int64(0)
	var err error
	if a, b, ok := strings.Cut(s, "-"); ok {
		if lo, err = strconv.ParseInt(a, 10, 64); err == nil {
			hi, err = strconv.ParseInt(b, 10, 64)
		}
	} else {
		hi, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil || lo < 1 || hi < lo {
		return nil, fmt.Errorf("bad seeds %q: want N or A-B with 1 ≤ A ≤ B", s)
	}
	var out []int64
	for x := lo; x <= hi; x++ {
		out = append(out, x)
	}
	return out, nil
}
