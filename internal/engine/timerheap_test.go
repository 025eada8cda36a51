package engine

import (
	"math"
	"math/rand"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestTimerHeapMatchesList checks the heap of active timers against a
// list of them in the order they became active, as the engine kept them
// before: the next timer is the one due first (by seq among equals), and
// the timers due with it come in the list's order, through random starts,
// stops, resets and ticks.
func TestTimerHeapMatchesList(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := range 200 {
		e := &Exec{}
		var list []*Timer // active, in activation order
		var all []*Timer
		seq := uint64(0)
		remove := func(x *Timer) {
			for i, y := range list {
				if y == x {
					list = append(list[:i], list[i+1:]...)
					return
				}
			}
		}
		for range 300 {
			switch k := r.Intn(10); {
			case k < 4 || len(all) == 0: // a new timer
				seq++
				x := &Timer{when: time.Duration(r.Intn(8)), seq: seq, active: true}
				if r.Intn(20) == 0 {
					x.when = math.MaxInt64
				}
				all = append(all, x)
				list = append(list, x)
				e.pushTimer(x)
			case k < 6: // stop
				x := all[r.Intn(len(all))]
				if x.active {
					remove(x)
				}
				e.stopTimer(x)
			case k < 8: // reset: stop, then start again
				x := all[r.Intn(len(all))]
				if x.active {
					remove(x)
				}
				e.stopTimer(x)
				e.nTimers = seq
				e.startTimer(x, time.Duration(r.Intn(8)))
				seq = e.nTimers
				list = append(list, x)
			default: // a ticker's next tick: a later deadline, in place
				if len(list) == 0 {
					continue
				}
				x := list[r.Intn(len(list))]
				x.when += time.Duration(1 + r.Intn(3))
				seq++
				x.seq = seq
				e.fixTimer(x.hi)
			}
			// The reference: a pass over the list.
			var want *Timer
			for _, x := range list {
				if x.when == math.MaxInt64 {
					continue
				}
				if want == nil || x.when < want.when || (x.when == want.when && x.seq < want.seq) {
					want = x
				}
			}
			got := e.nextTimer(false)
			if got != want {
				t.Fatalf("round %d: nextTimer is %p, want %p", round, got, want)
			}
			if len(e.timers) != len(list) {
				t.Fatalf("round %d: %d timers in the heap, want %d", round, len(e.timers), len(list))
			}
			if want == nil {
				continue
			}
			var same []*Timer
			for _, x := range list {
				if x.when == want.when {
					same = append(same, x)
				}
			}
			if r.Intn(4) == 0 {
				// Another deadline: the pass the engine makes when the
				// first timer is left out (a full ticker, idle).
				w := time.Duration(r.Intn(10))
				var wantAt []*Timer
				for _, x := range list {
					if x.when == w {
						wantAt = append(wantAt, x)
					}
				}
				if got := e.timersAt(w); !sameTimers(got, wantAt) {
					t.Fatalf("round %d: timers due at %v: got %d, want %d in activation order", round, w, len(got), len(wantAt))
				}
			}
			at := e.timersAt(want.when)
			if len(at) != len(same) {
				t.Fatalf("round %d: %d timers due at %v, want %d", round, len(at), want.when, len(same))
			}
			for i := range at {
				if at[i] != same[i] {
					t.Fatalf("round %d: timer %d due at %v out of activation order", round, i, want.when)
				}
			}
		}
	}
}

func sameTimers(a, b []*Timer) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTimersLookedAtPerStep checks that a step does not look at every
// active timer: with a thousand sleepers due at different instants, the
// next timer and the ones due with it are found in the heap. A pass over
// all of them at every step (two: the next one, then the ones due with it)
// made ants' pool tests, a thousand workers sleeping, spend a third of
// their time there.
func TestTimersLookedAtPerStep(t *testing.T) {
	const sleepers, writes = 1000, 2000
	var e0 *Exec
	s := &roundRobin{}
	res := Run(Config{MaxStarve: time.Millisecond}, s, func() {
		e := Current()
		e0 = e
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), sleepers+1)
		for i := range sleepers {
			e.Go(func() {
				e.Sleep(time.Second + time.Duration(i)*time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		var x int64
		e.Go(func() {
			for range writes {
				e.Access(unsafe.Pointer(&x), OpAtomicWrite)
			}
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %v", res.Bug.Message)
	}
	if res.Steps < writes {
		t.Fatalf("the run took %d steps, want at least %d", res.Steps, writes)
	}
	if e0.timerLooks > 4*res.Steps {
		t.Fatalf("%d timers looked at in %d steps, want a few a step", e0.timerLooks, res.Steps)
	}
}
