package goker

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// The portfolio simulator: given, per program, samples of runs to the first
// bug for each member strategy (MeasureSeeds), it computes what a candidate
// mix of those members would do, run by run, without running it. The
// portfolio's run order is taken from strategy.Portfolio itself (driven
// with stand-in members), so the simulator follows the real rotation.
//
// The members are assumed independent: the portfolio's first bug is at
// the first run k at which some member m reaches its own first bug, the
// j-th run of m, where j is the number of runs m got among the first k.
// P(no bug in the first k runs) is the product over the members of
// P(T_m > j_m(k)), each estimated from the samples: the fraction of seeds
// whose first bug came after run j (or never, within the budget). A
// deterministic member has one sample: its first bug is at a fixed run,
// and a member that covered its whole space without the bug drops out of
// the rotation after its last run, as in the real portfolio.

// MixString formats a mix as member:warmup:weight,...
func MixString(mix []strategy.PortfolioMember) string {
	var parts []string
	for _, m := range mix {
		parts = append(parts, fmt.Sprintf("%s:%d:%d", m.Name, m.Warmup, m.Weight))
	}
	return strings.Join(parts, ",")
}

// ParseMix parses a mix written as member:warmup:weight,... (in rotation
// order), the inverse of MixString. Its members have no New function.
func ParseMix(s string) ([]strategy.PortfolioMember, error) {
	var mix []strategy.PortfolioMember
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		if len(f) != 3 || f[0] == "" {
			return nil, fmt.Errorf("bad mix member %q: want name:warmup:weight", part)
		}
		w, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || w < 0 || n < 0 {
			return nil, fmt.Errorf("bad mix member %q: warm-up and weight are counts", part)
		}
		mix = append(mix, strategy.PortfolioMember{Name: f[0], Warmup: w, Weight: n})
	}
	return mix, nil
}

// Estimate is a mix's expected behaviour on one program.
type Estimate struct {
	Corpus, Program string
	// Within[i] is the probability that the bug is found within
	// Checkpoints[i] runs.
	Within []float64
	// Runs is the expected number of runs to the first bug, counting a
	// bug not found within the budget as the budget.
	Runs float64
	// Seconds is the expected exploration time to the first bug (or to the
	// end of the budget), from each member's mean time per run.
	Seconds float64
}

// Evaluation is a mix's expected behaviour on a corpus.
type Evaluation struct {
	Mix      string
	Programs []Estimate
	// Found[i] is the expected number of programs whose bug is found
	// within Checkpoints[i] runs.
	Found []float64
	// MeanRuns and GeoRuns are the arithmetic and geometric means of
	// Estimate.Runs over the programs; Seconds is the sum of
	// Estimate.Seconds.
	MeanRuns, GeoRuns, Seconds float64
}

// Checkpoints are the run counts at which Evaluation.Found is given.
var Checkpoints = []int{1, 10, 100, 1000}

// memberData is what the samples say about one member on one program.
type memberData struct {
	surv    []float64 // surv[j]: P(no bug in the member's first j runs), j = 0..budget
	last    int       // > 0: the member drops out after this many runs
	perRun  float64   // mean seconds per run
	samples int
}

type programKey struct{ corpus, program string }

// Samples indexes samples by program and member.
type Samples struct {
	Budget   int
	programs []programKey
	data     map[programKey]map[string]*memberData
}

// IndexSamples indexes samples (of a measurement with this budget).
func IndexSamples(ss []Sample, budget int) *Samples {
	idx := &Samples{Budget: budget, data: map[programKey]map[string]*memberData{}}
	group := map[programKey]map[string][]Sample{}
	for _, s := range ss {
		k := programKey{s.Corpus, s.Program}
		if group[k] == nil {
			group[k] = map[string][]Sample{}
			idx.programs = append(idx.programs, k)
		}
		group[k][s.Member] = append(group[k][s.Member], s)
	}
	sort.Slice(idx.programs, func(i, j int) bool {
		a, b := idx.programs[i], idx.programs[j]
		return a.corpus < b.corpus || a.corpus == b.corpus && a.program < b.program
	})
	for k, byMember := range group {
		idx.data[k] = map[string]*memberData{}
		for m, list := range byMember {
			idx.data[k][m] = newMemberData(list, budget)
		}
	}
	return idx
}

