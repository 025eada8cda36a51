package strategy_test

import (
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// checkThenAct is a lazy initialization on a plain field, the racy
// statements marked as heddle test -racy's rewriter marks them: the
// check is a racy read, the act a racy write, both of group "lazy". If
// marked, it reports in *inits how many goroutines initialized.
func checkThenAct(marked bool, inits *int) func() {
	return func() {
		var v *int
		n := 0
		var wg sync.WaitGroup
		get := func() {
			if marked {
				rt.RacyRead("lazy")
			}
			if v == nil {
				n++
				if marked {
					rt.RacyWrite("lazy")
				}
				v = new(int)
			}
		}
		for i := 0; i < 2; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				get()
			})
		}
		rt.WaitGroupWait(&wg)
		if n > *inits {
			*inits = n
		}
	}
}

// TestRacyAccessesAreInterleaved: without scheduling points at its racy
// statements, no schedule of the check-then-act initializes twice; with
// them, DFS and both DPORs find the schedule that does.
func TestRacyAccessesAreInterleaved(t *testing.T) {
	inits := 0
	runAll(t, strategy.NewDFS(0), 100000, checkThenAct(false, &inits))
	if inits != 1 {
		t.Fatalf("unmarked: %d initializations, want 1 (plain code runs atomically)", inits)
	}
	for _, s := range []struct {
		name string
		s    engine.Strategy
	}{{"dfs", strategy.NewDFS(0)}, {"sdpor", strategy.NewSourceDPOR()}, {"odpor", strategy.NewOptimalDPOR()}} {
		inits := 0
		runAll(t, s.s, 100000, checkThenAct(true, &inits))
		if inits != 2 {
			t.Errorf("%s: at most %d initializations over every schedule, want 2", s.name, inits)
		}
	}
}

// racyProgram runs one goroutine per entry of ops, each making one racy
// access: "r:g" reads group g, "w:g" writes it.
func racyProgram(ops ...string) func() {
	return func() {
		var wg sync.WaitGroup
		for _, op := range ops {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				if op[0] == 'w' {
					rt.RacyWrite(op[2:])
				} else {
					rt.RacyRead(op[2:])
				}
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// TestRacyDependence: racy accesses conflict when they are of the same
// group and one writes, and optimal DPOR explores one run per class of
// that dependence.
func TestRacyDependence(t *testing.T) {
	for _, c := range []struct {
		ops  []string
		want int
	}{
		{[]string{"r:a", "r:a"}, 1},        // reads commute
		{[]string{"w:a", "w:b"}, 1},        // other groups: independent
		{[]string{"w:a", "r:a"}, 2},        // read before or after the write
		{[]string{"w:a", "w:a"}, 2},        // two orders of the writes
		{[]string{"w:a", "r:a", "r:a"}, 4}, // each read before or after the write
	} {
		want := classes(t, racyProgram(c.ops...), false)
		if len(want) != c.want {
			t.Errorf("%v: DFS finds %d classes, want %d", c.ops, len(want), c.want)
		}
		o := strategy.NewOptimalDPOR()
		runAll(t, o, 1000, racyProgram(c.ops...))
		if o.Complete != c.want || o.Blocked != 0 {
			t.Errorf("%v: optimal DPOR %s, want %d complete runs", c.ops, o.Stats(), c.want)
		}
	}
}
