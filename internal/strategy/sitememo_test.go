package strategy_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestCallSiteMemo checks that the spin tracker's memo of call sites gives
// the hash that reading the frames gives, for call stacks seen before and
// not, and that two call sites stay apart: the memo changes no spin
// verdict, so no schedule an exhaustive strategy explores.
func TestCallSiteMemo(t *testing.T) {
	var r strategy.SiteReader
	var a, b []uint64
	for range 3 {
		ma, da := r.Site() // site A
		mb, db := r.Site() // site B
		if ma != da || mb != db {
			t.Fatalf("memo and frames differ: A %x/%x, B %x/%x", ma, da, mb, db)
		}
		a, b = append(a, ma), append(b, mb)
	}
	for i := range a {
		if a[i] != a[0] || b[i] != b[0] {
			t.Fatalf("a call site's hash changed: A %x, B %x", a, b)
		}
	}
	if a[0] == b[0] {
		t.Fatalf("two call sites, one hash %x", a[0])
	}
	if n := r.MemoLen(); n != 2 {
		t.Fatalf("memo has %d call stacks, want 2", n)
	}
}

// lineLoads has a goroutine load a flag four times in straight-line code,
// each at a call site of its own (not a loop: not deprioritized), then
// poll it in a loop (deprioritized once it repeats a site) until the
// other goroutine, after writes of its own, stores it.
func lineLoads() {
	var flag int32
	rt.Go(func() {
		atomic.LoadInt32(rt.AtomicR(&flag))
		atomic.LoadInt32(rt.AtomicR(&flag))
		atomic.LoadInt32(rt.AtomicR(&flag))
		atomic.LoadInt32(rt.AtomicR(&flag))
		for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
			rt.Gosched()
		}
	})
	var other int32
	for range 6 {
		atomic.AddInt32(rt.AtomicW(&other), 1)
	}
	atomic.StoreInt32(rt.AtomicW(&flag), 1)
}

// TestCallSiteMemoSameRuns explores programs whose call sites the spin
// tracker reads at most points (lineLoads, and infiniteBuffer's select
// loop) with IDB and DFS, with the memo of call sites and without, and
// checks that every run takes the same choices.
func TestCallSiteMemoSameRuns(t *testing.T) {
	progs := map[string]func(){"lineLoads": lineLoads, "infiniteBuffer": infiniteBuffer(8)}
	for _, name := range []string{"idb", "dfs"} {
		for pn, prog := range progs {
			t.Run(name+"/"+pn, func(t *testing.T) {
				var runs [2][]string
				for k, on := range []bool{true, false} {
					was := strategy.SetSiteMemo(on)
					s, err := strategy.New(name, strategy.Options{MaxBound: 1})
					if err != nil {
						t.Fatal(err)
					}
					for i := 1; i <= 40 && s.Begin(i); i++ {
						r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 20000}, s, prog)
						s.End(r)
						if r.Bug != nil {
							t.Fatalf("run %d: %v", i, r.Bug.Message)
						}
						var keys []string
						for _, c := range r.Choices {
							keys = append(keys, c.Key())
						}
						runs[k] = append(runs[k], strings.Join(keys, " "))
					}
					strategy.SetSiteMemo(was)
				}
				if len(runs[0]) < 2 || len(runs[0]) != len(runs[1]) {
					t.Fatalf("%d runs with the memo, %d without", len(runs[0]), len(runs[1]))
				}
				for i := range runs[0] {
					if runs[0][i] != runs[1][i] {
						t.Fatalf("run %d differs:\nmemo:    %s\nwithout: %s", i+1, runs[0][i], runs[1][i])
					}
				}
			})
		}
	}
}
