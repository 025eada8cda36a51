package strategy_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Benchmarks; see docs/strategies.md for the numbers and the command.

func benchConfig(s engine.Strategy) engine.Config {
	cfg := engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 5000}
	if tn, ok := s.(strategy.TraceNeeder); ok && tn.NeedsTrace() {
		cfg.Trace = true
	}
	if rn, ok := s.(strategy.RecordNeeder); ok && rn.NeedsRecord() {
		cfg.Record = true
	}
	return cfg
}

var benchStrategies = []string{"random", "pct", "pos", "dfs", "ipb", "idb", "sdpor", "odpor", "lazy", "hbrcache", "lazycache", "hapset", "portfolio"}

// BenchmarkRunsPerSecond: one op is one run of lastzero-3 under the
// strategy (a new exploration starts when one ends).
func BenchmarkRunsPerSecond(b *testing.B) {
	body := lastzero(3)
	for _, name := range benchStrategies {
		b.Run(name, func(b *testing.B) {
			s, _ := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
			cfg := benchConfig(s)
			run := 1
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !s.Begin(run) {
					s, _ = strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
					run = 1
					s.Begin(run)
				}
				r := engine.Run(cfg, s, body)
				s.End(r)
				run++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkDPOROverhead: the cost of one run of the same program under
// random (no trace), random with the trace DPOR needs, and optimal DPOR
// (trace, events, vector clocks, race analysis, wakeup trees).
func BenchmarkDPOROverhead(b *testing.B) {
	for _, prog := range []struct {
		name string
		body func()
	}{{"lastzero-4", lastzero(4)}, {"indexer-3", indexer(3)}} {
		for _, mode := range []string{"random", "random+trace", "odpor"} {
			b.Run(prog.name+"/"+mode, func(b *testing.B) {
				var s engine.Strategy
				newS := func() engine.Strategy {
					if mode == "odpor" {
						return strategy.NewOptimalDPOR()
					}
					return strategy.NewRandom(1)
				}
				s = newS()
				cfg := benchConfig(s)
				cfg.Trace = mode != "random"
				run := 1
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if !s.Begin(run) {
						s, run = newS(), 1
						s.Begin(run)
					}
					s.End(engine.Run(cfg, s, prog.body))
					run++
				}
			})
		}
	}
}

// workers is a long run of channel traffic: n values sent on an
// unbuffered channel to three workers that select between it and a quit
// channel.
func workers(n int) func() {
	return func() {
		ch := rt.MakeChan[chan int](0)
		quit := rt.MakeChan[chan int](1)
		done := rt.MakeChan[chan int](0)
		for w := 0; w < 3; w++ {
			rt.Go(func() {
				for rt.Select(false, rt.RecvCase(ch), rt.RecvCase(quit)) == 0 {
				}
				rt.Send(quit, 1)
				rt.Send(done, 1)
			})
		}
		for i := 0; i < n; i++ {
			rt.Send(ch, i)
		}
		rt.Send(quit, 1)
		for w := 0; w < 3; w++ {
			rt.Recv(done)
		}
	}
}

// BenchmarkDPORLongRun: the first run of optimal DPOR on a run of about
// 1000 steps of channel traffic, race analysis included (see
// BenchmarkDPORLongRunSteps for longer runs).
func BenchmarkDPORLongRun(b *testing.B) {
	for i := 0; i < b.N; i++ {
		d := strategy.NewOptimalDPOR()
		d.Begin(1)
		d.End(engine.Run(benchConfig(d), d, workers(1000)))
	}
}

// mutexChan is a long run of mutex and channel traffic: g goroutines
// each take a mutex, add to a counter, release it and send on a buffered
// channel, n times; the test goroutine receives every value: about 5g
// steps per n.
func mutexChan(g, n int) func() {
	return func() {
		var mu sync.Mutex
		var x int32
		ch := rt.MakeChan[chan int32](g)
		for w := 0; w < g; w++ {
			rt.Go(func() {
				for i := 0; i < n; i++ {
					rt.MutexLock(&mu)
					v := atomic.AddInt32(rt.AtomicW(&x), 1)
					rt.MutexUnlock(&mu)
					rt.Send(ch, v)
				}
			})
		}
		for i := 0; i < g*n; i++ {
			rt.Recv(ch)
		}
	}
}

// BenchmarkDPORLongRunSteps: the first run of a DPOR on a run of about
// 20,000 and 100,000 steps of mutex and channel traffic (mutexChan) by 4
// and 16 goroutines, every step analyzed (MaxSteps above the run's
// length).
func BenchmarkDPORLongRunSteps(b *testing.B) {
	for _, steps := range []int{20000, 100000} {
		for _, g := range []int{4, 16} {
			for _, name := range []string{"odpor", "sdpor", "lazy"} {
				if g > 4 && name != "odpor" {
					continue
				}
				b.Run(fmt.Sprintf("%d/g%d/%s", steps, g, name), func(b *testing.B) {
					n := 0
					for i := 0; i < b.N; i++ {
						s, _ := strategy.New(name, strategy.Options{})
						var d *strategy.DPOR
						switch s := s.(type) {
						case *strategy.DPOR:
							d = s
						case *strategy.LazyDPOR:
							d = s.DPOR
						}
						d.MaxSteps = 2 * steps
						d.Begin(1)
						r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true}, d, mutexChan(g, steps/(5*g)))
						d.End(r)
						n = r.Steps
						if d.CutRuns > 0 {
							b.Fatalf("the run of %d steps was cut", r.Steps)
						}
					}
					b.ReportMetric(float64(n), "steps")
				})
			}
		}
	}
}

// BenchmarkFamilies: one op is a whole exhaustive exploration; the runs
// it took are reported. Explorations over 200000 runs are skipped.
func BenchmarkFamilies(b *testing.B) {
	type fam struct {
		name string
		ns   []int
		body func(int) func()
	}
	fams := []fam{
		{"readers", []int{2, 4, 6, 8}, readers},
		{"lastzero", []int{2, 3, 4, 5}, lastzero},
		{"indexer", []int{2, 3, 4, 8, 12, 13}, indexer},
	}
	for _, f := range fams {
		for _, n := range f.ns {
			for _, name := range []string{"dfs", "sdpor", "odpor", "lazy"} {
				b.Run(fmt.Sprintf("%s-%d/%s", f.name, n, name), func(b *testing.B) {
					runs := 0
					for i := 0; i < b.N; i++ {
						s, _ := strategy.New(name, strategy.Options{})
						cfg := benchConfig(s)
						runs = 0
						for run := 1; s.Begin(run); run++ {
							if run > 200000 {
								b.Skip("over 200000 runs")
							}
							s.End(engine.Run(cfg, s, f.body(n)))
							runs++
						}
					}
					b.ReportMetric(float64(runs), "runs")
				})
			}
		}
	}
}

// BenchmarkDPORStoppedTimers: one run in which a goroutine starts and
// stops n timers while another locks a mutex, analyzed whole. Every
// stopped timer was a choice that never fired, and its firing races with
// the steps before the Stop (dpor_timers.go); the vector clock of each
// was a scan of the run (Grpc3017 spent 28 s a run on it), and is now
// read from the run's index.
func BenchmarkDPORStoppedTimers(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			steps := 0
			for i := 0; i < b.N; i++ {
				d := strategy.NewSourceDPOR()
				d.MaxSteps = 1 << 20
				d.Begin(1)
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true}, d, func() {
					var mu sync.Mutex
					done := rt.MakeChan[chan bool](0)
					rt.Go(func() {
						for j := 0; j < n; j++ {
							rt.MutexLock(&mu)
							rt.MutexUnlock(&mu)
						}
						rt.Send(done, true)
					})
					for j := 0; j < n; j++ {
						tm := rt.NewTimer(time.Millisecond)
						rt.TimerStop(tm)
					}
					rt.Recv(done)
				})
				d.End(r)
				steps = r.Steps
			}
			b.ReportMetric(float64(steps), "steps")
		})
	}
}

// BenchmarkSDPORMemory: one op is source DPOR's whole exploration of
// lastzero-n; -benchmem's B/op is what it allocated (source DPOR keeps no
// wakeup trees: TestSDPORNoWakeupNodes).
func BenchmarkSDPORMemory(b *testing.B) {
	for _, n := range []int{5, 7, 9} {
		b.Run(fmt.Sprintf("lastzero-%d", n), func(b *testing.B) {
			b.ReportAllocs()
			runs := 0
			for i := 0; i < b.N; i++ {
				d := strategy.NewSourceDPOR()
				cfg := benchConfig(d)
				runs = 0
				for run := 1; d.Begin(run); run++ {
					d.End(engine.Run(cfg, d, lastzero(n)))
					runs++
				}
			}
			b.ReportMetric(float64(runs), "runs")
		})
	}
}
