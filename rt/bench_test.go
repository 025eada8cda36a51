package rt_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/cputime"
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

// pingPong runs two goroutines that each make n atomic writes: every
// scheduling point has two enabled choices.
func pingPong(n int) func() {
	return func() {
		var x int64
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for i := 0; i < n; i++ {
				rt.AtomicW(&x)
			}
			rt.Close(done)
		})
		for i := 0; i < n; i++ {
			rt.AtomicW(&x)
		}
		rt.Recv(done)
	}
}

// BenchmarkSchedulingPoint measures one scheduling point with two enabled
// goroutines and a random choice (so about half the points switch
// goroutines), in runs of 1000 points.
func BenchmarkSchedulingPoint(b *testing.B) {
	const perRun = 1000
	s := strategy.NewRandom(1)
	pool := new(engine.Pool)
	defer pool.Close()
	prog := pingPong(perRun / 2)
	defer cputime.PerOp(b)()
	for i := 0; i < b.N; i += perRun {
		s.Begin(i + 1)
		engine.Run(engine.Config{Pool: pool}, s, prog)
	}
}

// alternate always switches to the other goroutine.
type alternate struct{}

func (alternate) Begin(int) bool { return true }
func (alternate) Choose(p *engine.Point) int {
	for i := range p.Choices {
		if i != p.Prev {
			return i
		}
	}
	return 0
}
func (alternate) End(*engine.Result) {}

// BenchmarkSwitch measures a scheduling point that hands the processor to
// another goroutine every time.
func BenchmarkSwitch(b *testing.B) {
	const perRun = 1000
	pool := new(engine.Pool)
	defer pool.Close()
	prog := pingPong(perRun / 2)
	defer cputime.PerOp(b)()
	for i := 0; i < b.N; i += perRun {
		engine.Run(engine.Config{Pool: pool}, alternate{}, prog)
	}
}

// BenchmarkSchedulingPointNoSwitch measures a scheduling point where only
// one goroutine is enabled: no strategy call and no handoff.
func BenchmarkSchedulingPointNoSwitch(b *testing.B) {
	const perRun = 1000
	s := strategy.NewRandom(1)
	pool := new(engine.Pool)
	defer pool.Close()
	prog := func() {
		var x int64
		for i := 0; i < perRun; i++ {
			rt.AtomicW(&x)
		}
	}
	defer cputime.PerOp(b)()
	for i := 0; i < b.N; i += perRun {
		s.Begin(i + 1)
		engine.Run(engine.Config{Pool: pool}, s, prog)
	}
}

// BenchmarkManyGoroutines is one run of 1000 goroutines that each send on
// an unbuffered channel to a single receiver: the cost per step must not
// grow with the number of goroutines waiting on the channel.
func BenchmarkManyGoroutines(b *testing.B) {
	s := strategy.NewRandom(1)
	pool := new(engine.Pool)
	defer pool.Close()
	const n = 1000
	prog := func() {
		ch := rt.MakeChan[chan int](0)
		for i := 0; i < n; i++ {
			rt.Go(func() { rt.Send(ch, 1) })
		}
		for i := 0; i < n; i++ {
			rt.Recv(ch)
		}
	}
	for i := 0; i < b.N; i++ {
		s.Begin(i + 1)
		engine.Run(engine.Config{Pool: pool}, s, prog)
	}
}

