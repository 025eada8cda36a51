package strategy_test

import (
	"strings"
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

// mapProgram: one goroutine writes m, another reads it (or ranges over
// it, or writes it too), each statement marked as the rewriter marks
// racy map statements; locked puts both under one mutex.
func mapProgram(other string, locked bool) func() {
	return func() {
		m := map[string]int{"a": 1}
		var mu sync.Mutex
		var wg sync.WaitGroup
		lock := func() {
			if locked {
				rt.MutexLock(&mu)
			}
		}
		unlock := func() {
			if locked {
				rt.MutexUnlock(&mu)
			}
		}
		rt.WaitGroupAdd(&wg, 2)
		rt.Go(func() {
			defer rt.WaitGroupDone(&wg)
			lock()
			rt.MapWriteBegin(m)
			m["b"] = 2
			rt.MapWriteEnd(m)
			unlock()
		})
		rt.Go(func() {
			defer rt.WaitGroupDone(&wg)
			lock()
			switch other {
			case "read":
				rt.MapRead(m)
				_ = m["a"]
			case "range":
				for k := range rt.MapKeys(m) {
					rt.MapIter(m)
					_ = k
				}
			case "write":
				rt.MapWriteBegin(m)
				delete(m, "a")
				rt.MapWriteEnd(m)
			// The functions of package maps, as the rewriter routes
			// them on a racy line (rt/racymaps.go).
			case "maps.Copy":
				rt.MapsCopy(map[string]int{}, m)
			case "maps.Clone":
				_ = rt.MapsClone(m)
			case "maps.Equal":
				_ = rt.MapsEqual(m, map[string]int{"a": 1, "b": 2})
			case "maps.Keys":
				for k := range rt.MapsKeys(m) {
					_ = k
				}
			case "maps.DeleteFunc":
				rt.MapsDeleteFunc(m, func(k string, v int) bool { return k == "a" })
			case "maps.Insert":
				rt.MapsInsert(m, func(yield func(string, int) bool) { yield("c", 3) })
			}
			unlock()
		})
		rt.WaitGroupWait(&wg)
	}
}

// TestConcurrentMapAccess: a racy map access that some schedule places
// inside another goroutine's write fails as the Go runtime fails; the
// same accesses under a mutex never do.
func TestConcurrentMapAccess(t *testing.T) {
	for _, c := range []struct {
		other string
		msgs  []string // every one of them some schedule shows
	}{
		{"read", []string{"concurrent map read and map write"}},
		{"range", []string{"concurrent map iteration and map write"}},
		{"write", []string{"concurrent map writes"}},
		{"maps.Copy", []string{"concurrent map iteration and map write"}},
		{"maps.Clone", []string{"concurrent map clone and map write"}},
		{"maps.Equal", []string{"concurrent map iteration and map write"}},
		{"maps.Keys", []string{"concurrent map iteration and map write"}},
		// The iteration in the other's write, or the other's write in
		// the delete.
		{"maps.DeleteFunc", []string{"concurrent map iteration and map write", "concurrent map writes"}},
		{"maps.Insert", []string{"concurrent map writes"}},
	} {
		for _, locked := range []bool{false, true} {
			for _, s := range []struct {
				name string
				s    engine.Strategy
			}{{"dfs", strategy.NewDFS(0)}, {"odpor", strategy.NewOptimalDPOR()}} {
				res, _ := runAll(t, s.s, 10000, mapProgram(c.other, locked))
				found := map[string]bool{}
				for _, r := range res {
					if r.Bug != nil {
						if r.Bug.Kind != engine.KindMisuse {
							t.Fatalf("%s %s locked=%v: %s: %s", s.name, c.other, locked, r.Bug.Kind, r.Bug.Message)
						}
						msg, _, _ := strings.Cut(r.Bug.Message, ": ")
						found[msg] = true
					}
				}
				if locked {
					if len(found) > 0 {
						t.Errorf("%s %s under a mutex: %v", s.name, c.other, found)
					}
					continue
				}
				for _, m := range c.msgs {
					if !found[m] {
						t.Errorf("%s %s: found %v, want %q", s.name, c.other, found, m)
					}
				}
			}
		}
	}
}

// racy17 is conformance's TestRacy0017, marked as heddle test -racy's
// rewriter marks it: two goroutines each set z if it is still zero, while
// the test goroutine writes 10 to it and then increments it (a read and a
// write). Native Go ends with z = 4 (a goroutine reads 0, the test writes
// 10, the goroutine writes 3, the test's increment reads 3).
func racy17(o *outcome) {
	var z int32
	var wg sync.WaitGroup
	for _, v := range []int32{2, 3} {
		rt.WaitGroupAdd(&wg, 1)
		rt.Go(func() {
			defer rt.WaitGroupDone(&wg)
			rt.RacyRead("z")
			if z == 0 {
				rt.RacyWrite("z")
				z = v
			}
		})
	}
	rt.RacyWrite("z")
	z = 10
	rt.RacyRead("z")
	t := z
	rt.RacyWrite("z")
	z = t + 1
	rt.WaitGroupWait(&wg)
	o.log(0, z)
}

// TestRacyDifferential: on racy programs the DPOR strategies reach every
// outcome DFS reaches.
func TestRacyDifferential(t *testing.T) {
	for _, p := range []corpusProgram{{"racy17", 0, racy17}} {
		differential(t, p)
	}
}
