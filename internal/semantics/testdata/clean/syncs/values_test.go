package syncs

import (
	"sync"
	"testing"
)

// Value semantics: a sync.Mutex, RWMutex or WaitGroup is a value. A copy
// carries its state, and assigning a zero value resets it. (vet's
// copylocks, which go test does not run, would flag the copies.)

func TestMutexCopyOfLockedIsLocked(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	cp := mu
	if cp.TryLock() {
		t.Fatal("a copy of a locked Mutex is unlocked")
	}
	cp.Unlock() // the copy is locked: unlocking it is no misuse
	mu.Unlock()
}

type box struct {
	mu sync.Mutex
	n  int
}

func TestMutexInCopiedStruct(t *testing.T) {
	b := &box{}
	b.mu.Lock()
	c := *b
	done := make(chan bool)
	go func() { done <- c.mu.TryLock() }()
	if <-done {
		t.Fatal("the copy of a struct whose Mutex is locked has it unlocked")
	}
	b.mu.Unlock()
}

func TestMutexAssignZeroUnlocks(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	mu = sync.Mutex{}
	mu.Lock() // unlocked by the assignment
	mu.Unlock()
	b := &box{}
	b.mu.Lock()
	*b = box{n: 1}
	if !b.mu.TryLock() {
		t.Fatal("assigning a struct value did not unlock its Mutex")
	}
	b.mu.Unlock()
}

func TestRWMutexValues(t *testing.T) {
	var rw sync.RWMutex
	rw.RLock()
	cp := rw
	if cp.TryLock() {
		t.Fatal("a copy of a read-locked RWMutex can be write-locked")
	}
	if !cp.TryRLock() {
		t.Fatal("a copy of a read-locked RWMutex cannot be read-locked")
	}
	cp.RUnlock()
	cp.RUnlock() // the reader the copy carried
	if !cp.TryLock() {
		t.Fatal("the copy has readers left")
	}
	rw.RUnlock()

	rw.Lock()
	wcp := rw
	if wcp.TryRLock() {
		t.Fatal("a copy of a write-locked RWMutex can be read-locked")
	}
	rw = sync.RWMutex{}
	rw.RLock() // unlocked by the assignment
	rw.RUnlock()
	wcp.Unlock()
}

func TestWaitGroupAssignZeroResets(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	wg = sync.WaitGroup{}
	wg.Wait() // the counter is zero again
	wg.Add(1)
	go wg.Done()
	wg.Wait()
}

func TestWaitGroupCopyKeepsCounter(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	cp := wg
	wg.Done()
	wg.Done()
	wg.Wait()
	done := make(chan struct{})
	go func() {
		cp.Wait() // the copy's counter is still 2
		close(done)
	}()
	cp.Done()
	cp.Done()
	<-done
}
