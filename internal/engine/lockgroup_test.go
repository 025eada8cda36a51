package engine

import (
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// groupProgram has goroutines waiting on Mutexes in every way their
// choices can change: many waiters on one mutex (a group, flipped at
// every Lock and Unlock), holders that sleep with the mutex held (the
// clock advances while the others wait: they join its queue, and the
// mutex goes into starvation mode), a TryLock poller, Cond waiters
// relocking the mutex, goroutines started while the others wait, and a
// second mutex taken inside the first.
func groupProgram(n int) func() {
	return func() {
		e := Current()
		var mu, inner sync.Mutex
		var cond sync.Cond
		m, in, c := unsafe.Pointer(&mu), unsafe.Pointer(&inner), unsafe.Pointer(&cond)
		lock, unlock := func() { e.MutexLock(m) }, func() { e.MutexUnlock(m) }
		var wg sync.WaitGroup
		w := unsafe.Pointer(&wg)
		ready := 0
		e.WaitGroupAdd(w, n+3)
		for i := 0; i < n; i++ {
			e.Go(func() {
				for r := 0; r < 3; r++ {
					e.MutexLock(m)
					switch {
					case i%7 == 0 && r == 1:
						e.Sleep(2 * time.Millisecond) // the others queue
					case i%5 == 0:
						e.MutexLock(in)
						e.MutexUnlock(in)
					}
					if i == n/2 && r == 0 {
						ready++
						e.CondSignal(c, true)
					}
					e.MutexUnlock(m)
				}
				if i == n/3 {
					// Started while the others wait.
					e.WaitGroupAdd(w, 1)
					e.Go(func() {
						e.MutexLock(m)
						e.MutexUnlock(m)
						e.WaitGroupAdd(w, -1)
					})
				}
				e.WaitGroupAdd(w, -1)
			})
		}
		for k := 0; k < 2; k++ {
			e.Go(func() {
				e.MutexLock(m)
				for ready == 0 {
					e.CondWait(c, unlock, lock, m, false)
				}
				e.MutexUnlock(m)
				e.WaitGroupAdd(w, -1)
			})
		}
		e.Go(func() {
			for !e.MutexTryLock(m) {
				e.Gosched()
			}
			e.MutexUnlock(m)
			e.WaitGroupAdd(w, -1)
		})
		e.WaitGroupWait(w)
	}
}

// relockProgram has a goroutine lock a mutex twice (it blocks on itself)
// while waiters that reached the mutex free wait beside it: the pass after
// its first Lock lists it and the group's members as blocked, in creation
// order, then the clock advances (they join the queue in that order) and
// another goroutine unlocks the mutex for it, rounds times.
func relockProgram(n int) func() {
	return func() {
		e := Current()
		var mu sync.Mutex
		m := unsafe.Pointer(&mu)
		var wg sync.WaitGroup
		w := unsafe.Pointer(&wg)
		e.WaitGroupAdd(w, 2*n+2)
		worker := func() {
			for r := 0; r < 2; r++ {
				e.MutexLock(m)
				e.MutexUnlock(m)
			}
			e.WaitGroupAdd(w, -1)
		}
		for i := 0; i < n; i++ {
			e.Go(worker)
		}
		e.Go(func() {
			e.MutexLock(m)
			e.MutexLock(m) // unlocked by the goroutine below
			e.MutexUnlock(m)
			e.WaitGroupAdd(w, -1)
		})
		for i := 0; i < n; i++ {
			e.Go(worker)
		}
		e.Go(func() {
			e.Sleep(3 * time.Millisecond)
			e.MutexUnlock(m)
			e.WaitGroupAdd(w, -1)
		})
		e.WaitGroupWait(w)
	}
}

// scheduleHash is randomish that hashes, at every point, the choices (their
// keys and spin classes) and the one taken.
type scheduleHash struct {
	randomish
	points int
	h      uint64
}

func (s *scheduleHash) Choose(p *Point) int {
	i := s.randomish.Choose(p)
	f := fnv.New64a()
	fmt.Fprintf(f, "%d %d %d|", s.h, i, p.Prev)
	for _, c := range p.Choices {
		fmt.Fprintf(f, "%s/%d/%d ", c.Key(), c.spin, c.Early)
	}
	s.h = f.Sum64()
	s.points++
	return i
}

// TestLockGroupsSameSchedules runs groupProgram with the enabled set kept
// from the first step (Mutex waiters grouped) and rebuilt at every step
// (no group), with and without HEDDLE_CHECKSET's comparison with a full
// pass at every step, and checks that every scheduling point offers the
// same choices and that the runs are the same. (The full pass has effects
// of its own: it lists every waiter of a held lock as blocked, which the
// runs without it show apart.)
func TestLockGroupsSameSchedules(t *testing.T) {
	for _, check := range []bool{true, false} {
		t.Run(fmt.Sprintf("check=%v", check), func(t *testing.T) {
			defer CheckEnabledSet(CheckEnabledSet(check))
			sameSchedules(t)
		})
	}
}

func sameSchedules(t *testing.T) {
	flips := 0
	for _, prog := range []struct {
		name string
		f    func(int) func()
	}{{"group", groupProgram}, {"relock", relockProgram}} {
		flips += sameSchedulesOf(t, prog.name, prog.f)
	}
	if flips == 0 {
		t.Fatal("no group flipped: the test does not exercise groups")
	}
	t.Logf("%d group flips", flips)
}

func sameSchedulesOf(t *testing.T, name string, program func(int) func()) int {
	flips := 0
	for _, n := range []int{12, 60} {
		for seed := uint64(1); seed <= 16; seed++ {
			var hashes [2]uint64
			var steps [2]int
			for k, from := range []int{0, -1} {
				s := &scheduleHash{randomish: randomish{x: seed}}
				var e0 *Exec
				res := Run(Config{DormantFrom: from}, s, func() {
					e0 = Current()
					program(n)()
				})
				if res.Internal != "" {
					t.Fatalf("%s, n %d, seed %d, DormantFrom %d: internal error: %s", name, n, seed, from, res.Internal)
				}
				if res.Bug != nil {
					t.Fatalf("%s, n %d, seed %d, DormantFrom %d: unexpected bug: %s", name, n, seed, from, res.Bug.Message)
				}
				hashes[k], steps[k] = s.h, res.Steps
				if from == 0 {
					flips += e0.es.flips
				} else if e0.es.flips != 0 {
					t.Fatalf("n %d, seed %d: %d group flips with the set rebuilt at every step", n, seed, e0.es.flips)
				}
			}
			if hashes[0] != hashes[1] || steps[0] != steps[1] {
				t.Errorf("%s, n %d, seed %d: grouped run differs: %d steps, hash %x; rebuilt at every step: %d steps, hash %x",
					name, n, seed, steps[0], hashes[0], steps[1], hashes[1])
			}
		}
	}
	return flips
}
