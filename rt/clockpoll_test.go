package rt_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// A busy-wait on the clock is polling: the virtual clock must move, so
// that the wait ends, as it would natively, within a few thousand steps
// (the step bound is a million). Before, the pure loops never ended (the
// clock moved only at timer firings) and the polling ones took a
// microsecond a step, past the step bound.
func TestBusyWaitOnClockEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
	}{
		{"pure clock loop", func() {
			start := rt.Now()
			for rt.Since(start) < 10*time.Second {
			}
		}},
		{"until a deadline", func() {
			deadline := rt.Now().Add(time.Minute)
			for rt.Now().Before(deadline) {
			}
		}},
		{"with Gosched", func() {
			start := rt.Now()
			for rt.Since(start) < time.Minute {
				rt.Gosched()
			}
		}},
		// golang-lru's expirable TestLoadingExpired: for { Get } until a
		// 5 ms TTL passes, where Get reads the clock under the cache's
		// lock, so that every read has scheduling points before it.
		{"reads under a lock", func() {
			var mu sync.Mutex
			expires := rt.Now().Add(5 * time.Millisecond)
			for {
				rt.MutexLock(&mu)
				expired := rt.Now().After(expires)
				rt.MutexUnlock(&mu)
				if expired {
					break
				}
			}
		}},
		{"with an atomic beside a sleeper", func() {
			var flag atomic.Bool
			rt.Go(func() {
				rt.Sleep(30 * time.Second)
				rt.AtomicW(&flag).Store(true)
			})
			start := rt.Now()
			for !rt.AtomicR(&flag).Load() && rt.Since(start) < time.Hour {
			}
			if !rt.AtomicR(&flag).Load() {
				panic("the wait timed out before the sleeper woke")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"random", "pct", "dfs"} {
				s, _ := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3})
				s.Begin(1)
				res := engine.Run(engine.Config{}, s, tc.body)
				if res.Bug != nil {
					t.Fatalf("%s: %s: %s", name, res.Bug.Kind, res.Bug.Message)
				}
				if res.Steps > 10000 {
					t.Errorf("%s: the wait took %d steps", name, res.Steps)
				}
			}
		})
	}
}
