package rt_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// The lock queues of Mutex and RWMutex (internal/engine/mutex.go): a
// goroutine blocked on a lock while the clock advances idly has joined the
// lock's queue, behind those that joined before; natively go test
// -count=300 of the same programs (with sync instead of rt) never sees
// another order.

// queueOrder locks l, starts a goroutine per name that locks it and records
// its name, each after a sleep longer than -max-starve (so that it has
// blocked and queued), and unlocks.
func queueOrder(lock, unlock func(), names ...string) func() string {
	return func() string {
		var got []string
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, len(names))
		lock()
		for _, n := range names {
			rt.Go(func() {
				lock()
				got = append(got, n)
				unlock()
				rt.WaitGroupDone(&wg)
			})
			rt.Sleep(200 * time.Millisecond)
		}
		unlock()
		rt.WaitGroupWait(&wg)
		return strings.Join(got, " ")
	}
}

func TestMutexQueueFIFO(t *testing.T) {
	var mu sync.Mutex
	found, bugs, runs := exhaust(t, queueOrder(func() { rt.MutexLock(&mu) }, func() { rt.MutexUnlock(&mu) }, "A", "B", "C"))
	if len(bugs) > 0 || keys(found) != "A B C" {
		t.Fatalf("outcomes %q, bugs %v in %d runs; want only A B C: B and C queued behind A", keys(found), bugs, runs)
	}
}

func TestRWMutexWriterQueueFIFO(t *testing.T) {
	var rw sync.RWMutex
	found, bugs, runs := exhaust(t, queueOrder(func() { rt.RWLock(&rw) }, func() { rt.RWUnlock(&rw) }, "A", "B"))
	if len(bugs) > 0 || keys(found) != "A B" {
		t.Fatalf("outcomes %q, bugs %v in %d runs; want only A B", keys(found), bugs, runs)
	}
}

// A reader blocked by a writer counted itself a reader: the writer's Unlock
// admits it, and a writer that queued after it waits for it.
func TestRWMutexReaderAdmittedByUnlock(t *testing.T) {
	found, bugs, runs := exhaust(t, func() string {
		var rw sync.RWMutex
		var mu sync.Mutex
		var got []string
		rec := func(s string) { rt.MutexLock(&mu); got = append(got, s); rt.MutexUnlock(&mu) }
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 2)
		rt.RWLock(&rw)
		rt.Go(func() { rt.RWRLock(&rw); rec("R"); rt.RWRUnlock(&rw); rt.WaitGroupDone(&wg) })
		rt.Sleep(200 * time.Millisecond)
		rt.Go(func() { rt.RWLock(&rw); rec("W"); rt.RWUnlock(&rw); rt.WaitGroupDone(&wg) })
		rt.Sleep(200 * time.Millisecond)
		rt.RWUnlock(&rw)
		rt.WaitGroupWait(&wg)
		return strings.Join(got, " ")
	})
	if len(bugs) > 0 || keys(found) != "R W" {
		t.Fatalf("outcomes %q, bugs %v in %d runs; want only R W", keys(found), bugs, runs)
	}
}

// Goroutines that blocked before the same idle advance queued in any order.
func TestMutexQueueSameBatch(t *testing.T) {
	found, bugs, _ := exhaust(t, func() string {
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 2)
		rt.MutexLock(&mu)
		for _, n := range []string{"A", "B"} {
			rt.Go(func() { rt.MutexLock(&mu); got = append(got, n); rt.MutexUnlock(&mu); rt.WaitGroupDone(&wg) })
		}
		rt.Sleep(200 * time.Millisecond)
		rt.MutexUnlock(&mu)
		rt.WaitGroupWait(&wg)
		return strings.Join(got, " ")
	})
	if len(bugs) > 0 || keys(found) != "A B | B A" {
		t.Fatalf("outcomes %q, bugs %v; want both orders", keys(found), bugs)
	}
}

// barge queues A and then B on a locked mutex (each blocked through an
// idle advance), starts X, which has not queued, and unlocks: it returns
// the order in which they took the lock.
func barge() string {
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	rt.WaitGroupAdd(&wg, 3)
	rec := func(n string) func() {
		return func() { rt.MutexLock(&mu); got = append(got, n); rt.MutexUnlock(&mu); rt.WaitGroupDone(&wg) }
	}
	rt.MutexLock(&mu)
	rt.Go(rec("A"))
	rt.Sleep(200 * time.Millisecond)
	rt.Go(rec("B"))
	rt.Sleep(200 * time.Millisecond)
	rt.Go(rec("X"))
	rt.MutexUnlock(&mu)
	rt.WaitGroupWait(&wg)
	return strings.Join(got, " ")
}

