package rt_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// sticky runs the goroutine that ran the previous step for as long as it
// can, as PCT does with its highest priority goroutine.
type sticky struct{}

func (sticky) Begin(int) bool     { return true }
func (sticky) End(*engine.Result) {}
func (sticky) Choose(p *engine.Point) int {
	if p.Prev >= 0 {
		return p.Prev
	}
	return 0
}

// pollRun runs body under sticky and returns its steps; body's main
// goroutine polls while the goroutine it started works.
func pollRun(t *testing.T, body func()) int {
	t.Helper()
	res := engine.Run(engine.Config{StepLimit: 200000}, sticky{}, body)
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	return res.Steps
}

// A loop that polls two atomics in turn, or receives from a closed
// channel, makes no progress: the goroutine is dropped from the choices
// while the one it waits for can run. It counted as progress (only a load
// of the atomic loaded last was remembered; a receive was always
// progress), and a strategy that preferred the poller (PCT) ran it until
// the fair scheduler took over, half the step bound: ants' ReleaseContext
// loop (a select on a closed channel, two receives from closed channels,
// three atomic loads) made every PCT run of its MultiPool tests half a
// million steps long.
func TestPollingLoopsAreSpinning(t *testing.T) {
	const work = 50
	work2 := func(flag *atomic.Int32) {
		var x atomic.Int64
		for range work {
			rt.AtomicW(&x).Add(1)
		}
		rt.AtomicW(flag).Store(1)
	}
	t.Run("two atomics", func(t *testing.T) {
		steps := pollRun(t, func() {
			var flag, other atomic.Int32
			rt.Go(func() { work2(&flag) })
			for rt.AtomicR(&other).Load() == 0 && rt.AtomicR(&flag).Load() == 0 {
			}
		})
		if steps > 10*work {
			t.Errorf("the run took %d steps for %d of work, want at most %d", steps, work, 10*work)
		}
	})
	t.Run("closed channels", func(t *testing.T) {
		steps := pollRun(t, func() {
			var flag atomic.Int32
			done := rt.MakeChan[chan struct{}](0)
			rt.Close(done)
			rt.Go(func() { work2(&flag) })
			for {
				rt.Select(false, rt.RecvCase(done))
				rt.Recv(done)
				if rt.AtomicR(&flag).Load() != 0 {
					break
				}
			}
		})
		if steps > 10*work {
			t.Errorf("the run took %d steps for %d of work, want at most %d", steps, work, 10*work)
		}
	})
	t.Run("select on a closed channel", func(t *testing.T) {
		// A select with a second case that never becomes ready: the
		// closed channel's case is the only one ready.
		steps := pollRun(t, func() {
			var flag atomic.Int32
			done := rt.MakeChan[chan struct{}](0)
			never := rt.MakeChan[chan struct{}](0)
			rt.Close(done)
			rt.Go(func() { work2(&flag) })
			for {
				rt.Select(false, rt.RecvCase(never), rt.RecvCase(done))
				rt.Recv(done)
				if rt.AtomicR(&flag).Load() != 0 {
					break
				}
			}
		})
		if steps > 10*work {
			t.Errorf("the run took %d steps for %d of work, want at most %d", steps, work, 10*work)
		}
	})
}

// A receive that takes a value, from a closed channel's buffer too, is
// progress: a goroutine draining a closed channel is not dropped.
func TestDrainingAClosedChannelIsProgress(t *testing.T) {
	var e0 *engine.Exec
	var spins []int
	res := engine.Run(engine.Config{}, sticky{}, func() {
		e0 = engine.Current()
		ch := rt.MakeChan[chan int](8)
		for i := range 8 {
			rt.Send(ch, i)
		}
		rt.Close(ch)
		for range 8 {
			rt.Recv(ch)
			spins = append(spins, e0.Cur().Spins())
		}
		for range 3 {
			rt.Recv(ch) // the zero value: no progress
			spins = append(spins, e0.Cur().Spins())
		}
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	want := []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}
	for i := range want {
		if spins[i] != want[i] {
			t.Fatalf("spins after each receive: %v, want %v", spins, want)
		}
	}
}

// Straight-line code that reads the same atomics again between locks (a
// pool's state and capacity, read at each call) is not polling: only the
// loads of a streak of operations that may be polls are remembered
// together, and a lock ends the streak. Each poll moves the clock.
func TestLoadsBetweenLocksAreNotPolls(t *testing.T) {
	var spins []int
	res := engine.Run(engine.Config{}, sticky{}, func() {
		e := engine.Current()
		var a, b atomic.Int32
		var mu sync.Mutex
		for range 5 {
			rt.AtomicR(&a).Load()
			spins = append(spins, e.Cur().Spins())
			rt.AtomicR(&b).Load()
			spins = append(spins, e.Cur().Spins())
			rt.MutexLock(&mu)
			rt.MutexUnlock(&mu)
		}
		// The same loads with nothing in between: a poll from the third.
		for range 2 {
			rt.AtomicR(&a).Load()
			spins = append(spins, e.Cur().Spins())
			rt.AtomicR(&b).Load()
			spins = append(spins, e.Cur().Spins())
		}
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	want := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2}
	for i := range want {
		if spins[i] != want[i] {
			t.Fatalf("spins after each load: %v, want %v", spins, want)
		}
	}
}
