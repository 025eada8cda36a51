package goker

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseMix(t *testing.T) {
	const s = "idb:50:1,pct3:0:3,random:0:1"
	mix, err := ParseMix(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(mix) != 3 || mix[0].Name != "idb" || mix[0].Warmup != 50 || mix[1].Weight != 3 {
		t.Errorf("ParseMix(%q) = %+v", s, mix)
	}
	if got := MixString(mix); got != s {
		t.Errorf("MixString = %q, want %q", got, s)
	}
	for _, bad := range []string{"idb", "idb:1", "idb:x:1", ":1:1", "idb:-1:1"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q): no error", bad)
		}
	}
}

func TestParseSeeds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int64
	}{{"3", []int64{1, 2, 3}}, {"4-6", []int64{4, 5, 6}}, {"2-2", []int64{2}}} {
		got, err := ParseSeeds(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSeeds(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"0", "x", "3-2", "0-2"} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("ParseSeeds(%q): no error", bad)
		}
	}
}

func TestSamplesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	in := []Sample{
		{Corpus: "goker", Program: "K1", Member: "idb", Seed: 1, Found: true, Run: 5, Runs: 5, Elapsed: 0.25},
		{Corpus: "examples", Program: "p", Member: "pct3", Seed: 2, Runs: 1000, Exhausted: true, Elapsed: 1.5, Err: "x, \"y\""},
	}
	for _, s := range in {
		w, err := AppendSamples(path) // reopened: one header only
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	out, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("read back %+v\nwant %+v", out, in)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSimulate(t *testing.T) {
	const budget = 20
	ss := []Sample{
		// P1: d (deterministic) finds the bug at its run 3; r at its
		// run 1 with one seed, 3 with the other.
		{Corpus: "c", Program: "P1", Member: "d", Seed: 1, Found: true, Run: 3, Runs: 3, Elapsed: 3},
		{Corpus: "c", Program: "P1", Member: "r", Seed: 1, Found: true, Run: 1, Runs: 1, Elapsed: 0.1},
		{Corpus: "c", Program: "P1", Member: "r", Seed: 2, Found: true, Run: 3, Runs: 3, Elapsed: 0.3},
		// P2: d covers its space in 2 runs without the bug and drops
		// out; r finds it at run 4 with both seeds.
		{Corpus: "c", Program: "P2", Member: "d", Seed: 1, Runs: 2, Exhausted: true},
		{Corpus: "c", Program: "P2", Member: "r", Seed: 1, Found: true, Run: 4, Runs: 4},
		{Corpus: "c", Program: "P2", Member: "r", Seed: 2, Found: true, Run: 4, Runs: 4},
		// P3: nobody finds it: left out.
		{Corpus: "c", Program: "P3", Member: "d", Seed: 1, Runs: budget},
		{Corpus: "c", Program: "P3", Member: "r", Seed: 1, Runs: budget},
	}
	idx := IndexSamples(ss, budget)
	if got := idx.Members(); !reflect.DeepEqual(got, []string{"d", "r"}) {
		t.Errorf("Members = %v", got)
	}
	mix, _ := ParseMix("d:0:1,r:0:1")
	ev, err := idx.Simulate(mix)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Programs) != 2 {
		t.Fatalf("%d programs, want P1 and P2", len(ev.Programs))
	}
	// P1: runs d r d r d: the bug at run 2 (r's first run, p = 1/2) or
	// at run 5 (d's third run).
	p1 := ev.Programs[0]
	if !near(p1.Runs, 0.5*2+0.5*5) || !near(p1.Within[0], 0) || !near(p1.Within[1], 1) {
		t.Errorf("P1: %+v, want 3.5 runs, found within 10", p1)
	}
	// Seconds: d takes 1 s a run, r 0.1 s: run 1 (d) always, run 2 (r)
	// always, runs 3-5 (d r d) with probability 1/2.
	if want := 1 + 0.1 + 0.5*(1+0.1+1); !near(p1.Seconds, want) {
		t.Errorf("P1: %v s, want %v", p1.Seconds, want)
	}
	// P2: d r d r r r: r's fourth run is the portfolio's sixth.
	if p2 := ev.Programs[1]; !near(p2.Runs, 6) {
		t.Errorf("P2: %v runs, want 6", p2.Runs)
	}
	if !near(ev.MeanRuns, 4.75) || !near(ev.GeoRuns, math.Sqrt(3.5*6)) || !near(ev.Found[1], 2) {
		t.Errorf("evaluation %+v", ev)
	}
	// A warm-up of d, then r alone.
	mix, _ = ParseMix("d:3:0,r:0:1")
	if ev, err = idx.Simulate(mix); err != nil {
		t.Fatal(err)
	}
	// P1: d d d: found at run 3 if r would not have; here r never ran.
	if p1 := ev.Programs[0]; !near(p1.Runs, 3) {
		t.Errorf("warm-up, P1: %v runs, want 3", p1.Runs)
	}
	// P2: d d (over), then r r r r: run 6.
	if p2 := ev.Programs[1]; !near(p2.Runs, 6) {
		t.Errorf("warm-up, P2: %v runs, want 6", p2.Runs)
	}
	mix, _ = ParseMix("d:0:1,x:0:1")
	if _, err := idx.Simulate(mix); err == nil {
		t.Error("a member without samples: no error")
	}
}
