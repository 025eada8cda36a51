package engine

import (
	"sync"
	"testing"
	"time"
	"unsafe"
)

// alternating runs a goroutine other than the previous one whenever it
// can, and never fires a timer early; it notes the longest list of
// goroutines the starvation accounting kept.
type alternating struct{ longest, gs int }

func (*alternating) Begin(int) bool { return true }
func (*alternating) End(*Result)    {}
func (a *alternating) Choose(p *Point) int {
	if n := len(p.Exec.starveHeap); n > a.longest {
		a.longest, a.gs = n, len(p.Exec.gs)
	}
	for i, c := range p.Choices {
		if i != p.Prev && c.G != nil && c.Early == 0 {
			return i
		}
	}
	return 0
}

// TestStarvationListBounded checks that the goroutines the starvation
// accounting remembers (could run when a timer's early firing was
// weighed, and have not run since) are kept in a bounded heap: entries of
// goroutines that ran since are dropped once they are as many as the
// goroutines, however long the run. The list grew by an entry per step
// of every goroutine that ran between two weighings, and a run of conc's
// pool tests spent 80% of its time scanning it.
func TestStarvationListBounded(t *testing.T) {
	a := &alternating{}
	const n = 2000
	res := Run(Config{MaxStarve: 100 * time.Millisecond}, a, func() {
		e := Current()
		var x int64
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), 3)
		// A sleeper: its timer is weighed at every step of the others.
		e.Go(func() {
			e.Sleep(50 * time.Millisecond)
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
		for range 2 {
			e.Go(func() {
				for range n {
					e.Access(unsafe.Pointer(&x), OpAtomicWrite)
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %v", res.Bug.Message)
	}
	if res.Steps < 2*n {
		t.Fatalf("the run took %d steps, want at least %d", res.Steps, 2*n)
	}
	if a.longest > max(65, 2*a.gs+1) {
		t.Fatalf("the starvation heap held %d entries with %d goroutines", a.longest, a.gs)
	}
}

// randomish chooses pseudo-randomly among all choices, early firings
// included.
type randomish struct{ x uint64 }

func (*randomish) Begin(int) bool { return true }
func (*randomish) End(*Result)    {}
func (r *randomish) Choose(p *Point) int {
	r.x = r.x*6364136223846793005 + 1442695040888963407
	return int((r.x >> 33) % uint64(len(p.Choices)))
}

// TestStarvationMatchesDefinition checks every starvation the engine
// computes (kept once per pass of enabled, as the two goroutines that
// ran least recently) against its definition: the time since the
// goroutine that ran least recently among the choices and the
// goroutines remembered as starved ran (or since no goroutine could
// run), the timer's own sleeper aside. The program has many sleepers
// due at one instant, woken early or not, beside busy goroutines.
func TestStarvationMatchesDefinition(t *testing.T) {
	checked, early := 0, 0
	var mismatch string
	var mu sync.Mutex // the hook runs on the controlled goroutines, with go test -race too
	starvationHook = func(e *Exec, tm *Timer, got time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		since := tm.when
		see := func(g *G) {
			if g != nil && g != tm.sleeper {
				since = min(since, max(g.ranAt, e.idleAt))
			}
		}
		seen := map[*G]int{}
		for i := range e.starveHeap {
			if s := &e.starveHeap[i]; s.live() {
				seen[s.g]++
				see(s.g)
			}
		}
		for _, g := range e.gs {
			if g.couldRun && g.state != gDone && seen[g] == 0 {
				mismatch = "a goroutine marked as starved is not in the set"
			}
		}
		for _, c := range e.choices {
			see(c.G)
		}
		for _, n := range seen {
			if n > 1 {
				mismatch = "a goroutine listed twice as starved"
			}
		}
		if want := max(tm.when-since, 0); got != want && mismatch == "" {
			mismatch = "starvation " + got.String() + ", by definition " + want.String()
		}
		checked++
		if got > 0 {
			early++
		}
	}
	defer func() { starvationHook = nil }()
	// With the enabled set kept from the first goroutine on (its dirty
	// goroutines are the choices starvation looks at), from the default
	// number of goroutines, and rebuilt at every step (every choice).
	for i := 0; i < 120 && mismatch == ""; i++ {
		seed, from := uint64(1+i%40), []int{1, 0, -1}[i/40]
		res := Run(Config{MaxStarve: 100 * time.Millisecond, DormantFrom: from}, &randomish{x: seed}, func() {
			e := Current()
			var x int64
			var wg sync.WaitGroup
			e.WaitGroupAdd(unsafe.Pointer(&wg), 14)
			for i := range 10 {
				e.Go(func() {
					for range 3 {
						e.Sleep(time.Duration(1+i%2) * time.Millisecond)
						e.Access(unsafe.Pointer(&x), OpAtomicWrite)
					}
					e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
				})
			}
			for range 4 {
				e.Go(func() {
					for range 30 {
						e.Access(unsafe.Pointer(&x), OpAtomicWrite)
					}
					e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
				})
			}
			e.WaitGroupWait(unsafe.Pointer(&wg))
		})
		if res.Bug != nil {
			t.Fatalf("seed %d, DormantFrom %d: unexpected bug: %v", seed, from, res.Bug.Message)
		}
		if mismatch != "" {
			t.Fatalf("seed %d, DormantFrom %d, step %d: %s", seed, from, res.Steps, mismatch)
		}
	}
	if checked < 3000 || early < 300 {
		t.Fatalf("only %d starvations computed, %d of them positive", checked, early)
	}
	t.Logf("%d starvations checked, %d positive", checked, early)
}