// A goroutine that has not queued may barge in ahead of the queue, and Go's
// queue then loses its order: a goroutine entering the semaphore can steal
// the wake-up of the queue's head, which goes back to the tail
// (runtime/sema.go). Both orders of A and B stay reachable.
func TestMutexQueueBarge(t *testing.T) {
	found, bugs, _ := exhaust(t, barge)
	for _, want := range []string{"A B X", "A X B", "X A B", "X B A"} {
		if !found[want] {
			t.Errorf("outcome %q not reached; reached %q", want, keys(found))
		}
	}
	if len(bugs) > 0 || found["B A X"] || found["B X A"] {
		t.Errorf("outcomes %q, bugs %v: B passed A with no one barging in", keys(found), bugs)
	}
}

// Starvation mode: A queued over 1 ms ago loses the mutex to the test
// goroutine barging in, sees that it waited over 1 ms, and switches the
// mutex to starvation mode: the next Unlock hands it the lock, and the test
// goroutine's Lock queues behind it. Natively (go test -count=300 of the
// same program with sync) A always records before the test's second Lock.
func TestMutexStarvationHandoff(t *testing.T) {
	found, bugs, runs := exhaust(t, starvation)
	want := "A main trylock main | main A main | main A trylock main"
	if len(bugs) > 0 || keys(found) != want {
		t.Fatalf("outcomes %q, bugs %v in %d runs; want %s (A before the test's second Lock, and TryLock failing while the lock is handed to A)", keys(found), bugs, runs, want)
	}
}

// starvation is TestMutexStarvationHandoff's program.
func starvation() string { return handoff(true) }

// handoff: the test holds a lock a goroutine A waits on for 200 ms, then
// unlocks and locks it again; with starve, it keeps it another 200 ms
// (A, waiting over 1 ms, puts the mutex in starvation mode), tries it
// once unlocked, and locks it again.
func handoff(starve bool) string {
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	rt.WaitGroupAdd(&wg, 1)
	rt.MutexLock(&mu)
	rt.Go(func() { rt.MutexLock(&mu); got = append(got, "A"); rt.MutexUnlock(&mu); rt.WaitGroupDone(&wg) })
	rt.Sleep(200 * time.Millisecond)
	rt.MutexUnlock(&mu)
	rt.MutexLock(&mu)
	got = append(got, "main")
	if starve {
		rt.Sleep(200 * time.Millisecond)
		rt.MutexUnlock(&mu)
		if rt.MutexTryLock(&mu) {
			got = append(got, "trylock")
			rt.MutexUnlock(&mu)
		}
		rt.MutexLock(&mu)
		got = append(got, "main")
	}
	rt.MutexUnlock(&mu)
	rt.WaitGroupWait(&wg)
	return strings.Join(got, " ")
}

// Without a barger, no starvation mode: the waiter that queued 1 ms ago
// competes with the test's Lock after the test's Unlock.
func TestMutexNoStarvationWithoutLoss(t *testing.T) {
	found, bugs, _ := exhaust(t, func() string { return handoff(false) })
	if len(bugs) > 0 || keys(found) != "A main | main A" {
		t.Fatalf("outcomes %q, bugs %v; want both orders", keys(found), bugs)
	}
}

// The partial-order strategies reach what DFS reaches on the lock-queue
// programs: the queue's order is decided by Lock steps and idle advances,
// and the strategies must see the dependences that decide it. (The lazy
// HBR is left out: the outcomes here differ by plain writes in the
// critical sections, which it does not see, with or without queues.)
func TestLockQueueStrategiesAgree(t *testing.T) {
	var mu sync.Mutex
	var rw sync.RWMutex
	progs := map[string]func() string{
		"fifo":       queueOrder(func() { rt.MutexLock(&mu) }, func() { rt.MutexUnlock(&mu) }, "A", "B", "C"),
		"starvation": starvation,
		"writer":     queueOrder(func() { rt.RWLock(&rw) }, func() { rt.RWUnlock(&rw) }, "A", "B"),
		"barge":      barge,
	}
	strategies := map[string]func() engine.Strategy{
		"sdpor": func() engine.Strategy { return strategy.NewSourceDPOR() },
		"odpor": func() engine.Strategy { return strategy.NewOptimalDPOR() },
	}
	for pn, prog := range progs {
		want, _, _ := exhaust(t, prog)
		for sn, mk := range strategies {
			s := mk()
			got := map[string]bool{}
			for run := 1; s.Begin(run); run++ {
				if run > 100000 {
					t.Fatalf("%s on %s did not finish", sn, pn)
				}
				var out string
				res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true}, s, func() { out = prog() })
				s.End(res)
				if res.Bug == nil {
					got[out] = true
				}
			}
			if keys(got) != keys(want) {
				t.Errorf("%s on %s: outcomes %q, DFS's %q", sn, pn, keys(got), keys(want))
			}
		}
	}
}
