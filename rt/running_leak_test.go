package rt_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// runOnce runs body once under the random strategy with the default step
// bound and returns the result.
func runOnce(t *testing.T, cfg engine.Config, body func()) *engine.Result {
	t.Helper()
	s := strategy.NewRandom(1)
	s.Begin(1)
	if cfg.MaxStarve == 0 {
		cfg.MaxStarve = 100 * time.Millisecond
	}
	res := engine.Run(cfg, s, body)
	s.End(res)
	return res
}

// retryForever is a retry loop on a ticker whose exit condition never
// becomes true: the goroutine never blocks and never ends.
func retryForever(period time.Duration) func() {
	return func() {
		var ok int32 // nobody ever sets it
		rt.Go(func() {
			tk := rt.NewTicker(period)
			defer rt.TickerStop(tk)
			for {
				rt.Recv(tk.C)
				if atomic.LoadInt32(rt.AtomicR(&ok)) == 1 {
					return
				}
			}
		})
	}
}

// TestRunningForeverIsALeak: a goroutine that loops forever on a ticker
// after the test returned is a leak, as goleak reports it, whatever its
// period: a fast ticker keeps it running through the whole window, a slow
// one leaves it waiting for a tick past the horizon.
func TestRunningForeverIsALeak(t *testing.T) {
	for _, period := range []time.Duration{time.Millisecond, 10 * time.Second} {
		t.Run(period.String(), func(t *testing.T) {
			res := runOnce(t, engine.Config{Record: true}, retryForever(period))
			if res.Bug == nil || res.Bug.Kind != engine.KindLeak {
				t.Fatalf("got %v after %d steps, want a leak", res.Bug, res.Steps)
			}
			if len(res.Bug.Running) != 1 || res.Bug.Running[0].ID != "g0.1" || len(res.Bug.Blocked) != 0 {
				t.Fatalf("running %v, blocked %v: want g0.1 running", res.Bug.Running, res.Bug.Blocked)
			}
			if !strings.Contains(res.Bug.Message, "still running") || !strings.Contains(res.Bug.Message, "running_leak_test.go:") {
				t.Errorf("message %q does not say where the goroutine loops", res.Bug.Message)
			}
		})
	}
}

// TestFinishingWithinTheHorizonIsNoLeak: goroutines that end within the
// horizon after the test returned (a sleeper, a ticker loop that gives up
// after 30 seconds) are not leaks.
func TestFinishingWithinTheHorizonIsNoLeak(t *testing.T) {
	progs := map[string]func(){
		"sleep": func() {
			rt.Go(func() { rt.Sleep(30 * time.Second) })
		},
		"ticker": func() {
			rt.Go(func() {
				tk := rt.NewTicker(10 * time.Millisecond)
				defer rt.TickerStop(tk)
				deadline := rt.Now().Add(30 * time.Second)
				for rt.Now().Before(deadline) {
					rt.Recv(tk.C)
				}
			})
		},
	}
	for name, prog := range progs {
		t.Run(name, func(t *testing.T) {
			res := runOnce(t, engine.Config{}, prog)
			if res.Bug != nil {
				t.Fatalf("%s: %s after %d steps", res.Bug.Kind, res.Bug.Message, res.Steps)
			}
		})
	}
}

// TestRunningLeakBesideBlocked: a goroutine blocked forever and one
// running forever are both in the report.
func TestRunningLeakBesideBlocked(t *testing.T) {
	res := runOnce(t, engine.Config{}, func() {
		retryForever(time.Millisecond)()
		rt.Go(func() { rt.Send(rt.MakeChan[chan int](0), 1) })
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindLeak {
		t.Fatalf("got %v, want a leak", res.Bug)
	}
	if len(res.Bug.Blocked) != 1 || res.Bug.Blocked[0].ID != "g0.2" || len(res.Bug.Running) != 1 || res.Bug.Running[0].ID != "g0.1" {
		t.Fatalf("blocked %v, running %v: want g0.2 blocked and g0.1 running (%s)", res.Bug.Blocked, res.Bug.Running, res.Bug.Message)
	}
}

// TestNoLeaksRunsNoLonger: with leaks not reported, the goroutines left
// are not run on to the horizon.
func TestNoLeaksRunsNoLonger(t *testing.T) {
	res := runOnce(t, engine.Config{NoLeaks: true}, retryForever(time.Millisecond))
	if res.Bug != nil && res.Bug.Kind != engine.KindLeak {
		t.Fatalf("got %v", res.Bug)
	}
	if res.Steps > 40000 {
		t.Errorf("%d steps with leaks off, want the short window", res.Steps)
	}
}

// TestBusyAfterTheTestIsNoLeak: a goroutine that polls 600,000 times after
// the test returned (Kubernetes58107's Sync, in small) moves the clock by
// 1 µs a poll: at that pace the horizon is out of reach of the step
// budget, so the run is cut short as before and nothing is reported (it
// ends natively in a few milliseconds).
func TestBusyAfterTheTestIsNoLeak(t *testing.T) {
	res := runOnce(t, engine.Config{}, func() {
		rt.Go(func() {
			for i := 0; i < 600000; i++ {
				rt.Gosched()
			}
		})
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s after %d steps", res.Bug.Kind, res.Bug.Message, res.Steps)
	}
	if res.Steps > 40000 {
		t.Errorf("%d steps: the run was extended towards a horizon it cannot reach", res.Steps)
	}
}
