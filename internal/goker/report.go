package goker

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"heddle.dev/internal/event"
)

func sortStrings(s []string) { sort.Strings(s) }

// Cell is the table cell of a heddle result: the run of the first bug and
// the exploration time, "no" with the runs made, or what went wrong.
func (r *HeddleResult) Cell() string {
	switch {
	case r == nil:
		return "–"
	case r.Err != "" && strings.Contains(r.Err, "did not finish"):
		return "timeout" + r.stepMark()
	case r.Err != "":
		return "**error**"
	case !r.Found && strings.HasPrefix(r.Proven, "all schedules explored"):
		return fmt.Sprintf("none in any schedule%s%s (%d runs)%s", r.randMark(), r.racesMark(), r.Runs, r.stepMark())
	case !r.Found && r.Proven != "":
		// "all schedules with ≤ 1 delays explored, no bug, assuming no
		// data races ...": a bound was covered, not the whole space.
		// "all schedules in which no goroutine polls more than 2 times
		// in a row while another can run explored (up to equivalence)"
		// (the spin bound, explore.SpinClaim): the bound is what comes
		// between "all schedules" and "explored".
		head, _, _ := strings.Cut(r.Proven, ", no bug")
		bound, _, _ := strings.Cut(strings.TrimPrefix(head, "all schedules "), " explored")
		return fmt.Sprintf("no (%d runs; none %s%s%s)%s", r.Runs, bound, r.randMark(), r.racesMark(), r.stepMark())
	case !r.Found:
		return fmt.Sprintf("no (%d runs)%s", r.Runs, r.stepMark())
	case !r.Verdict.OK:
		return fmt.Sprintf("**wrong bug** (run %d)%s", r.Run, r.stepMark())
	}
	return fmt.Sprintf("%d · %s%s", r.Run, secs(r.Elapsed), r.stepMark())
}

// racesMark marks a proof that assumes the kernel has no data race: it
// was explored without -race and without its racy accesses as scheduling
// points, so a bug that needs a switch between two unsynchronized memory
// accesses is outside it.
func (r *HeddleResult) racesMark() string {
	if r.Races == "" || r.Races == event.RacesAssumed {
		return " †"
	}
	return ""
}

// randMark marks a proof that holds for the numbers math/rand gave with
// the seed used, not for others: the kernel's behaviour depends on them
// as well as on its schedule (Cockroach9935 fails only when rand.Intn
// returns some values), and a strategy whose runs use other seeds can
// still find its bug.
func (r *HeddleResult) randMark() string {
	if strings.Contains(r.Proven, "math/rand") {
		return " §"
	}
	return ""
}

// randLegend explains randMark under a table.
const randLegend = "§: the kernel draws numbers from math/rand, and the proof covers every schedule for the numbers drawn with the seed used, not for other numbers: strategies whose runs use other seeds (random, pct, pos, the default) can still find its bug."

// racesLegend explains racesMark under a table.
const racesLegend = "†: the proof assumes the kernel has no data race (heddle explored it without `-race` and without `-racy`): code between two scheduling points runs atomically, so a bug that needs a switch between two unsynchronized memory accesses is outside it."

// stepMark marks a result obtained with -disable steplimit after a first
// "step bound exceeded" report at run N.
func (r *HeddleResult) stepMark() string {
	if r.StepLimit == nil {
		return ""
	}
	return fmt.Sprintf(" ‡%d", r.StepLimit.Run)
}

// Cell is the table cell of the native baseline.
func (r *NativeResult) Cell() string {
	switch {
	case r == nil:
		return "–"
	case r.Err != "":
		return "**error**"
	case !r.Found:
		return fmt.Sprintf("not found (%d runs)", r.Runs)
	}
	s := fmt.Sprint(r.Run)
	if r.How == "deadlock detector" {
		s += " (Go deadlock)"
	}
	return s
}

func secs(s float64) string {
	switch {
	case s < 0.01:
		return fmt.Sprintf("%.1fms", s*1000)
	case s < 10:
		return fmt.Sprintf("%.2fs", s)
	}
	return fmt.Sprintf("%.0fs", s)
}

// Machine describes the machine the harness ran on.
func Machine() string {
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				if i := strings.Index(l, ":"); i >= 0 {
					cpu = strings.TrimSpace(l[i+1:])
				}
				break
			}
		}
	}
	if cpu == "" {
		cpu = "unknown CPU"
	}
	goVersion := runtime.Version()
	if out, err := exec.Command("go", "version").Output(); err == nil {
		goVersion = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%s, %d logical CPUs (GOMAXPROCS %d), %s/%s; %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, goVersion)
}

