package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestStarvationSleepersLoadedOnce checks that hundreds of sleepers due
// at one instant, each an early firing weighed at every point while
// another goroutine works, are added to the set of starvation once each,
// not looked at again at every point: a sleeper stays in the set until
// its timer fires (Timer.inSet). pond's TestPoolSubmitWhileStoppingHasNoRace
// (10,000 sleepers) loaded every sleeper's goroutine at every point, a
// sixth of its processor time.
func TestStarvationSleepersLoadedOnce(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const sleepers, writes = 300, 200
	var looks, steps int
	var counting atomic.Bool
	var weighed atomic.Int64
	starvationHook = func(*Exec, *Timer, time.Duration) {
		if counting.Load() {
			weighed.Add(1)
		}
	}
	defer func() { starvationHook = nil }()
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, &preferFirst{from: 1 << 30}, func() {
		e := Current()
		var started, done sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&started), sleepers)
		e.WaitGroupAdd(unsafe.Pointer(&done), sleepers)
		for range sleepers {
			e.Go(func() {
				e.WaitGroupAdd(unsafe.Pointer(&started), -1)
				e.Sleep(time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&done), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&started))
		looks0, steps0 := e.starveLooks, e.steps
		counting.Store(true)
		var x int64
		for range writes {
			e.Access(unsafe.Pointer(&x), OpAtomicWrite)
		}
		looks, steps = e.starveLooks-looks0, e.steps-steps0
		counting.Store(false)
		e.WaitGroupWait(unsafe.Pointer(&done))
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if steps < writes {
		t.Fatalf("the writes took %d steps, want at least %d", steps, writes)
	}
	// The sleepers' early firings were weighed at every point of the
	// writes.
	if n := weighed.Load(); n < sleepers*writes/2 {
		t.Fatalf("%d starvations weighed in %d steps, want at least %d", n, steps, sleepers*writes/2)
	}
	t.Logf("%d steps: starvation looked at %d goroutines", steps, looks)
	if limit := 4*steps + 2*sleepers; looks > limit {
		t.Errorf("with %d sleepers due at one instant, in %d steps starvation looked at %d goroutines: want at most %d",
			sleepers, steps, looks, limit)
	}
}

// kindsSeen wraps a strategy and counts the sleepers' wakings offered,
// and those without their operation's kind kept in the choice.
type kindsSeen struct {
	Strategy
	sleepers, unkept int
}

func (k *kindsSeen) Choose(p *Point) int {
	for i := range p.Choices {
		if c := &p.Choices[i]; c.G != nil && c.G.op.Kind == OpSleep {
			k.sleepers++
			if c.kind != OpSleep {
				k.unkept++
			}
		}
	}
	return k.Strategy.Choose(p)
}

// TestSleeperChoiceKeepsKind checks that a sleeper's waking, early or on
// time, carries its operation's kind (Choice.PendingKind), so that the
// strategies tell the point's timer part (DFS's delayChoices, timerPart)
// without loading each of thousands of sleepers.
func TestSleeperChoiceKeepsKind(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	k := &kindsSeen{Strategy: &preferFirst{from: 1 << 30}}
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, k, func() {
		e := Current()
		var done sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&done), 20)
		for i := range 20 {
			e.Go(func() {
				e.Sleep(time.Duration(1+i%3) * time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&done), -1)
			})
		}
		var x int64
		for range 50 {
			e.Access(unsafe.Pointer(&x), OpAtomicWrite)
		}
		e.WaitGroupWait(unsafe.Pointer(&done))
	})
	if res.Internal != "" || res.Bug != nil {
		t.Fatalf("unexpected end: %s %v", res.Internal, res.Bug)
	}
	if k.sleepers < 20 {
		t.Fatalf("%d sleepers' wakings offered, want at least 20", k.sleepers)
	}
	if k.unkept > 0 {
		t.Errorf("%d of %d sleepers' wakings offered without their kind", k.unkept, k.sleepers)
	}
}
