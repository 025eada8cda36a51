package strategy_test

import (
	"sync"
	"testing"
	"unsafe"

	"heddle.dev/internal/cputime"
	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// lockerShape is the body of a run of moby/locker's TestLockerConcurrency
// shape with n goroutines (as internal/engine's BenchmarkLockerShape): two
// mutexes with hundreds of waiters each, taken and released at nearly
// every step.
func lockerShape(n int) func() {
	return func() {
		e := engine.Current()
		var mu, name sync.Mutex
		var wg sync.WaitGroup
		m, nm, w := unsafe.Pointer(&mu), unsafe.Pointer(&name), unsafe.Pointer(&wg)
		waiters := 0
		for range n {
			e.WaitGroupAdd(w, 1)
			e.Go(func() {
				e.MutexLock(m)
				waiters++
				e.MutexUnlock(m)
				e.MutexLock(nm)
				e.MutexLock(m)
				waiters--
				e.MutexUnlock(nm)
				e.MutexUnlock(m)
				e.WaitGroupAdd(w, -1)
			})
		}
		e.WaitGroupWait(w)
	}
}

// BenchmarkLockerShapeStrategies is a run of lockerShape(1000) under each
// of the portfolio's strategies, with the configuration the benchmarks
// use (a trace for POS): the cost per run of a thousand waiters on a
// mutex, the strategy's share included. It reports processor time per
// run (cpu-ns/op), which a shared machine's load moves less.
func BenchmarkLockerShapeStrategies(b *testing.B) {
	for _, name := range []string{"random", "pos", "pct", "idb"} {
		b.Run(name, func(b *testing.B) {
			s, _ := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
			cfg := benchConfig(s)
			cfg.StepLimit = 1 << 20
			defer cputime.PerOp(b)()
			run := 1
			for i := 0; i < b.N; i++ {
				if !s.Begin(run) {
					s, _ = strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
					run = 1
					s.Begin(run)
				}
				r := engine.Run(cfg, s, lockerShape(1000))
				if r.Bug != nil || r.Internal != "" {
					b.Fatalf("%s: unexpected end: %v %s", name, r.Bug, r.Internal)
				}
				s.End(r)
				run++
			}
		})
	}
}