// Commit names the commit rev of the repository at moduleDir.
func Commit(moduleDir, rev string) string {
	cmd := exec.Command("git", "rev-parse", "--short=12", rev)
	cmd.Dir = moduleDir
	out, err := cmd.Output()
	if err != nil {
		return "unknown commit"
	}
	return "commit " + strings.TrimSpace(string(out))
}

// Markdown renders the results as docs/results/goker.md.
func (res *Results) Markdown(command, machine, commit string) string {
	var b strings.Builder
	cfg := res.Config
	strats := cfg.Strategies
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	// header writes a table's header row and its separator.
	header := func(cols ...string) {
		p("| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	}
	p("# heddle on the GoKer kernels\n\n")
	p("Generated by the harness in `internal/goker` (see [docs/goker.md](../goker.md) for what it does and what the columns mean). Do not edit by hand: rerun the command.\n\n")
	p("- command: `%s`\n", command)
	p("- machine: %s\n", machine)
	p("- heddle: %s\n", commit)
	p("- started %s; total wall time of the harness **%s**\n", res.Start.UTC().Format(time.RFC3339), res.Wall.Round(time.Second))
	cmd := "heddle test -json -budget %d [-strategy S] -run ^TestKernel$ ."
	if cfg.Via == ViaRun {
		cmd = "heddle run -json -budget %d [-strategy S] . -- Kernel"
	}
	p("- heddle: `"+cmd+"` per kernel, form and strategy; strategies: %s (`default` = no `-strategy` flag)\n", cfg.Budget, strings.Join(strats, ", "))
	if cfg.Native.Runs > 0 {
		p("- native: the single form built with plain `go test -c`, at most %d runs and %v per kernel, leak check with a %v grace period after each run, %d runs per process\n", cfg.Native.Runs, cfg.Native.Time, cfg.Native.Grace, cfg.Native.Batch)
	}
	p("- kernels: %d, from `$GOROOT/%s`\n\n", len(res.Kernels), Dir)

	// Totals.
	n := len(res.Kernels)
	p("## Totals\n\n")
	header(append(append([]string{""}, strats...), "native")...)
	for _, f := range cfg.Forms {
		p("| found, %s form (of %d) | ", f, n)
		for _, s := range strats {
			if !res.ran(f, s) {
				p("– | ")
				continue
			}
			p("%d | ", res.count(f, s))
		}
		if f == Single && cfg.Native.Runs > 0 {
			p("%d |\n", res.nativeCount())
		} else {
			p("– |\n")
		}
	}
	p("| of which only with `-disable steplimit` (‡) | ")
	for _, s := range strats {
		p("%d | ", res.countStep(Single, s))
	}
	p("– |\n")
	for _, f := range cfg.Forms {
		p("| exploration time, %s form | ", f)
		for _, s := range strats {
			if !res.ran(f, s) {
				p("– | ")
				continue
			}
			p("%s | ", secs(res.elapsed(f, s)))
		}
		if f == Single && cfg.Native.Runs > 0 {
			p("%s |\n", secs(res.nativeWall()))
		} else {
			p("– |\n")
		}
	}
	p("\n")
	if cfg.Native.Runs > 0 {
		ratios := res.ratios(DefaultStrategy)
		if len(ratios) > 0 {
			p("Median ratio of heddle's runs to the first bug (single form, default strategy) to native's, over the %d kernels both found: **%s** (heddle needs %s as many runs as native stress testing; below 1 means fewer).\n\n", len(ratios), ratioStr(median(ratios)), ratioStr(median(ratios)))
		}
	}
	wrong := res.problems()
	if len(wrong) == 0 {
		p("Every bug heddle reported meets the criterion: a leak or deadlock whose blocked goroutines are in the kernel's own functions and match the leaks the Go runtime's test expects.\n\n")
	} else {
		p("Problems (errors, and bugs that do not meet the criterion):\n\n")
		for _, w := range wrong {
			p("- %s\n", w)
		}
		p("\n")
	}

	if missed := res.missed(); len(missed) > 0 {
		p("## Kernels the default strategy did not find\n\n")
		if len(cfg.Prove) == 0 {
			p("No exhaustive search was run on them (`-prove` was empty).\n\n")
		} else {
			p("On each, the harness ran the exhaustive strategies %s with `-budget %d` on the single form. A search that explores every schedule without a bug shows that no schedule of the kernel, as heddle models Go, has the bug: not found is then not a miss but a proof of absence, under the assumption about data races that each proof states.\n\n", strings.Join(cfg.Prove, ", "), cfg.ProveBudget)
		}
		for _, kr := range missed {
			p("- **%s**", kr.Kernel.Name)
			for i, s := range sortedStrategies(kr.Proof) {
				sep := "; "
				if i == 0 {
					sep = ": "
				}
				p("%s%s: %s", sep, s, kr.Proof[s].ProofStr())
			}
			p("\n")
		}
		p("\n")
	}

	// Single form.
	p("## Single form (one copy of the buggy scenario per run)\n\n")
	p("Cell: run of the first bug · exploration time to it; `no (N runs)`: not found within the budget; `none in any schedule (N runs)`: an exhaustive strategy explored every schedule (DPOR: every equivalence class) in N runs without a bug. %s %s\n\n", racesLegend, randLegend)
	cols := append([]string{"kernel", "class", "copies as shipped"}, strats...)
	if cfg.Native.Runs > 0 {
		cols = append(cols, "native", "ratio")
	}
	header(cols...)
	for _, kr := range res.Kernels {
		k := kr.Kernel
		p("| %s | %s | %s | ", k.Name, classStr(k), kr.Copies)
		for _, s := range strats {
			p("%s | ", kr.Heddle[Single][s].Cell())
		}
		if cfg.Native.Runs > 0 {
			p("%s | %s |", kr.Native.Cell(), kr.ratioCell())
		}
		p("\n")
	}
	p("\n")

	if hasForm(cfg.Forms, Shipped) {
		p("## As shipped (the kernel's loop of copies kept)\n\n")
		p("Kernels without a loop of copies run one copy as shipped; their row repeats the single form (`=`).\n\n")
		shipped := cfg.ShippedStrategies
		if shipped == nil {
			shipped = strats
		}
		header(append([]string{"kernel", "copies"}, shipped...)...)
		for _, kr := range res.Kernels {
			p("| %s | %s | ", kr.Kernel.Name, kr.Copies)
			for _, s := range shipped {
				c := kr.Heddle[Shipped][s].Cell()
				if kr.Same {
					c = "= " + c
				}
				p("%s | ", c)
			}
			p("\n")
		}
		p("\n")
	}

	// Details: what was changed and what the bugs were.
	p("## Details\n\n")
	p("Per kernel: the changes made to the temporary copy, the goroutines of the first bug heddle reported in single form with the default strategy, and the native baseline's notes.\n\n")
	for _, kr := range res.Kernels {
		k := kr.Kernel
		p("### %s\n\n", k.Name)
		if kr.Err != "" {
			p("- harness error: %s\n\n", kr.Err)
			continue
		}
		for _, c := range kr.Changes[Single] {
			p("- %s\n", c)
		}
		if r := kr.Heddle[Single][DefaultStrategy]; r != nil {
			switch {
			case r.Err != "":
				p("- heddle error: %s\n", oneLine(r.Err))
			case !r.Found:
				p("- heddle found no bug in %d runs\n", r.Runs)
			default:
				p("- heddle (default): %s at run %d; %d blocked, %d match the expected leaks\n", r.Kind, r.Run, r.Verdict.NBlocked(), r.Verdict.Matched)
				for _, bl := range r.Verdict.Blocked {
					p("  - `%s`\n", bl.Raw)
				}
				if !r.Verdict.OK {
					p("  - **not the expected bug**: %s\n", r.Verdict.Why)
				}
			}
		}
		if nr := kr.Native; nr != nil {
			switch {
			case nr.Err != "":
				p("- native error: %s\n", oneLine(nr.Err))
			case nr.Found:
				p("- native: %s at run %d of %d (%s)\n", nr.How, nr.Run, nr.Runs, secs(nr.Wall))
			default:
				p("- native: not found in %d runs (%s)\n", nr.Runs, secs(nr.Wall))
			}
			for _, note := range nr.Notes {
				p("  - %s\n", oneLine(note))
			}
		}
		p("\n")
	}

	p("## Published numbers, for comparison\n\n")
	p("These come from other machines, other Go versions and other setups, on the original GoBench test files (68 blocking bugs, of which these 63 kernels are the ones the Go toolchain ships, rewritten as programs by the Go team); they are not measured here (../shared/reference/landscape.md §4.1, Appendix B):\n\n")
	p("- GoAT (IISWC 2021; Go 1.15.6, 64-core Xeon): 1,000 executions per bug; D2 (at most 2 injected yields) found 68/68, D0 60, D1 67, D3 and D4 67.\n")
	p("- In GoAT's setup, 1,000 runs per bug: goleak 56/68, Go's built-in deadlock detector 19/68, go-deadlock 26/68.\n")
	p("- GoBench artifact (up to 100,000 runs × 10 repeats, 10-minute cap per bug): goleak 43/68, go-deadlock 28/68, dingo-hunter 1/68.\n")
	p("- GoPie (ASE 2023, artifact): 66/68 (misses hugo#3251 and grpc#3017); GFuzz 18/68.\n\n")
	p("The native column above is this harness's own baseline on this machine: goleak-style detection plus Go's deadlock detector, on the single form.\n")
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func classStr(k *Kernel) string {
	if k.Class == "" {
		return "?"
	}
	return strings.TrimSuffix(k.Class, " Deadlock") + " / " + k.Subclass
}

func (res *Results) count(f Form, s string) int {
	c := 0
	for _, kr := range res.Kernels {
		if r := kr.Heddle[f][s]; r != nil && r.OK() {
			c++
		}
	}
	return c
}

func (res *Results) ran(f Form, s string) bool {
	for _, kr := range res.Kernels {
		if f == Shipped && kr.Same {
			continue // the single form's result, not a run of the shipped form
		}
		if kr.Heddle[f][s] != nil {
			return true
		}
	}
	return false
}

// missed lists the kernels whose bug the default strategy did not find in
// single form (or that were not measured).
func (res *Results) missed() []*KernelResult {
	var out []*KernelResult
	for _, kr := range res.Kernels {
		if r := kr.Heddle[Single][DefaultStrategy]; r == nil || !r.OK() {
			out = append(out, kr)
		}
	}
	return out
}

// ProofStr describes an exhaustive search's outcome in words.
func (r *HeddleResult) ProofStr() string {
	switch {
	case r.Err != "":
		return "failed: " + oneLine(r.Err)
	case r.Found && r.Verdict.OK:
		return fmt.Sprintf("found the bug at run %d", r.Run)
	case r.Found:
		return fmt.Sprintf("reported another bug at run %d: %s", r.Run, oneLine(r.Verdict.Why))
	case r.Proven != "" && r.Races == "":
		// From a heddle whose proofs did not state their assumption.
		return fmt.Sprintf("%s, assuming no data races (%d runs, %s)", r.Proven, r.Runs, secs(r.Elapsed))
	case r.Proven != "":
		return fmt.Sprintf("%s (%d runs, %s)", r.Proven, r.Runs, secs(r.Elapsed))
	}
	return fmt.Sprintf("no bug in %d runs, space not exhausted (%s)", r.Runs, secs(r.Elapsed))
}

func (res *Results) countStep(f Form, s string) int {
	c := 0
	for _, kr := range res.Kernels {
		if r := kr.Heddle[f][s]; r != nil && r.OK() && r.StepLimit != nil {
			c++
		}
	}
	return c
}

func (res *Results) elapsed(f Form, s string) float64 {
	t := 0.0
	for _, kr := range res.Kernels {
		if kr.Same && f == Shipped {
			continue
		}
		if r := kr.Heddle[f][s]; r != nil {
			t += r.Elapsed
		}
	}
	return t
}

func (res *Results) nativeCount() int {
	c := 0
	for _, kr := range res.Kernels {
		if kr.Native != nil && kr.Native.Found {
			c++
		}
	}
	return c
}

func (res *Results) nativeWall() float64 {
	t := 0.0
	for _, kr := range res.Kernels {
		if kr.Native != nil {
			t += kr.Native.Wall
		}
	}
	return t
}

// ratios are heddle's runs to the first bug over native's, per kernel both
// found.
func (res *Results) ratios(s string) []float64 {
	var out []float64
	for _, kr := range res.Kernels {
		r := kr.Heddle[Single][s]
		if r == nil || !r.OK() || kr.Native == nil || !kr.Native.Found {
			continue
		}
		out = append(out, float64(r.Run)/float64(kr.Native.Run))
	}
	return out
}

func (kr *KernelResult) ratioCell() string {
	r := kr.Heddle[Single][DefaultStrategy]
	if r == nil || !r.OK() || kr.Native == nil || !kr.Native.Found {
		return "–"
	}
	return ratioStr(float64(r.Run) / float64(kr.Native.Run))
}

func ratioStr(x float64) string {
	if x >= 10 || x == float64(int(x)) {
		return fmt.Sprintf("%.0f", x)
	}
	if x >= 0.01 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (res *Results) problems() []string {
	var out []string
	for _, kr := range res.Kernels {
		if kr.Err != "" {
			out = append(out, fmt.Sprintf("%s: harness error: %s", kr.Kernel.Name, oneLine(kr.Err)))
		}
		for _, f := range []Form{Single, Shipped} {
			if f == Shipped && kr.Same {
				continue
			}
			for _, s := range sortedStrategies(kr.Heddle[f]) {
				r := kr.Heddle[f][s]
				switch {
				case r.Err != "":
					out = append(out, fmt.Sprintf("%s, %s, %s: %s", kr.Kernel.Name, f, s, oneLine(r.Err)))
				case r.Found && !r.Verdict.OK:
					out = append(out, fmt.Sprintf("%s, %s, %s: %s", kr.Kernel.Name, f, s, oneLine(r.Verdict.Why)))
				}
			}
		}
	}
	return out
}
