package strategy_test

import (
	"syscall"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// infiniteBuffer is eapache/channels' InfiniteChannel with n values sent
// through it: a goroutine between input and output goes round a select of
// three cases (receive, send the oldest value, send the length on a
// channel nobody reads), at most of the run's scheduling points.
func infiniteBuffer(n int) func() {
	return func() {
		in, out, length := make(chan any), make(chan any), make(chan int)
		rt.Go(func() {
			var buf []any
			input, output := in, chan any(nil)
			var next any
			for input != nil || output != nil {
				r := rt.RecvCase(input)
				switch rt.Select(false, r, rt.SendCase(output, next), rt.SendCase(length, len(buf))) {
				case 0:
					if r.OK {
						buf = append(buf, r.V)
					} else {
						input = nil
					}
				case 1:
					buf = buf[1:]
				}
				if len(buf) > 0 {
					output, next = out, buf[0]
				} else {
					output, next = nil, nil
				}
			}
			rt.Close(out)
		})
		rt.Go(func() {
			for i := range n {
				rt.Send(in, any(i))
			}
			rt.Close(in)
		})
		for {
			if _, ok := rt.Recv2(out); !ok {
				break
			}
		}
	}
}

// BenchmarkSelectLoop is runs of infiniteBuffer(200) under IDB and DFS,
// whose spin tracker reads the call site of each select (spinTracker
// observe): one op is one run, a new exploration when one ends. It
// reports the process's processor time per run (cpu-ns/op), which the load
// of a shared machine hardly moves.
func BenchmarkSelectLoop(b *testing.B) {
	for _, name := range []string{"idb", "dfs"} {
		b.Run(name, func(b *testing.B) {
			s, _ := strategy.New(name, strategy.Options{MaxBound: 2})
			var ru0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !s.Begin(i + 1) {
					s, _ = strategy.New(name, strategy.Options{MaxBound: 2})
					s.Begin(1)
				}
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, StepLimit: 100000}, s, infiniteBuffer(200))
				s.End(r)
				if r.Bug != nil {
					b.Fatalf("run %d: %v", i+1, r.Bug.Message)
				}
			}
			b.StopTimer()
			var ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := (ru1.Utime.Nano() + ru1.Stime.Nano()) - (ru0.Utime.Nano() + ru0.Stime.Nano())
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
