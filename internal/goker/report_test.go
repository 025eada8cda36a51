package goker

import (
	"strings"
	"testing"
)

// TestMarkdownTablesAreRectangular renders a small result and checks that
// every row of every table has as many cells as its header.
func TestMarkdownTablesAreRectangular(t *testing.T) {
	strats := []string{DefaultStrategy, "random", "pct"}
	k := &Kernel{Name: "Etcd0000", File: "etcd0000.go", Key: "etcd0000", Class: "Resource Deadlock", Subclass: "AB-BA deadlock"}
	kr := &KernelResult{
		Kernel: k,
		Copies: "100",
		Heddle: map[Form]map[string]*HeddleResult{Single: {}, Shipped: {}},
		Native: &NativeResult{Found: true, How: "leak check", Run: 3, Runs: 3},
	}
	for _, s := range strats {
		kr.Heddle[Single][s] = &HeddleResult{Strategy: s, Found: true, Run: 1, Runs: 1, Verdict: Verdict{OK: true}}
	}
	kr.Heddle[Shipped][DefaultStrategy] = &HeddleResult{Strategy: DefaultStrategy, Runs: 1000}
	// A kernel without a copy loop (its shipped results are the single
	// ones) whose bug nothing finds, and that the proof searches exhaust.
	k2 := &Kernel{Name: "Moby0000", File: "moby0000.go", Key: "moby0000", Class: "Communication Deadlock", Subclass: "Channel"}
	kr2 := &KernelResult{
		Kernel: k2,
		Copies: "1",
		Same:   true,
		Heddle: map[Form]map[string]*HeddleResult{Single: {}},
		Native: &NativeResult{Runs: 10},
		Proof: map[string]*HeddleResult{
			"dfs":   {Strategy: "dfs", Runs: 4468, Exhausted: true, Proven: "all schedules explored, no bug"},
			"odpor": {Strategy: "odpor", Runs: 100000},
		},
	}
	for _, s := range strats {
		kr2.Heddle[Single][s] = &HeddleResult{Strategy: s, Runs: 1000}
	}
	kr2.Heddle[Single]["random"] = &HeddleResult{Strategy: "random", Runs: 1000, Proven: "all schedules with ≤ 1 delays explored, no bug"}
	kr2.Heddle[Single]["pct"] = &HeddleResult{Strategy: "pct", Runs: 26, Exhausted: true, Proven: "all schedules explored (up to equivalence), no bug, assuming no data races (run with -race to check)", Races: "assumed"}
	// A proof made under -race, which assumes nothing, is not marked.
	kr2.Heddle[Single][DefaultStrategy] = &HeddleResult{Strategy: DefaultStrategy, Runs: 30, Exhausted: true, Proven: "all schedules explored, no bug, and -race saw no data race", Races: "checked"}
	kr2.Heddle[Shipped] = kr2.Heddle[Single]
	res := &Results{
		Config:  Config{Strategies: strats, Forms: []Form{Single, Shipped}, Native: NativeConfig{Runs: 10}, ShippedStrategies: strats[:1], Prove: []string{"dfs", "odpor"}, ProveBudget: 100000},
		Kernels: []*KernelResult{kr, kr2},
	}
	md := res.Markdown("go run ./cmd/goker", "test machine", "0000000")
	tables := 0
	width := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			width = -1
			continue
		}
		n := strings.Count(strings.TrimSpace(line), "|") - 1
		if width < 0 {
			width = n
			tables++
			continue
		}
		if n != width {
			t.Errorf("row with %d cells in a table of %d:\n%s", n, width, line)
		}
	}
	// A proof on a kernel that draws from math/rand holds for the seed's
	// numbers only (Cockroach9935): its cell says so.
	rnd := &HeddleResult{Strategy: "odpor", Runs: 1, Exhausted: true, Proven: "all schedules explored (up to equivalence) (for the map orders and math/rand numbers of -seed 1), no bug, assuming no data races (run with -race to check)", Races: "assumed"}
	if got, want := rnd.Cell(), "none in any schedule § † (1 runs)"; got != want {
		t.Errorf("cell of a proof under math/rand: %q, want %q", got, want)
	}
	// A proof bounded by the spin bound (explore.SpinClaim) covers the
	// schedules within it only: its cell says which.
	spin := &HeddleResult{Strategy: "odpor", Runs: 7, Proven: "all schedules in which no goroutine polls more than 2 times in a row while another can run explored (up to equivalence), no bug, and -race saw no data race", Races: "checked"}
	if got, want := spin.Cell(), "no (7 runs; none in which no goroutine polls more than 2 times in a row while another can run)"; got != want {
		t.Errorf("cell of a proof up to the spin bound: %q, want %q", got, want)
	}
	for _, want := range []string{
		"§: the kernel draws numbers from math/rand",
		"| found, shipped form (of 2) | 0 | – | – | – |", // strategies not run on the shipped form are not counted
		"| none in any schedule (30 runs) | no (1000 runs; none with ≤ 1 delays †) | none in any schedule † (26 runs) |",
		"- **Moby0000**: dfs: all schedules explored, no bug, assuming no data races (4468 runs, 0.0ms); odpor: no bug in 100000 runs, space not exhausted (0.0ms)",
		"†: the proof assumes the kernel has no data race",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if tables < 3 {
		t.Errorf("found %d tables, want the totals, single-form and shipped-form ones:\n%s", tables, md)
	}
}