// manyEnabled is the shape of GoKer's kernels as shipped: copies of a small
// scenario, each with its own mutex and channel, started all at once, so
// that thousands of goroutines are enabled at the same scheduling point.
// Each copy has three goroutines of about ten operations each: two that
// take the copy's mutex in turn and then meet on its unbuffered channel,
// and one that yields.
func manyEnabled(copies int) func() {
	return func() {
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 3*copies)
		for i := 0; i < copies; i++ {
			var mu sync.Mutex
			ch := rt.MakeChan[chan int](0)
			n := 0
			for j := 0; j < 2; j++ {
				send := j == 0
				rt.Go(func() {
					defer rt.WaitGroupDone(&wg)
					v := 0
					for k := 0; k < 4; k++ {
						rt.MutexLock(&mu)
						n++
						v = n
						rt.MutexUnlock(&mu)
					}
					if send {
						rt.Send(ch, v)
					} else {
						rt.Recv(ch)
					}
				})
			}
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for k := 0; k < 10; k++ {
					rt.Gosched()
				}
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// BenchmarkManyEnabled is one run of manyEnabled(1000): 3000 goroutines,
// about 32,000 steps, most of them taken while hundreds to thousands of
// goroutines are enabled. The cost per step must not grow with the number
// of enabled goroutines. The sub-benchmarks are the randomized strategies
// of the default portfolio, and the recorded replay that builds a bug's
// report.
func BenchmarkManyEnabled(b *testing.B) {
	const copies = 1000
	prog := manyEnabled(copies)
	news := []struct {
		name  string
		new   func() engine.Strategy
		trace bool
	}{
		{"random", func() engine.Strategy { return strategy.NewRandom(1) }, false},
		{"pct", func() engine.Strategy { return strategy.NewPCT(1, 3) }, false},
		{"pos", func() engine.Strategy { return strategy.NewPOS(1) }, true},
		// idb: its round-robin order and delay costs are computed in one
		// sort and one pass per point (they were O(choices²) or more, and
		// one run of this program did not end in minutes).
		{"idb", func() engine.Strategy { return strategy.NewIDB(2) }, false},
	}
	for _, n := range news {
		b.Run(n.name, func(b *testing.B) {
			pool := new(engine.Pool)
			defer pool.Close()
			s := n.new()
			for i := 0; i < b.N; i++ {
				if !s.Begin(i + 1) {
					s = n.new()
					s.Begin(1)
				}
				s.End(engine.Run(engine.Config{Pool: pool, Trace: n.trace}, s, prog))
			}
		})
	}
	b.Run("replay", func(b *testing.B) {
		// A recorded replay of a random run's schedule, as the report of
		// a bug is built.
		pool := new(engine.Pool)
		defer pool.Close()
		s := strategy.NewRandom(1)
		s.Begin(1)
		res := engine.Run(engine.Config{Pool: pool}, s, prog)
		keys := make([]string, len(res.Choices))
		for i, c := range res.Choices {
			keys[i] = c.Key()
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			r := strategy.NewReplay(keys)
			r.Begin(1)
			res := engine.Run(engine.Config{Pool: pool, Record: true}, r, prog)
			if res.Bug != nil || !r.Consumed() {
				b.Fatalf("the replay diverged: %v", res.Bug)
			}
		}
	})
}

// lockLoop is one goroutine taking and releasing a mutex n times: the
// shape of golang-lru's Test2Q_RandomOps (every point has one choice).
func lockLoop(n int) func() {
	return func() {
		var mu sync.Mutex
		for i := 0; i < n; i++ {
			rt.MutexLock(&mu)
			rt.MutexUnlock(&mu)
		}
	}
}

// spawnLock is n goroutines that each take a mutex once and call
// WaitGroup.Done, awaited by the test: the shape of golang-lru's
// TestLRUConcurrency (n choices at most points).
func spawnLock(n int) func() {
	return func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, n)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
				rt.WaitGroupDone(&wg)
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// BenchmarkRealShapes is one run per iteration of the shapes of the
// corpus tests that cost heddle the most per run (docs/results/speed.md),
// under the default portfolio and under its members POS (the costliest),
// random (which switches goroutines at about every second step) and PCT
// (which switches least), as explore runs them: traced when the strategy
// needs it, and the run's memory given back to the pool afterwards.
func BenchmarkRealShapes(b *testing.B) {
	shapes := []struct {
		name string
		body func()
	}{
		{"atomics", pingPong(5000)}, // conc's iter.ForEach: 10,000 atomic adds by two goroutines
		{"locks", lockLoop(20000)},
		{"spawn", spawnLock(200)},
	}
	for _, sh := range shapes {
		for _, name := range []string{"portfolio", "pos", "random", "pct"} {
			b.Run(sh.name+"/"+name, func(b *testing.B) {
				s, err := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
				if err != nil {
					b.Fatal(err)
				}
				pool := new(engine.Pool)
				defer pool.Close()
				b.ReportAllocs()
				defer cputime.PerOp(b)()
				for i := 0; i < b.N; i++ {
					s.Begin(i + 1)
					tn, ok := s.(strategy.TraceNeeder)
					res := engine.Run(engine.Config{Pool: pool, Trace: ok && tn.NeedsTrace()}, s, sh.body)
					s.End(res)
					pool.Recycle(res)
				}
			})
		}
	}
}

// sleepersBeside is n goroutines asleep until one instant while two
// goroutines make steps (atomic writes, 2000 in all) before it: every
// step weighs the early waking of the n sleepers (the shape of conc's
// pool tests, whose tasks sleep 1ms, up to a hundred at once).
func sleepersBeside(n int) func() {
	return func() {
		var x int64
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, n+2)
		for i := 0; i < n; i++ {
			rt.Go(func() {
				rt.Sleep(time.Second)
				rt.WaitGroupDone(&wg)
			})
		}
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				for k := 0; k < 1000; k++ {
					rt.AtomicW(&x)
				}
				rt.WaitGroupDone(&wg)
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// BenchmarkStepWithSleepers is one run of sleepersBeside(n) per
// iteration, under random, with early firings bounded as by default
// (100ms): the cost of a step must not grow with the number of sleepers
// due together. It reports the time per step.
func BenchmarkStepWithSleepers(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := strategy.NewRandom(1)
			pool := new(engine.Pool)
			defer pool.Close()
			prog := sleepersBeside(n)
			steps := 0
			for i := 0; i < b.N; i++ {
				s.Begin(i + 1)
				steps += engine.Run(engine.Config{Pool: pool, MaxStarve: 100 * time.Millisecond}, s, prog).Steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}
