package strategy

import (
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// standIn is a portfolio member that makes no choice and ends after last
// runs (never if last is 0).
type standIn struct{ last int }

func (s standIn) Begin(run int) bool     { return s.last == 0 || run <= s.last }
func (standIn) Choose(*engine.Point) int { return 0 }
func (standIn) End(*engine.Result)       {}

func member(name string, warmup, weight, last int) PortfolioMember {
	return PortfolioMember{name, warmup, weight, func(int64) engine.Strategy { return standIn{last} }}
}

// members returns the member of each run until the portfolio ends or max
// runs were made.
func members(p *Portfolio, max int) string {
	var out []string
	for run := 1; run <= max && p.Begin(run); run++ {
		out = append(out, p.Current())
		p.End(&engine.Result{})
	}
	return strings.Join(out, " ")
}

func TestPortfolioOrder(t *testing.T) {
	mix := []PortfolioMember{member("a", 2, 1, 0), member("b", 0, 2, 0), member("c", 1, 1, 0)}
	got := members(NewPortfolioOf(mix, 1), 11)
	// Warm-ups in mix order, then the rotation from its start.
	want := "a a c a b b c a b b c"
	if got != want {
		t.Errorf("runs: %s\nwant: %s", got, want)
	}
}

func TestPortfolioDropsEndedMembers(t *testing.T) {
	// a ends during its warm-up, b after 3 runs, c after 4: the others
	// take their turns, and the portfolio ends with the last one.
	mix := []PortfolioMember{member("a", 3, 1, 1), member("b", 0, 1, 3), member("c", 0, 2, 4)}
	got := members(NewPortfolioOf(mix, 1), 100)
	want := "a b c c b c c b"
	if got != want {
		t.Errorf("runs: %s\nwant: %s", got, want)
	}
}

// TestDefaultMixProportions checks that the default portfolio gives each
// member its warm-up and then its weight's share of the runs.
func TestDefaultMixProportions(t *testing.T) {
	mix := DefaultMix()
	warm, cycle := 0, 0
	seen := map[string]bool{}
	for _, m := range mix {
		if seen[m.Name] {
			t.Fatalf("member %s twice", m.Name)
		}
		seen[m.Name] = true
		if m.New(1) == nil {
			t.Fatalf("member %s: no strategy", m.Name)
		}
		warm += m.Warmup
		cycle += m.Weight
	}
	if cycle == 0 {
		t.Fatal("no member in the rotation")
	}
	stand := make([]PortfolioMember, len(mix))
	for i, m := range mix {
		stand[i] = member(m.Name, m.Warmup, m.Weight, 0)
	}
	const cycles = 7
	count := map[string]int{}
	for _, name := range strings.Fields(members(NewPortfolioOf(stand, 1), warm+cycles*cycle)) {
		count[name]++
	}
	for _, m := range mix {
		if want := m.Warmup + cycles*m.Weight; count[m.Name] != want {
			t.Errorf("%s: %d runs, want %d", m.Name, count[m.Name], want)
		}
	}
}

// TestPortfolioFixedRandom: the systematic members replay prefixes, so the
// program's random numbers stay fixed in their runs only.
func TestPortfolioFixedRandom(t *testing.T) {
	p := NewPortfolioOf([]PortfolioMember{
		{"idb", 1, 0, func(int64) engine.Strategy { return NewIDB(2) }},
		{"random", 0, 1, func(s int64) engine.Strategy { return NewRandom(s) }},
	}, 1)
	for run, want := range []bool{true, false, false} {
		if !p.Begin(run + 1) {
			t.Fatalf("run %d: portfolio ended", run+1)
		}
		if got := p.FixedRandom(); got != want {
			t.Errorf("run %d (%s): FixedRandom %v, want %v", run+1, p.Current(), got, want)
		}
		p.End(&engine.Result{})
	}
}

// TestPortfolioTracesOnlyForMembersThatNeedIt: the default portfolio asks
// for a trace on the runs of POS, which reads it, and not on the others,
// whose runs are faster without one.
func TestPortfolioTracesOnlyForMembersThatNeedIt(t *testing.T) {
	p := NewPortfolio(1, 3)
	sawTrace, sawNone := false, false
	for run := 1; run <= 14 && p.Begin(run); run++ {
		_, pos := p.cur.s.(*POS)
		if got := p.NeedsTrace(); got != pos {
			t.Errorf("run %d (%s): NeedsTrace() = %v, want %v", run, p.Current(), got, pos)
		}
		sawTrace = sawTrace || pos
		sawNone = sawNone || !pos
		p.End(&engine.Result{})
	}
	if !sawTrace || !sawNone {
		t.Errorf("14 runs of the default portfolio: a run with a trace %v, one without %v; want both", sawTrace, sawNone)
	}
}
