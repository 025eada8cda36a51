package strategy_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// schedules explores body with s for at most limit runs and returns every
// run's schedule and the number of runs.
func schedules(s engine.Strategy, limit int, body func()) []string {
	var out []string
	for run := 1; run <= limit && s.Begin(run); run++ {
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body)
		s.End(r)
		out = append(out, schedule(r))
	}
	return out
}

// TestSDPORReuseSameRuns: source DPOR rebuilding its pending events in
// place (pendingAt) makes exactly the runs, schedule by schedule, of one
// that builds each anew, on the families and the corpus.
func TestSDPORReuseSameRuns(t *testing.T) {
	type prog struct {
		name string
		body func()
	}
	progs := []prog{{"lastzero5", lastzero(5)}, {"readers5", readers(5)}, {"indexer12", indexer(12)}}
	for _, g := range generated {
		g := g
		progs = append(progs, prog{g.name, func() { g.body(new(outcome)) }})
	}
	for _, h := range handWritten {
		h := h
		progs = append(progs, prog{h.name, func() { h.body(new(outcome)) }})
	}
	if testing.Short() {
		progs = progs[:20]
	}
	for _, p := range progs {
		a, b := strategy.NewSourceDPOR(), strategy.NewSourceDPOR()
		strategy.SetDPORReuse(b, false)
		sa, sb := schedules(a, 3000, p.body), schedules(b, 3000, p.body)
		if len(sa) != len(sb) {
			t.Errorf("%s: %d runs with reuse, %d without", p.name, len(sa), len(sb))
			continue
		}
		for i := range sa {
			if sa[i] != sb[i] {
				t.Errorf("%s: run %d differs:\n  reuse:    %s\n  no reuse: %s", p.name, i+1, sa[i], sb[i])
				break
			}
		}
	}
}

// TestSDPORReusesEvents: source DPOR builds its pending events in place
// at a replayed node and in those of popped nodes, not anew: on
// lastzero(5) (hundreds of runs, a dozen choices a point) almost all.
func TestSDPORReusesEvents(t *testing.T) {
	d := strategy.NewSourceDPOR()
	runs := len(schedules(d, 100000, lastzero(5)))
	built, reused := strategy.DPOREvents(d)
	if runs < 100 {
		t.Fatalf("lastzero(5): %d runs, expected hundreds", runs)
	}
	if built*20 > built+reused {
		t.Errorf("lastzero(5), %d runs: %d pending events built anew, %d rebuilt in place: more than 5%% anew", runs, built, reused)
	}
}

// TestSDPORNoWakeupNodes: source DPOR builds no wakeup-tree nodes (only
// optimal DPOR follows them); before, every node of its stack had one,
// with a portable copy of the step taken made at every run's end (52 of
// the 768 MB lastzero-9's exploration allocated). Optimal DPOR still
// has them.
func TestSDPORNoWakeupNodes(t *testing.T) {
	for _, c := range []struct {
		d    *strategy.DPOR
		want bool
	}{{strategy.NewSourceDPOR(), false}, {strategy.NewOptimalDPOR(), true}} {
		cfg := engine.Config{Trace: true}
		max, runs := 0, 0
		for run := 1; c.d.Begin(run); run++ {
			c.d.End(engine.Run(cfg, c.d, lastzero(4)))
			if n := strategy.DPORWakeupNodes(c.d); n > max {
				max = n
			}
			runs++
		}
		if runs < 20 {
			t.Fatalf("lastzero(4): %d runs, expected dozens", runs)
		}
		if (max > 0) != c.want {
			t.Errorf("optimal %v: up to %d wakeup-tree nodes after a run, want them: %v (%s)", c.d.Optimal, max, c.want, c.d.Stats())
		}
	}
}
