package engine

import (
	"sync"
	"testing"
	"unsafe"

	"heddle.dev/internal/cputime"
)

// lockerShape is the body of a run of moby/locker's TestLockerConcurrency
// shape, with n goroutines instead of 10,001: each takes a named lock
// (the locker's mutex to count itself a waiter, then the name's mutex)
// and releases it (the locker's mutex again around the name's Unlock).
// Both mutexes have hundreds of waiters, a group each (lockgroup.go),
// flipped in or out at nearly every step.
func lockerShape(n int) func() {
	return func() {
		e := Current()
		var mu, name sync.Mutex
		var wg sync.WaitGroup
		m, nm, w := unsafe.Pointer(&mu), unsafe.Pointer(&name), unsafe.Pointer(&wg)
		waiters := 0
		for range n {
			e.WaitGroupAdd(w, 1)
			e.Go(func() {
				e.MutexLock(m)
				waiters++
				e.MutexUnlock(m)
				e.MutexLock(nm)
				e.MutexLock(m)
				waiters--
				e.MutexUnlock(nm)
				e.MutexUnlock(m)
				e.WaitGroupAdd(w, -1)
			})
		}
		e.WaitGroupWait(w)
	}
}

// BenchmarkLockerShape is a run of lockerShape(1000) under a random-like
// strategy: the cost of the waiter groups' flips. It reports the process's
// processor time per run too (cpu-ns/op), which the load of a shared
// machine hardly moves.
func BenchmarkLockerShape(b *testing.B) {
	defer cputime.PerOp(b)()
	for i := 0; i < b.N; i++ {
		res := Run(Config{}, &randomish{x: 1}, lockerShape(1000))
		if res.Bug != nil || res.Internal != "" {
			b.Fatalf("unexpected end: %v %s", res.Bug, res.Internal)
		}
	}
}
