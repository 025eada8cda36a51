package rt_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// TestSleepersDueTogetherStepWithoutAllocating: a hundred goroutines
// sleeping 1ms (due at one instant, and each a choice: waking it early
// starves nobody for more than MaxStarve) beside two goroutines making k
// atomic writes each. The steps of the writers must not allocate: the
// sleepers' choices are appended after the goroutines' in one array,
// which grew anew at every step when the goroutine choices had been
// few (conc's pool tests, whose workers start one at a time and sleep
// 1ms, allocated and copied it at each step).
func TestSleepersDueTogetherStepWithoutAllocating(t *testing.T) {
	prog := func(k int) func() {
		return func() {
			var x int64
			var wg sync.WaitGroup
			rt.WaitGroupAdd(&wg, 102)
			started := make(chan bool)
			for range 100 {
				// One at a time, as a pool starts its workers: the
				// goroutine choices stay few.
				rt.Go(func() {
					rt.Send(started, true)
					rt.Sleep(time.Millisecond)
					rt.WaitGroupDone(&wg)
				})
				rt.Recv(started)
			}
			for range 2 {
				rt.Go(func() {
					for range k {
						rt.AtomicW(&x)
					}
					rt.WaitGroupDone(&wg)
				})
			}
			rt.WaitGroupWait(&wg)
		}
	}
	pool := new(engine.Pool)
	defer pool.Close()
	cfg := engine.Config{Pool: pool, MaxStarve: 100 * time.Millisecond}
	run := func(k int) (allocs float64, steps int) {
		allocs = testing.AllocsPerRun(3, func() {
			r := engine.Run(cfg, first{}, prog(k))
			if r.Bug != nil {
				t.Fatalf("k=%d: %v", k, r.Bug)
			}
			steps = r.Steps
		})
		return allocs, steps
	}
	a1, s1 := run(500)
	a2, s2 := run(1500)
	if s2-s1 < 2000 {
		t.Fatalf("%d steps with 500 writes each, %d with 1500: want 2000 more", s1, s2)
	}
	if per := (a2 - a1) / float64(s2-s1); per > 0.01 {
		t.Errorf("%.0f allocations in %d steps, %.0f in %d: %.3f a step, want none", a1, s1, a2, s2, per)
	}
}
