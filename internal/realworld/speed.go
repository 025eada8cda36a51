package realworld

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"heddle.dev/internal/event"
)

// SpeedConfig is one measurement of heddle's cost per run against a
// native run, test by test (cmd/realworld -speed).
type SpeedConfig struct {
	Heddle string // the heddle binary measured
	Work   string // where modules are copied
	Budget string // heddle test's -budget, per test
	// NativeTime is how long each test runs natively: it runs
	// -test.count N times in one process, N chosen so that the N runs
	// take about NativeTime.
	NativeTime time.Duration
	// Timeout bounds each command (a native test, heddle on a package).
	Timeout time.Duration
	Log     io.Writer
}

// SpeedRow is one test: its native cost per run and heddle's.
type SpeedRow struct {
	Module, Package, Test string
	NativeRuns            int     // runs in the timed native process
	Native                float64 // seconds per native run
	NativeCPU             float64 // seconds of processor time per native run
	NativeErr             string  // the native runs failed (their time is still shown)
	HeddleRuns            int     // runs heddle made (its summary)
	Heddle                float64 // seconds per heddle run: the summary's elapsed over its runs
	HeddleCPU             float64 // seconds of processor time per heddle run
	HeddleErr             string  // no summary for the test
	// BoundRuns of heddle's runs the step bound (or the virtual time
	// bound) ended: with steplimit disabled a run stops there, having done
	// part of the test's work, so that heddle's cost per run is not a
	// whole run's.
	BoundRuns int
}

// CPURatio is Ratio in processor time, which the load of a shared machine
// hardly changes; 0 when either is missing.
func (r *SpeedRow) CPURatio() float64 {
	if r.NativeCPU <= 0 || r.HeddleCPU <= 0 {
		return 0
	}
	return r.HeddleCPU / r.NativeCPU
}

// testBinary finds the test binary in heddle test -x's output.
var testBinary = regexp.MustCompile(`go test -c -o (\S+)`)

// Ratio is heddle's cost per run over native's, or 0 when either is
// missing.
func (r *SpeedRow) Ratio() float64 {
	if r.Native <= 0 || r.Heddle <= 0 {
		return 0
	}
	return r.Heddle / r.Native
}

// allKinds are the kinds of bug that -speed disables: a test that reports
// a bug stops exploring at it and spends its time building the report,
// which says nothing about the cost of a run. With every kind disabled,
// every test runs its whole budget.
const allKinds = "deadlock,leak,panic,fail,misuse,steplimit,nondeterminism,blocked,race,timing"

// Speed measures every test of module m: natively (its package's test
// binary built by go test -c, one process per test running it
// -test.count N times, less the time the binary takes to start) and under
// heddle (the test binary heddle test builds, run right after one process
// per test as heddle test runs it, every bug kind disabled so that each
// test runs its whole budget; the summary's elapsed over its runs), in
// wall and processor time. Both are measured in the same invocation,
// package by package, so that they see the same machine.
func Speed(ctx context.Context, cfg SpeedConfig, m Module) ([]*SpeedRow, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	dir, err := Fetch(ctx, cfg.Work, m)
	if err != nil {
		return nil, err
	}
	c := command(ctx, cfg.Timeout, MaxRSS, dir, "go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}", "./...")
	if c.exit != 0 {
		return nil, fmt.Errorf("go list in %s: exit %d: %s", m.Path, c.exit, tailLines(string(c.stderr), 5))
	}
	var rows []*SpeedRow
	for _, line := range strings.Split(strings.TrimSpace(string(c.stdout)), "\n") {
		pkg, pdir, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
		pr, err := speedPackage(ctx, cfg, m, dir, pkg, pdir)
		if err != nil {
			fmt.Fprintf(cfg.Log, "realworld: %s: %v\n", pkg, err)
		}
		rows = append(rows, pr...)
	}
	return rows, nil
}