func newMemberData(list []Sample, budget int) *memberData {
	d := &memberData{surv: make([]float64, budget+1), samples: len(list)}
	var secs float64
	runs := 0
	for _, s := range list {
		first := budget + 1 // not found within the budget
		if s.Found {
			first = s.Run
		}
		for j := 0; j <= budget && j < first; j++ {
			d.surv[j]++
		}
		if s.Runs > 0 && s.Err == "" {
			secs += s.Elapsed
			runs += s.Runs
		}
	}
	for j := range d.surv {
		d.surv[j] /= float64(len(list))
	}
	if len(list) == 1 && list[0].Exhausted && !list[0].Found {
		d.last = list[0].Runs
	}
	if runs > 0 {
		d.perRun = secs / float64(runs)
	}
	return d
}

// Members lists the members measured on every program.
func (idx *Samples) Members() []string {
	count := map[string]int{}
	for _, k := range idx.programs {
		for m := range idx.data[k] {
			count[m]++
		}
	}
	var out []string
	for m, n := range count {
		if n == len(idx.programs) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// Findable reports whether some sample of some member found the program's
// bug.
func (idx *Samples) findable(k programKey) bool {
	for _, d := range idx.data[k] {
		if d.surv[idx.Budget] < 1 {
			return true
		}
	}
	return false
}

// standIn is a member of a simulated portfolio: it only tells when the
// member drops out.
type standIn struct{ last int }

func (s standIn) Begin(run int) bool     { return s.last == 0 || run <= s.last }
func (standIn) Choose(*engine.Point) int { return 0 }
func (standIn) End(*engine.Result)       {}
func standInNew(last int) func(int64) engine.Strategy {
	return func(int64) engine.Strategy { return standIn{last} }
}

// order returns, for each run of the portfolio (up to budget), the index in
// mix of the member that makes it.
func order(mix []strategy.PortfolioMember, last []int, budget int) []int {
	m := make([]strategy.PortfolioMember, len(mix))
	pos := map[string]int{}
	for i, x := range mix {
		m[i] = x
		m[i].New = standInNew(last[i])
		pos[x.Name] = i
	}
	p := strategy.NewPortfolioOf(m, 1)
	var seq []int
	for run := 1; run <= budget && p.Begin(run); run++ {
		seq = append(seq, pos[p.Current()])
		p.End(&engine.Result{})
	}
	return seq
}

// Simulate evaluates a mix on every program where some measured member
// finds the bug (the others add the same to every mix).
func (idx *Samples) Simulate(mix []strategy.PortfolioMember) (*Evaluation, error) {
	ev := &Evaluation{Mix: MixString(mix), Found: make([]float64, len(Checkpoints))}
	seen := map[string]bool{}
	for _, m := range mix {
		if seen[m.Name] {
			return nil, fmt.Errorf("mix %s: %s twice", ev.Mix, m.Name)
		}
		seen[m.Name] = true
	}
	orders := map[string][]int{}
	logSum := 0.0
	for _, k := range idx.programs {
		if !idx.findable(k) {
			continue
		}
		ds := make([]*memberData, len(mix))
		last := make([]int, len(mix))
		for i, m := range mix {
			ds[i] = idx.data[k][m.Name]
			if ds[i] == nil {
				return nil, fmt.Errorf("no samples of %s on %s", m.Name, k.program)
			}
			last[i] = ds[i].last
		}
		key := fmt.Sprint(last)
		seq, ok := orders[key]
		if !ok {
			seq = order(mix, last, idx.Budget)
			orders[key] = seq
		}
		e := Estimate{Corpus: k.corpus, Program: k.program, Within: make([]float64, len(Checkpoints))}
		j := make([]int, len(mix))
		surv := 1.0 // P(no bug in the runs so far)
		for run := 1; run <= idx.Budget; run++ {
			e.Runs += surv
			if run <= len(seq) {
				i := seq[run-1]
				e.Seconds += surv * ds[i].perRun
				j[i]++
				surv = 1
				for i, d := range ds {
					surv *= d.surv[j[i]]
				}
			}
			for c, n := range Checkpoints {
				if n == run {
					e.Within[c] = 1 - surv
				}
			}
		}
		for c := range Checkpoints {
			ev.Found[c] += e.Within[c]
		}
		ev.MeanRuns += e.Runs
		logSum += math.Log(e.Runs)
		ev.Seconds += e.Seconds
		ev.Programs = append(ev.Programs, e)
	}
	if n := float64(len(ev.Programs)); n > 0 {
		ev.MeanRuns /= n
		ev.GeoRuns = math.Exp(logSum / n)
	}
	return ev, nil
}
