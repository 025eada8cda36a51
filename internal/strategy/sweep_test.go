package strategy_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestSweep compares source, optimal and lazy DPOR with DFS on every
// generated program, as TestDifferential does, and writes one line per
// program to the file $HEDDLE_SWEEP (lines of wrong programs start with
// BAD; a program whose DFS takes over 20,000 runs is skipped). It is for
// sweeps of more seeds: set genFirst and genCount locally, rewrite the
// corpus (go test ./internal/strategy -run TestGeneratedCorpusUpToDate
// -update), then run HEDDLE_SWEEP=out.txt go test ./internal/strategy
// -run TestSweep -timeout 1h.
func TestSweep(t *testing.T) {
	out := os.Getenv("HEDDLE_SWEEP")
	if out == "" {
		t.Skip("HEDDLE_SWEEP is not set")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, skipped, bad := 0, 0, 0
	for _, g := range generated {
		dfs := exploreUpTo(strategy.NewDFS(0), 20000, g.body)
		if dfs == nil {
			skipped++
			fmt.Fprintf(f, "%s SKIP dfs over 20000 runs\n", g.name)
			continue
		}
		n++
		line := fmt.Sprintf("%s dfs=%d states=%d", g.name, dfs.runs, len(dfs.states))
		ok := true
		for _, s := range []struct {
			name string
			s    engine.Strategy
			lazy bool
		}{{"sdpor", strategy.NewSourceDPOR(), false}, {"odpor", strategy.NewOptimalDPOR(), false}, {"lazy", strategy.NewLazyDPOR(), true}} {
			x := exploreUpTo(s.s, 20000, g.body)
			if x == nil {
				line += " " + s.name + "=over20000"
				ok = false
				continue
			}
			line += fmt.Sprintf(" %s=%d", s.name, x.runs)
			want, got := dfs.states, x.states
			if s.lazy {
				want, got = dfs.lazyStates, x.lazyStates
				if w, _ := s.s.(strategy.Warner); w != nil && len(w.Warnings()) > 0 {
					// seed-004 §5.4: it may miss states, not reach others.
					line += "(warned)"
					if m := missing(got, want); len(m) > 0 {
						line += fmt.Sprintf("(extra %d)", len(m))
						ok = false
					}
					continue
				}
			}
			m, e, mb := missing(want, got), missing(got, want), missing(dfs.bugs, x.bugs)
			if len(m) > 0 || len(e) > 0 || len(mb) > 0 {
				line += fmt.Sprintf("(misses %d, extra %d, misses %d bugs)", len(m), len(e), len(mb))
				ok = false
			}
		}
		if !ok {
			bad++
			line = "BAD " + line
		}
		fmt.Fprintln(f, line)
	}
	fmt.Fprintf(f, "%d compared, %d skipped, %d bad\n", n, skipped, bad)
	if bad > 0 {
		t.Errorf("%d of %d programs bad: see %s", bad, n, out)
	}
}

// exploreUpTo is exploreProgram, or nil if the exploration takes over
// limit runs.
func exploreUpTo(s engine.Strategy, limit int, prog func(*outcome)) *explored {
	cc := strategy.NewClassCounter(s)
	x := &explored{states: map[string]bool{}, lazyStates: map[string]bool{}, outcomes: map[string]bool{}, bugs: map[string]bool{}}
	var o *outcome
	body := func() {
		o = &outcome{}
		prog(o)
	}
	for run := 1; cc.Begin(run); run++ {
		if run > limit {
			return nil
		}
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, cc, body)
		cc.End(r)
		x.runs++
		res := o.String() + bugKey(r.Bug)
		x.states[cc.Last+"\n=> "+res] = true
		x.lazyStates[cc.LastLazy+"\n=> "+res] = true
		x.outcomes[res] = true
		if r.Bug != nil {
			x.bugs[bugKey(r.Bug)] = true
		}
	}
	return x
}