func speedPackage(ctx context.Context, cfg SpeedConfig, m Module, dir, pkg, pdir string) ([]*SpeedRow, error) {
	bin := filepath.Join(cfg.Work, "native-"+strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".test")
	if err := buildNative(ctx, cfg, dir, pkg, bin); err != nil {
		return nil, err
	}
	c := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.list", ".")
	var tests []string
	for _, l := range strings.Split(string(c.stdout), "\n") {
		if strings.HasPrefix(l, "Test") {
			tests = append(tests, strings.TrimSpace(l))
		}
	}
	if len(tests) == 0 {
		return nil, nil
	}
	// The binary's own start (runtime, init, flag parsing): subtracted
	// from every timed process.
	start, startCPU := math.Inf(1), math.Inf(1)
	for range 3 {
		c := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", "^$")
		start, startCPU = math.Min(start, c.wall), math.Min(startCPU, c.cpu)
	}
	byTest := map[string]*SpeedRow{}
	var rows []*SpeedRow
	for _, t := range tests {
		r := &SpeedRow{Module: m.Path, Package: pkg, Test: t}
		rows = append(rows, r)
		byTest[t] = r
		run := "^" + t + "$"
		one := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", run, "-test.count", "1")
		per := math.Max(one.wall-start, 1e-6)
		r.NativeRuns, r.Native, r.NativeCPU = 1, per, math.Max(one.cpu-startCPU, 1e-6)
		if one.exit != 0 {
			r.NativeErr = nativeErr(one)
		}
		n := int(math.Min(cfg.NativeTime.Seconds()/per, 100000))
		if n <= 1 || one.exit != 0 {
			continue
		}
		// The fastest of three: on a shared machine, the others' load only
		// ever slows a process down.
		r.NativeRuns, r.Native, r.NativeCPU = n, math.Inf(1), math.Inf(1)
		for range 3 {
			cn := command(ctx, cfg.Timeout, MaxRSS, pdir, bin, "-test.run", run, "-test.count", fmt.Sprint(n))
			r.Native = math.Min(r.Native, math.Max(cn.wall-start, 1e-6)/float64(n))
			r.NativeCPU = math.Min(r.NativeCPU, math.Max(cn.cpu-startCPU, 1e-6)/float64(n))
			if cn.exit != 0 {
				r.NativeErr = nativeErr(cn)
				break
			}
		}
	}
	rel, err := filepath.Rel(dir, pdir)
	if err != nil {
		return rows, err
	}
	// heddle's test binary, as heddle test builds it; run below as heddle
	// test runs it, with its configuration in the environment.
	hb := command(ctx, cfg.Timeout, MaxRSS, dir, cfg.Heddle, "test", "-x", "-run", "^$", "./"+filepath.ToSlash(rel))
	tb := testBinary.FindSubmatch(hb.stderr)
	if tb == nil {
		for _, r := range rows {
			r.HeddleErr = fmt.Sprintf("no test binary (heddle test exit %d%s)", hb.exit, errSuffix(tailLines(string(hb.stdout)+string(hb.stderr), 2)))
		}
		return rows, nil
	}
	hbin := string(tb[1])
	hstart := math.Inf(1)
	for range 3 {
		hstart = math.Min(hstart, command(ctx, cfg.Timeout, MaxRSS, pdir, hbin, "-test.run", "^$").cpu)
	}
	events := filepath.Join(cfg.Work, "speed-events.jsonl")
	budget, err := time.ParseDuration(cfg.Budget)
	if err != nil {
		return rows, fmt.Errorf("-budget %q: -speed takes a duration", cfg.Budget)
	}
	for _, r := range rows {
		// A number of runs, not a time: a time budget ends the run
		// still going when it is up, which counts as a run. As many as
		// would take the budget at 5× native (3 to 1000), and ten times
		// the budget at most, for the tests that cost more.
		runs := int(min(max(budget.Seconds()/(5*r.NativeCPU), 3), 1000))
		hcfg, _ := json.Marshal(map[string]any{
			"Runs": runs, "Time": 10 * budget, "Budget": fmt.Sprint(runs), "Events": events, "OutDir": cfg.Work,
			"Disable": strings.Split(allKinds, ","),
		})
		os.Remove(events)
		c := commandEnv(ctx, cfg.Timeout, MaxRSS, pdir, []string{"HEDDLE_CONFIG=" + string(hcfg)}, hbin, "-test.run", "^"+r.Test+"$")
		b, _ := os.ReadFile(events)
		for _, line := range bytes.Split(b, []byte("\n")) {
			var e event.Event
			if json.Unmarshal(line, &e) == nil && e.Action == event.Summary && e.Test == r.Test && e.Runs > 0 {
				r.HeddleRuns, r.Heddle, r.BoundRuns = e.Runs, e.Elapsed/float64(e.Runs), e.BoundRuns
				r.HeddleCPU = math.Max(c.cpu-hstart, 0) / float64(e.Runs)
			}
		}
		if r.HeddleRuns == 0 {
			r.HeddleErr = fmt.Sprintf("no summary (exit %d%s)", c.exit, errSuffix(tailLines(string(c.stdout)+string(c.stderr), 2)))
		}
	}
	fmt.Fprintf(cfg.Log, "realworld: %s: %d tests measured\n", pkg, len(rows))
	return rows, nil
}

