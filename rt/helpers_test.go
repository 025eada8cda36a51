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
	outcomes, bugs = map[string]bool{}, map[string]int{}
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 200000 {
			t.Fatal("DFS did not finish within 200000 runs")
		}
		var out string
		res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, dfs, func() { out = body() })
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
