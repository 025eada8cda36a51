package rt_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestMapOrderDrawn: during a run, a range over a map visits its keys in
// an order drawn from the run's seed, as Go randomizes it: the same seed
// gives the same order (replay), and seeds reach every order of three
// keys (a test that fails on one of them is found). Outside a run the
// order is sorted.
func TestMapOrderDrawn(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	orderOf := func(seed uint64) string {
		var order string
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{Seed: seed}, s, func() {
			order = strings.Join(rt.MapKeys(m), "")
		})
		if res.Bug != nil || res.Internal != "" {
			t.Fatalf("run: %+v %s", res.Bug, res.Internal)
		}
		return order
	}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 200; seed++ {
		o := orderOf(seed)
		if again := orderOf(seed); again != o {
			t.Fatalf("seed %d: order %s, then %s", seed, o, again)
		}
		seen[o] = true
	}
	if len(seen) != 6 {
		t.Errorf("200 seeds gave the orders %v, want all 6 orders of 3 keys", seen)
	}
	if got := strings.Join(rt.MapKeys(m), ""); got != "abc" {
		t.Errorf("outside a run: %s, want abc", got)
	}
}

// TestMapOrderChannelKeys: a map keyed by channels the run made (a
// broadcaster's subscribers, dustin/go-broadcast) is visited in the same
// order by every run with the same seed, wherever the allocator put the
// channels: their order is the order the run made them, not their
// addresses, which differ from run to run in one process.
func TestMapOrderChannelKeys(t *testing.T) {
	var garbage [][]byte
	orderOf := func(seed uint64) string {
		var order []int
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{Seed: seed}, s, func() {
			m := map[chan int]int{}
			for i := 0; i < 8; i++ {
				m[rt.MakeChan[chan int](0)] = i
			}
			for _, ch := range rt.MapKeys(m) {
				order = append(order, m[ch])
			}
		})
		if res.Bug != nil || res.Internal != "" {
			t.Fatalf("run: %+v %s", res.Bug, res.Internal)
		}
		return fmt.Sprint(order)
	}
	want := orderOf(1)
	for run := 0; run < 100; run++ {
		// The freed memory of the runs before, reused in another order.
		garbage = append(garbage, make([]byte, 16+run%7*40))
		if run%10 == 0 {
			garbage = nil
			runtime.GC()
		}
		if got := orderOf(1); got != want {
			t.Fatalf("run %d with seed 1: order %s, the first run's %s", run, got, want)
		}
	}
	runtime.KeepAlive(garbage)
}