// buildNative builds pkg's native test binary at bin, in module directory
// dir. Without vet: go test -c runs go vet's checks too and fails the
// build on one (cenkalti/backoff/v4's example of an identifier it no
// longer has), while the tests themselves build and run, as they do
// under heddle test.
func buildNative(ctx context.Context, cfg SpeedConfig, dir, pkg, bin string) error {
	if c := command(ctx, cfg.Timeout, MaxRSS, dir, "go", "test", "-c", "-vet=off", "-o", bin, pkg); c.exit != 0 {
		return fmt.Errorf("go test -c: exit %d: %s", c.exit, tailLines(string(c.stdout)+string(c.stderr), 5))
	}
	return nil
}

func nativeErr(c result) string {
	switch {
	case c.timedOut:
		return "timed out"
	case c.killed != "":
		return c.killed
	}
	return fmt.Sprintf("exit %d", c.exit)
}

// SpeedMarkdown renders the rows as docs/results/speed.md: the tests whose
// native run takes at least min, by decreasing ratio.
func SpeedMarkdown(rows []*SpeedRow, min time.Duration, command, machine, commit string, wall time.Duration, cfg SpeedConfig) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var slow []*SpeedRow
	fast := 0
	for _, r := range rows {
		if r.Native >= min.Seconds() {
			slow = append(slow, r)
		} else {
			fast++
		}
	}
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].CPURatio() > slow[j].CPURatio() })
	p("# heddle's cost per run on real tests\n\n")
	p("Generated by `%s` with %s, on %s, in %s.\n\n", command, commit, machine, wall.Round(time.Second))
	p("For every test of the modules measured, package by package. Native: the test binary of `go test -c` runs the test alone, `-test.count N` times in one process, N chosen so that this takes about %v; three times, the fastest counting, less the binary's start (`-test.run '^$'`, fastest of three). heddle: the test binary `heddle test` builds runs the test alone as `heddle test` runs it (its configuration in `HEDDLE_CONFIG`), as many runs as would take `-budget %s` at 5× the native processor time (3 to 1000; ten times that time at most), with every bug kind disabled so that it runs its whole budget; a run costs the test's summary `Elapsed` over its `Runs`, which includes the determinism check's replay and everything else the exploration does. Each is given in wall time and in processor time (user and system, of the process, less the binary's start): the machine is shared, and its load slows wall times by up to its load average over its 2 processors, while processor time hardly moves. A native test that uses both processors uses more processor time than wall time; heddle explores on one.\n\n", cfg.NativeTime, cfg.Budget)
	over, overWall, bound := 0, 0, 0
	for _, r := range slow {
		if r.BoundRuns > 0 {
			bound++
			continue
		}
		if r.CPURatio() > 5 {
			over++
		}
		if r.Ratio() > 5 {
			overWall++
		}
	}
	p("%d tests whose native run takes at least %v of wall time (%d faster tests left out); %d of them cost heddle more than 5× native per run in processor time, %d in wall time. By decreasing ratio in processor time.", len(slow), min, fast, over, overWall)
	if bound > 0 {
		p(" Not counted: %d whose heddle runs end at the step bound (steplimit is disabled, so a run that reaches the bound stops there, having done part of the test's work): their ratio compares part of a run with a whole native run, and is not a cost per run.", bound)
	}
	p("\n\n")
	p("| module | package | test | native wall | native CPU | native runs | heddle wall | heddle CPU | heddle runs | heddle/native CPU | wall |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range slow {
		sub := strings.TrimPrefix(strings.TrimPrefix(r.Package, r.Module), "/")
		if sub == "" {
			sub = "."
		}
		nat := dur(r.Native)
		if r.NativeErr != "" {
			nat += " (" + cell(r.NativeErr) + ")"
		}
		if r.HeddleErr != "" {
			p("| %s | %s | %s | %s | %s | %d | %s | | 0 | | |\n", r.Module, sub, r.Test, nat, dur(r.NativeCPU), r.NativeRuns, cell(r.HeddleErr))
			continue
		}
		if r.BoundRuns > 0 {
			p("| %s | %s | %s | %s | %s | %d | %s | %s | %d | %.1f×: runs end at the step bound (%d of %d), not a per-run ratio | %.1f× |\n", r.Module, sub, r.Test, nat, dur(r.NativeCPU), r.NativeRuns, dur(r.Heddle), dur(r.HeddleCPU), r.HeddleRuns, r.CPURatio(), r.BoundRuns, r.HeddleRuns, r.Ratio())
			continue
		}
		p("| %s | %s | %s | %s | %s | %d | %s | %s | %d | %.1f× | %.1f× |\n", r.Module, sub, r.Test, nat, dur(r.NativeCPU), r.NativeRuns, dur(r.Heddle), dur(r.HeddleCPU), r.HeddleRuns, r.CPURatio(), r.Ratio())
	}
	return b.String()
}

// dur formats seconds with three significant digits.
func dur(s float64) string {
	d := time.Duration(s * 1e9)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3gs", s)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3gms", s*1e3)
	}
	return fmt.Sprintf("%.3gµs", s*1e6)
}
