package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// fewBusy runs, among the goroutines made from index from on, the one
// after the previous one (round robin), and the others only when none of
// those can run: hundreds of goroutines made before from stay enabled
// (not started) through the run, as the workers of ants' pool tests do.
type fewBusy struct {
	from *atomic.Int64
	next int
}

func (*fewBusy) Begin(int) bool { return true }
func (*fewBusy) End(*Result)    {}
func (f *fewBusy) Choose(p *Point) int {
	from := int(f.from.Load())
	var busy []int
	for i, c := range p.Choices {
		if c.G != nil && c.G.Index >= from && c.Early == 0 {
			busy = append(busy, i)
		}
	}
	if len(busy) == 0 {
		return 0
	}
	f.next++
	return busy[f.next%len(busy)]
}

// TestStarvationLooksAtChangedChoices checks that, with hundreds of
// goroutines enabled at every step while a few do the work, weighing a
// timer's early firing at every step looks at the few whose choices
// changed, not at every enabled goroutine: the set of starvation is kept
// from weighing to weighing, and only the goroutines the enabled set
// recomputed may join it. It looked at every choice at every step.
func TestStarvationLooksAtChangedChoices(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const idle, writes = 300, 200
	var from atomic.Int64
	from.Store(1 << 30)
	var e0 *Exec
	var starve0, steps0 int
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, &fewBusy{from: &from}, func() {
		e := Current()
		e0 = e
		var release, wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&release), 1)
		for range idle {
			e.Go(func() { e.WaitGroupWait(unsafe.Pointer(&release)) })
		}
		from.Store(int64(len(e.gs)))
		starve0, steps0 = e.starveLooks, e.steps
		var flag int32
		e.WaitGroupAdd(unsafe.Pointer(&wg), 4)
		e.Go(func() {
			for range 50 {
				e.Sleep(time.Millisecond)
			}
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		e.Go(func() {
			for {
				e.Access(unsafe.Pointer(&flag), OpAtomicLoad)
				if atomic.LoadInt32(&flag) != 0 {
					break
				}
				e.Gosched()
			}
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		var left atomic.Int32
		left.Store(2)
		for range 2 {
			var x int64
			e.Go(func() {
				for range writes {
					e.Access(unsafe.Pointer(&x), OpAtomicWrite)
				}
				if left.Add(-1) == 0 {
					e.Access(unsafe.Pointer(&flag), OpAtomicWrite)
					atomic.StoreInt32(&flag, 1)
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
		from.Store(0)
		e.WaitGroupAdd(unsafe.Pointer(&release), -1)
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	steps := res.Steps - steps0
	starve := e0.starveLooks - starve0
	t.Logf("%d steps: starvation looked at %d goroutines", steps, starve)
	if steps < 2*writes {
		t.Fatalf("the run took %d steps, want at least %d", steps, 2*writes)
	}
	// The idle goroutines are looked at once, and at their last steps.
	if limit := 4*steps + 4*idle; starve > limit {
		t.Errorf("with %d goroutines enabled, in %d steps starvation looked at %d goroutines: want at most %d",
			idle, steps, starve, limit)
	}
}

// preferFirst runs g0 whenever it can, else the goroutine made last of
// those made from index from on, else g0 waking early.
type preferFirst struct{ from int }

func (*preferFirst) Begin(int) bool { return true }
func (*preferFirst) End(*Result)    {}
func (f *preferFirst) Choose(p *Point) int {
	best, early := -1, 0
	for i, c := range p.Choices {
		switch {
		case c.G == nil:
		case c.G.Index == 0 && c.Early == 0:
			return i
		case c.G.Index == 0:
			early = i
		case c.G.Index >= f.from && c.Early == 0 && (best < 0 || c.G.Index > p.Choices[best].G.Index):
			best = i
		}
	}
	if best < 0 {
		return early
	}
	return best
}

// TestMergeSkipsCleanChoices checks that a pass of the enabled set with
// many dirty goroutines (the writers waiting on an RWMutex, at each Lock
// and Unlock; a Mutex's waiters are a group, lockgroup.go)
// does not look at every choice between them: hundreds of goroutines not
// started lie between the mutex's holder and its waiters. merge scanned
// them one by one, at every Lock and Unlock.
func TestMergeSkipsCleanChoices(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	const idle, waiters, iters = 400, 24, 100
	var e0 *Exec
	var probes, merges int
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, &preferFirst{from: 1 + idle}, func() {
		e := Current()
		e0 = e
		for range idle {
			e.Go(func() {})
		}
		var mu sync.RWMutex
		var wg sync.WaitGroup
		e.RWLock(unsafe.Pointer(&mu))
		e.WaitGroupAdd(unsafe.Pointer(&wg), waiters)
		for range waiters {
			e.Go(func() {
				e.RWLock(unsafe.Pointer(&mu))
				e.RWUnlock(unsafe.Pointer(&mu))
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.Sleep(time.Millisecond) // the waiters block
		p0, m0 := e.es.probes, e.es.merges
		for range iters {
			e.RWUnlock(unsafe.Pointer(&mu))
			e.RWLock(unsafe.Pointer(&mu))
		}
		probes, merges = e.es.probes-p0, e.es.merges-m0
		e.RWUnlock(unsafe.Pointer(&mu))
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if n := len(e0.gs); n != 1+idle+waiters {
		t.Fatalf("%d goroutines, want %d", n, 1+idle+waiters)
	}
	t.Logf("%d merges, %d choices looked at to place the dirty goroutines", merges, probes)
	if merges < iters {
		t.Fatalf("%d merges in %d Lock/Unlock iterations, want at least %d", merges, iters, iters)
	}
	if probes > merges*(2*waiters+64) {
		t.Errorf("%d merges with %d waiters behind %d goroutines not started looked at %d choices, want at most %d",
			merges, waiters, idle, probes, merges*(2*waiters+64))
	}
}
