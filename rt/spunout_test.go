package rt_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// spinnersLeft is ants' TestNonblockingSubmit after it returned: n
// goroutines spin on Gosched until a flag that no one sets is set (ants'
// longRunningFunc), and, if blocked, one more waits on a channel no one
// sends on.
func spinnersLeft(n int, blocked bool) func() {
	return func() {
		var stop int32
		for range n {
			rt.Go(func() {
				for atomic.LoadInt32(rt.AtomicR(&stop)) == 0 {
					rt.Gosched()
				}
			})
		}
		if blocked {
			rt.Go(func() { rt.Recv(rt.MakeChan[chan int](0)) })
		}
	}
}

// TestSpinnersLeftEndTheRun: when every goroutine left after the test
// returned can only poll (nothing they load can change, no timer is left),
// the fair phase starts at once and the run ends once each has polled 64
// times in a row, not after the post-test phase's 10,000 steps; the spinners are not reported (heddle
// cannot tell them from a finite loop), a goroutine blocked beside them
// is a leak. Every strategy of the portfolio ends there.
func TestSpinnersLeftEndTheRun(t *testing.T) {
	for _, name := range []string{"random", "pos", "pct", "idb", "dfs"} {
		for _, blocked := range []bool{false, true} {
			s, err := strategy.New(name, strategy.Options{Seed: 1, PCTDepth: 3, MaxBound: 2})
			if err != nil {
				t.Fatal(err)
			}
			s.Begin(1)
			res := engine.Run(engine.Config{Trace: true}, s, spinnersLeft(9, blocked))
			s.End(res)
			switch {
			case !blocked && res.Bug != nil:
				t.Errorf("%s: %s: %s", name, res.Bug.Kind, res.Bug.Message)
			case blocked && (res.Bug == nil || res.Bug.Kind != engine.KindLeak || len(res.Bug.Blocked) != 1 || len(res.Bug.Running) != 0):
				t.Errorf("%s: got %v, want a leak of the blocked goroutine only", name, res.Bug)
			case blocked && !strings.Contains(res.Bug.Message, "polled without progress"):
				t.Errorf("%s: message %q does not say why the run ended", name, res.Bug.Message)
			}
			t.Logf("%s (blocked %v): %d steps", name, blocked, res.Steps)
			// 9 spinners, 64 polls each, and the test's own steps. (POS
			// kept a spinner of low priority from running until the
			// fair phase, 5,000 steps after the test, when the fair
			// phase did not start as soon as only polls were left.)
			if res.Steps > 1500 {
				t.Errorf("%s (blocked %v): %d steps for nine spinners left after the test", name, blocked, res.Steps)
			}
		}
	}
}

// TestShortPollingLoopAfterTheTestRunsToItsEnd: a goroutine left after the
// test that polls fewer than 64 times in a row and then fails is still run
// to its end: the run ends early only for goroutines that polled 64 times.
func TestShortPollingLoopAfterTheTestRunsToItsEnd(t *testing.T) {
	res := runOnce(t, engine.Config{}, func() {
		rt.Go(func() {
			for range 40 {
				rt.Gosched()
			}
			rt.Recv(rt.MakeChan[chan int](0))
		})
		spinnersLeft(3, false)()
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindLeak || len(res.Bug.Blocked) != 1 || res.Bug.Blocked[0].ID != "g0.1" {
		t.Fatalf("got %v after %d steps, want the leak of g0.1 after its 40 polls", res.Bug, res.Steps)
	}
}
