package rt_test

import (
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// tiny is the "tiny test" of the benchmarks: two goroutines, a Mutex and a
// WaitGroup.
func tiny() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	rt.WaitGroupAdd(&wg, 2)
	for i := 0; i < 2; i++ {
		rt.Go(func() {
			defer rt.WaitGroupDone(&wg)
			rt.MutexLock(&mu)
			n++
			rt.MutexUnlock(&mu)
		})
	}
	rt.WaitGroupWait(&wg)
}

// BenchmarkTinyHeddle is one explored run of tiny per iteration; its ratio
// to BenchmarkTinyNative is heddle's overhead per run.
func BenchmarkTinyHeddle(b *testing.B) {
	pool := new(engine.Pool)
	defer pool.Close()
	s := strategy.NewRandom(1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Begin(i + 1)
		engine.Run(engine.Config{Pool: pool}, s, tiny)
	}
}

// BenchmarkTinyNative runs tiny natively (rt outside an exploration is the
// native primitive).
func BenchmarkTinyNative(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tiny()
	}
}

// BenchmarkSchedulingPoint measures one scheduling point: two goroutines
// take turns on an atomic, so every point has two choices and half of them
// switch goroutines.
func BenchmarkSchedulingPoint(b *testing.B) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	var x int64
	n := b.N
	b.ResetTimer()
	res := engine.Run(engine.Config{StepLimit: 2*n + 100}, s, func() {
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for i := 0; i < n/2; i++ {
				rt.AtomicW(&x)
			}
			rt.Close(done)
		})
		for i := 0; i < n-n/2; i++ {
			rt.AtomicW(&x)
		}
		rt.Recv(done)
	})
	if res.Bug != nil {
		b.Fatal(res.Bug.Message)
	}
}

// BenchmarkSchedulingPointNoSwitch measures a scheduling point where only
// one goroutine is enabled: no strategy call and no handoff.
func BenchmarkSchedulingPointNoSwitch(b *testing.B) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	var x int64
	n := b.N
	b.ResetTimer()
	engine.Run(engine.Config{StepLimit: n + 100}, s, func() {
		for i := 0; i < n; i++ {
			rt.AtomicW(&x)
		}
	})
}
