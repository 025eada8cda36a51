package strategy_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// TestODSplitDefersLateSequences (issue 12): a late sequence of a split
// optimal DPOR that ends below the node of a unit being explored waits
// until that unit, asked for its rest at once, has handed it back, and
// then goes into the wakeup tree of the unit of that rest it ends in, as
// the sequential insert puts it into a wakeup tree not explored yet.
// Before, it became a unit of its own that slept nothing the running
// unit explored: on readers(8), units of 3 and 8 runs on 2 and 3 workers
// made 275 to 439 runs for the sequential 256 (readers(15) with heddle
// -parallel 2: 49,692 for 32,768); now 256 to 262.
func TestODSplitDefersLateSequences(t *testing.T) {
	defer func(y time.Duration) { strategy.YieldAfter = y }(strategy.YieldAfter)
	strategy.YieldAfter = 0
	for _, n := range []int{8} {
		prog := readersLogged(n)
		want := exploreUpTo(strategy.NewOptimalDPOR(), 10000, prog)
		for _, w := range []int{2, 3} {
			for _, slice := range []int{3, 8} {
				got, finished, _, _ := parallelRun(t, strategy.RootUnit("odpor", 0), w, slice, prog)
				if !finished {
					t.Errorf("readers(%d), %d workers: not finished", n, w)
				}
				k := fmt.Sprintf("odpor on %d workers, slices of %d runs", w, slice)
				sameSet(t, fmt.Sprintf("readers(%d)", n), "terminal states", k, want.states, got.states)
				t.Logf("readers(%d), %s: %d runs, sequential %d", n, k, got.runs, want.runs)
				if got.runs > want.runs+want.runs/16 {
					t.Errorf("readers(%d), %s: %d runs, sequential %d", n, k, got.runs, want.runs)
				}
			}
		}
	}
}

// odSim explores prog with optimal DPOR split into units, in one process
// and deterministically: the coordinator's side is CoordinateWork's for
// odpor (the queue of units, ODCoord's Dispatch, Accept, Finish and
// Yield), each unit is explored by a strategy restored from its JSON (as
// a worker process receives it) and hands back its rest and spawned
// units as JSON, and the workers' timing is drawn from seed: at each
// step one of the units being explored, chosen at random, makes a run
// (seed 0: each in turn). A unit ends after slice runs, when its
// strategy ends, or, asked to yield (a worker is idle with nothing
// waiting: the unit explored longest; or ODCoord.Yield), after its
// current run. limit bounds the runs (0: none).
func odSim(t testing.TB, workers, slice int, seed int64, limit int, prog func(*outcome)) (x *explored, finished bool, proven string) {
	t.Helper()
	x = &explored{states: map[string]bool{}, lazyStates: map[string]bool{}, outcomes: map[string]bool{}, bugs: map[string]bool{}}
	rng := rand.New(rand.NewSource(seed))
	roundtrip := func(in, out any) {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	type worker struct {
		od    strategy.Unit // as dispatched
		s     engine.Strategy
		cc    *strategy.ClassCounter
		runs  int
		asked bool
	}
	od := strategy.NewODCoord()
	queue := []strategy.Unit{strategy.RootUnit("odpor", 0)}
	var live []*worker
	proofs := map[string]bool{}
	turn := 0
	for {
		for len(live) < workers && len(queue) > 0 {
			u := od.Dispatch(queue[0])
			queue = queue[1:]
			var v strategy.Unit
			roundtrip(u, &v)
			s, err := strategy.NewForUnit(strategy.Options{}, v)
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, &worker{od: u, s: s, cc: strategy.NewClassCounter(s)})
		}
		if len(live) == 0 {
			return x, len(queue) == 0, oneProof(proofs)
		}
		if len(live) < workers && len(queue) == 0 {
			asked := false
			for _, w := range live {
				asked = asked || w.asked
			}
			if !asked {
				live[0].asked = true // the oldest
			}
		}
		i := turn % len(live)
		turn++
		if seed != 0 {
			i = rng.Intn(len(live))
		}
		w := live[i]
		end := w.asked && w.runs > 0 || limit > 0 && x.runs >= limit
		if !end {
			if !w.cc.Begin(w.runs + 1) {
				end = true
			} else {
				var o *outcome
				body := func() {
					o = &outcome{}
					prog(o)
				}
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, w.cc, body)
				w.cc.End(r)
				w.runs++
				x.runs++
				out := o.String() + bugKey(r.Bug)
				x.states[w.cc.Last+"\n=> "+out] = true
				x.outcomes[out] = true
				if r.Bug != nil {
					x.bugs[bugKey(r.Bug)] = true
				}
				end = w.runs >= slice || w.asked
			}
		}
		if !end {
			continue
		}
		live = append(live[:i], live[i+1:]...)
		us := w.s.(strategy.UnitState)
		var o strategy.Outcome
		roundtrip(strategy.Outcome{Rest: us.Rest(), Spawned: us.Spawned()}, &o)
		if p, ok := w.s.(strategy.Prover); ok && o.Rest == nil {
			proofs[p.Proven()] = true
		}
		if limit > 0 && x.runs >= limit {
			return x, false, ""
		}
		if o.Rest != nil {
			queue = append(queue, *o.Rest)
		}
		for _, s := range o.Spawned {
			us, _, _ := od.Accept(s)
			queue = append(queue, us...)
		}
		queue = append(queue, od.Finish(w.od)...)
		for _, f := range od.Yield() {
			for _, v := range live {
				if v.od.OD == f {
					v.asked = true
				}
			}
		}
	}
}

// oneProof is the proof of a split exploration: every unit's, if they
// all proved the same.
func oneProof(proofs map[string]bool) string {
	if len(proofs) != 1 {
		return ""
	}
	for p := range proofs {
		return p
	}
	return ""
}

// TestODSplitWakesAsInserted (issue 12): generated seed 2233 split across
// workers reaches every terminal state of sequential optimal DPOR. A unit
// names objects with the names every unit learned (odsplit.go's Names),
// from runs the sequential exploration makes later or never, which merge
// the two channels: a unit's insertion then found a receive on one
// channel dependent on an arrival on the other, and put the arrival after
// the receive in a wakeup tree where they commute; the receive, explored
// first and asleep, stayed asleep along the arrival (the sleep sets follow
// the steps that run), and the race that leads to the lost state looked
// covered by it. Units now wake the steps an insertion found not to be
// weak initials when they follow the sequence (wakeAt). Before, each of
// these explorations (odSim: deterministic) reached 421 of 422 terminal
// states.
func TestODSplitWakesAsInserted(t *testing.T) {
	var body func(*outcome)
	for _, g := range generated {
		if g.name == "gen2233" {
			body = g.body
		}
	}
	want := exploreUpTo(strategy.NewOptimalDPOR(), 10000, body)
	for _, c := range []struct {
		workers, slice int
		seed           int64
	}{{2, 3, 1}, {3, 1, 1}, {8, 3, 3}} {
		got, finished, proven := odSim(t, c.workers, c.slice, c.seed, 0, body)
		k := fmt.Sprintf("odpor on %d workers, units of %d runs, seed %d", c.workers, c.slice, c.seed)
		sameSet(t, "gen2233", "terminal states", k, want.states, got.states)
		if !finished || proven == "" {
			t.Errorf("gen2233, %s: finished %v, proof %q", k, finished, proven)
		}
		t.Logf("gen2233, %s: %d runs, sequential %d", k, got.runs, want.runs)
	}
}
