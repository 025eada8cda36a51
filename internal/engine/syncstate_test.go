package engine

import (
	"sync"
	"testing"
	"unsafe"
)

// TestSyncLayout checks the engine's reading and writing of the state of
// sync.Mutex, RWMutex and WaitGroup (syncstate.go) against Go's own
// operations on them: a new Go release that changes their encoding fails
// here.
func TestSyncLayout(t *testing.T) {
	var mu sync.Mutex
	p := unsafe.Pointer(&mu)
	if mutexLocked(p) {
		t.Fatal("a new Mutex reads as locked")
	}
	mu.Lock()
	if !mutexLocked(p) {
		t.Fatal("a locked Mutex reads as unlocked")
	}
	mu.Unlock()
	if !tryLockWord(p) {
		t.Fatal("the engine cannot lock a new Mutex")
	}
	if mu.TryLock() || tryLockWord(p) {
		t.Fatal("a Mutex the engine locked can be locked again")
	}
	unlockWord(p)
	if !mu.TryLock() {
		t.Fatal("a Mutex the engine unlocked cannot be locked by Go")
	}
	if tryLockWord(p) {
		t.Fatal("the engine can lock a Mutex Go locked")
	}
	mu.Unlock() // Go's Unlock of the lock it took

	var rw sync.RWMutex
	q := unsafe.Pointer(&rw)
	rw.RLock()
	rw.RLock()
	if n := rwReaders(q); n != 2 || rwClaimed(q) {
		t.Fatalf("two readers read as %d readers, claimed %v", n, rwClaimed(q))
	}
	rw.RUnlock()
	rw.RUnlock()
	rw.Lock()
	if n := rwReaders(q); n != 0 || !rwClaimed(q) {
		t.Fatalf("a writer reads as %d readers, claimed %v", n, rwClaimed(q))
	}
	rw.Unlock()
	rwClaim(q)
	if rw.TryRLock() || rw.TryLock() {
		t.Fatal("an RWMutex the engine write-locked can be locked by Go")
	}
	rwRelease(q)
	rwAddReaders(q, 1)
	if rw.TryLock() {
		t.Fatal("an RWMutex the engine read-locked can be write-locked by Go")
	}
	if !rw.TryRLock() {
		t.Fatal("an RWMutex the engine read-locked cannot be read-locked by Go")
	}
	rw.RUnlock()
	rwAddReaders(q, -1)
	if !rw.TryLock() {
		t.Fatal("an RWMutex the engine released cannot be locked by Go")
	}
	rw.Unlock()

	var wg sync.WaitGroup
	w := unsafe.Pointer(&wg)
	wg.Add(3)
	if n := wgCount(w); n != 3 {
		t.Fatalf("a WaitGroup counter of 3 reads as %d", n)
	}
	setWGCount(w, 1)
	wg.Done()
	wg.Wait() // the counter is zero: Wait returns
	if n := wgCount(w); n != 0 {
		t.Fatalf("a WaitGroup counter of 0 reads as %d", n)
	}
}
