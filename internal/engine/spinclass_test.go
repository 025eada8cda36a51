package engine

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// spinProgram has every kind of choice dropSpinners tells apart: Gosched
// spinners waiting for a flag (spinSure at their Gosched, a full look at
// their atomic load), a TryLock spinner, workers on one mutex (a dozen
// waiters made dirty together: merge's waiter path) and goroutines
// started while the spinners spin (refresh).
func spinProgram() {
	e := Current()
	const spinners, workers, rounds = 6, 20, 8
	var flag int32
	var mu sync.Mutex
	var wg sync.WaitGroup
	e.WaitGroupAdd(unsafe.Pointer(&wg), spinners+1+workers)
	for range spinners {
		e.Go(func() {
			for {
				e.Access(unsafe.Pointer(&flag), OpAtomicLoad)
				if atomic.LoadInt32(&flag) != 0 {
					break
				}
				e.Gosched()
				e.Gosched()
			}
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
	}
	e.Go(func() {
		for !e.MutexTryLock(unsafe.Pointer(&mu)) {
		}
		e.MutexUnlock(unsafe.Pointer(&mu))
		e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
	})
	var left atomic.Int32
	left.Store(workers)
	for range workers {
		e.Go(func() {
			for range rounds {
				e.MutexLock(unsafe.Pointer(&mu))
				e.MutexUnlock(unsafe.Pointer(&mu))
			}
			if left.Add(-1) == 0 {
				e.Access(unsafe.Pointer(&flag), OpAtomicWrite)
				atomic.StoreInt32(&flag, 1)
			}
			e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
		})
	}
	e.WaitGroupWait(unsafe.Pointer(&wg))
}

// spinCorrupter chooses as randomish does and, once a Gosched spinner's
// choice is kept in the enabled set with spin spinSure, marks it spinNo:
// a stale spin, as a copy of the choices that forgot the field would
// leave.
type spinCorrupter struct {
	randomish
	done bool
}

// Choose writes the engine's enabled set, which the race detector does
// not see handed over (the engine is norace; under -race strategies run
// on a server goroutine).
//
//go:norace
func (s *spinCorrupter) Choose(p *Point) int {
	if !s.done {
		e := p.Exec
		for i := range e.gch {
			if e.gch[i].spin == spinSure {
				e.gch[i].spin = spinNo
				s.done = true
				break
			}
		}
	}
	return s.randomish.Choose(p)
}

// TestSpinKeptMatchesFullLook checks that the spin kept in each choice of
// the enabled set, from the step that computed it, answers as a look at
// its goroutine at every point (HEDDLE_CHECKSET's checkEnabled and
// checkSpin), so that dropSpinners keeps the choices of a full pass; and
// that a stale spin is caught.
func TestSpinKeptMatchesFullLook(t *testing.T) {
	defer CheckEnabledSet(CheckEnabledSet(true))
	for _, from := range []int{0, 1000} {
		for seed := uint64(1); seed <= 12; seed++ {
			var e0 *Exec
			res := Run(Config{DormantFrom: from}, &randomish{x: seed}, func() {
				e0 = Current()
				spinProgram()
			})
			if res.Internal != "" {
				t.Fatalf("seed %d, DormantFrom %d: internal error: %s", seed, from, res.Internal)
			}
			if res.Bug != nil {
				t.Fatalf("seed %d, DormantFrom %d: unexpected bug: %v", seed, from, res.Bug.Message)
			}
			if e0.spinLooks == 0 {
				t.Fatalf("seed %d, DormantFrom %d: dropSpinners looked at no spinner in %d steps", seed, from, res.Steps)
			}
		}
	}
	s := &spinCorrupter{randomish: randomish{x: 3}}
	res := Run(Config{DormantFrom: 0}, s, spinProgram)
	if !s.done {
		t.Fatal("no choice had spin spinSure: the program does not test it")
	}
	if !strings.Contains(res.Internal, "differs from a full pass") && !strings.Contains(res.Internal, "stale") {
		t.Fatalf("a stale spin was not caught; internal error %q", res.Internal)
	}
}
