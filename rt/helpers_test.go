package rt_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// exhaust explores body with DFS until the space is covered and returns
// the set of outcomes and the bugs seen, by kind.
func exhaust(t *testing.T, body func() string) (outcomes map[string]bool, bugs map[string]int, runs int) {
	t.Helper()
	return exhaustConfig(t, engine.Config{MaxStarve: 100 * time.Millisecond}, 200000, body)
}

// exhaustConfig is exhaust under cfg, failing the test past maxRuns runs.
func exhaustConfig(t *testing.T, cfg engine.Config, maxRuns int, body func() string) (outcomes map[string]bool, bugs map[string]int, runs int) {
	t.Helper()
	outcomes, bugs = map[string]bool{}, map[string]int{}
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > maxRuns {
			t.Fatalf("DFS did not finish within %d runs", maxRuns)
		}
		var out string
		res := engine.Run(cfg, dfs, func() { out = body() })
		dfs.End(res)
		if dfs.Diverged {
			t.Fatal("program diverged under a fixed schedule")
		}
		runs = run
		if res.Bug != nil {
			bugs[res.Bug.Kind]++
			continue
		}
		outcomes[out] = true
	}
	return outcomes, bugs, runs
}

func keys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " | ")
}
