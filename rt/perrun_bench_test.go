package rt_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/cputime"
	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// workerStarts is n tasks run one after the other, each by a new worker
// goroutine counted by a WaitGroup that goes from zero to one at each
// start: the shape of pond's pools (a worker WaitGroup, 10,000 tasks in
// TestPoolMetrics), where every Add from zero looked for a goroutine in
// Wait among all the goroutines the run had made.
func workerStarts(n int) func() {
	return func() {
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() { rt.WaitGroupDone(&wg) })
			rt.WaitGroupWait(&wg)
		}
	}
}

// goLimit is n goroutines that each sleep a millisecond, at most limit at
// once, held by a buffered channel: the shape of x/sync errgroup's
// TestGoLimit (a timer per Sleep, a send and a receive per goroutine).
func goLimit(n, limit int) func() {
	return func() {
		sem := rt.MakeChan[chan struct{}](limit)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			rt.Send(sem, struct{}{})
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				rt.Sleep(time.Millisecond)
				rt.Recv(sem)
				rt.WaitGroupDone(&wg)
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// BenchmarkPerRun is one run per iteration of shapes whose cost is the
// run's constant work rather than the strategy's: under random, untraced
// and with the run's memory given back to the pool (most runs), and
// traced with the trace not given back, as the determinism check's replay
// of run 2 is (its trace cannot reuse run 2's, which is still read).
func BenchmarkPerRun(b *testing.B) {
	shapes := []struct {
		name string
		body func()
	}{
		{"workers", workerStarts(2000)},
		{"golimit", goLimit(1000, 10)},
		{"atomics", pingPong(5000)},
	}
	for _, sh := range shapes {
		for _, traced := range []bool{false, true} {
			name := sh.name + "/random"
			if traced {
				name = sh.name + "/traced"
			}
			b.Run(name, func(b *testing.B) {
				s := strategy.NewRandom(1)
				pool := new(engine.Pool)
				defer pool.Close()
				b.ReportAllocs()
				defer cputime.PerOp(b)()
				for i := 0; i < b.N; i++ {
					s.Begin(i + 1)
					res := engine.Run(engine.Config{Pool: pool, Trace: traced}, s, sh.body)
					s.End(res)
					if !traced {
						pool.Recycle(res)
					}
				}
			})
		}
	}
}

// BenchmarkTracedRunGrowth is one traced run per iteration of lockLoop
// (40,000 steps, one goroutine): "fresh" starts each run's trace and
// choices empty, as a test's first traced run does (no earlier run's
// length to size them by), and grows them step by step; "pooled" lends
// them from the pool at the size of the previous run, as later runs get
// them. The difference is what growing costs the first run of a test,
// whose runs (a few, for a test of hundreds of milliseconds) are traced
// for the determinism check.
func BenchmarkTracedRunGrowth(b *testing.B) {
	for _, pooled := range []bool{false, true} {
		name := "fresh"
		if pooled {
			name = "pooled"
		}
		b.Run(name, func(b *testing.B) {
			s := strategy.NewRandom(1)
			pool := new(engine.Pool)
			defer pool.Close()
			body := lockLoop(20000)
			b.ReportAllocs()
			defer cputime.PerOp(b)()
			for i := 0; i < b.N; i++ {
				s.Begin(i + 1)
				cfg := engine.Config{Trace: true}
				if pooled {
					cfg.Pool = pool
				}
				res := engine.Run(cfg, s, body)
				s.End(res)
				if pooled {
					pool.Recycle(res)
				}
			}
		})
	}
}
