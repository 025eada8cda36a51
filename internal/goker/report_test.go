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
		kr.Heddle[Shipped][s] = &HeddleResult{Strategy: s, Runs: 1000}
	}
	res := &Results{
		Config:  Config{Strategies: strats, Forms: []Form{Single, Shipped}, Native: NativeConfig{Runs: 10}, ShippedStrategies: strats[:1]},
		Kernels: []*KernelResult{kr},
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
	if tables < 3 {
		t.Errorf("found %d tables, want the totals, single-form and shipped-form ones:\n%s", tables, md)
	}
}
