package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// lastNotLock runs the last choice whose goroutine is not about to take a
// lock, or the last choice: every goroutine reaches its Lock (or RLock)
// while the lock is held, and then they take it one after another, each
// Lock and Unlock changing the choices of all the others.
type lastNotLock struct{ points int }

func (*lastNotLock) Begin(int) bool { return true }
func (*lastNotLock) End(*Result)    {}
func (s *lastNotLock) Choose(p *Point) int {
	s.points++
	for i := len(p.Choices) - 1; i >= 0; i-- {
		c := p.Choices[i]
		if c.G == nil {
			continue
		}
		switch c.G.op.Kind {
		case OpLock, OpRLock, OpWLock:
		default:
			return i
		}
	}
	return len(p.Choices) - 1
}

// TestLockWaitersLookedAtOnce checks that a pass of enabled over the
// goroutines blocked on a lock looks at the lock's state once, not once
// for each of them: n goroutines block on a Mutex (or on an RWMutex, as
// readers and writers) held by the test, which then releases it; every
// Lock and Unlock after that changes the choices of all the waiters. The
// looks per step must not grow with n (a pass that recomputes a few
// goroutines, one by one, looks once for each: at most 16). They were n
// per Lock and Unlock, n²/2 in all: golang-lru's expirable
// TestLRUConcurrency (a thousand goroutines on one mutex) spent a fifth
// of a run looking the mutex up for each waiter.
func TestLockWaitersLookedAtOnce(t *testing.T) {
	// A full pass at every step (HEDDLE_CHECKSET) looks at the lock for
	// each waiter.
	defer CheckEnabledSet(CheckEnabledSet(false))
	for _, kind := range []string{"mutex", "rwmutex"} {
		for _, n := range []int{40, 200} {
			var mu sync.Mutex
			var rw sync.RWMutex
			p := unsafe.Pointer(&mu)
			if kind == "rwmutex" {
				p = unsafe.Pointer(&rw)
			}
			s := &lastNotLock{}
			var looks atomic.Int64 // the hook runs on the controlled goroutines (go test -race)
			lookHook = func(at unsafe.Pointer) {
				if at == p {
					looks.Add(1)
				}
			}
			res := Run(Config{}, s, func() {
				e := Current()
				var wg sync.WaitGroup
				wg.Add(n)
				lock, unlock := func() { e.MutexLock(p) }, func() { e.MutexUnlock(p) }
				if kind == "rwmutex" {
					lock, unlock = func() { e.RWLock(p) }, func() { e.RWUnlock(p) }
				}
				lock()
				for i := 0; i < n; i++ {
					e.Go(func() {
						if kind == "rwmutex" && i%2 == 0 {
							e.RWRLock(p)
							e.RWRUnlock(p)
						} else {
							lock()
							unlock()
						}
						e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
					})
				}
				unlock()
				e.WaitGroupWait(unsafe.Pointer(&wg))
			})
			lookHook = nil
			if res.Bug != nil {
				t.Fatalf("%s, %d waiters: unexpected bug: %s", kind, n, res.Bug.Message)
			}
			if s.points < 2*n {
				t.Fatalf("%s, %d waiters: %d scheduling points, want at least %d", kind, n, s.points, 2*n)
			}
			if looks := int(looks.Load()); looks > 4*res.Steps {
				t.Errorf("%s, %d waiters: %d looks at the lock in %d steps, want at most 4 a step", kind, n, looks, res.Steps)
			}
		}
	}
}

// bitsCheck is lastNotLock that checks, at every scheduling point, that
// no goroutine is left in merge's bitset of dirty goroutines: markDirty
// sets a goroutine's bit, and the pass that recomputes it (merge, the
// one-by-one path of update, or rebuild) must clear it, or a later merge
// recomputes goroutines that did not change.
type bitsCheck struct {
	lastNotLock
	bad, merges int
}

func (s *bitsCheck) Choose(p *Point) int {
	e := p.Exec
	for _, w := range e.dirtyBits {
		if w != 0 {
			s.bad++
			break
		}
	}
	s.merges = e.es.merges
	return s.lastNotLock.Choose(p)
}

// TestDirtyBitsClearAfterPass runs goroutines waiting on an RWMutex as
// writers (every Lock and Unlock makes all of them dirty: merge; a Mutex's
// waiters are a group, lockgroup.go) and goroutines that
// each take a mutex of their own, some stop a timer (the set rebuilt), and
// call WaitGroup.Done (a few dirty at a step: one by one), and checks that every pass leaves merge's bitset
// empty.
func TestDirtyBitsClearAfterPass(t *testing.T) {
	const n = 60
	var mu sync.RWMutex
	own := make([]sync.Mutex, n)
	p := unsafe.Pointer(&mu)
	s := &bitsCheck{}
	res := Run(Config{}, s, func() {
		e := Current()
		var wg sync.WaitGroup
		wg.Add(2 * n)
		e.RWLock(p)
		for i := 0; i < n; i++ {
			e.Go(func() {
				e.RWLock(p)
				e.RWUnlock(p)
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
			e.Go(func() {
				q := unsafe.Pointer(&own[i])
				e.MutexLock(q)
				e.MutexUnlock(q)
				if i%4 == 0 {
					// A step whose effects reach further: the next
					// pass rebuilds the set.
					e.TimerStop(e.NewTimer(time.Hour))
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.RWUnlock(p)
		e.WaitGroupWait(unsafe.Pointer(&wg))
	})
	if res.Bug != nil {
		t.Fatalf("unexpected bug: %s", res.Bug.Message)
	}
	if s.merges == 0 || s.merges >= s.points/2 {
		t.Fatalf("%d merges in %d scheduling points: want both kinds of pass", s.merges, s.points)
	}
	if s.bad > 0 {
		t.Errorf("%d of %d scheduling points found dirty bits left by the last pass", s.bad, s.points)
	}
}
