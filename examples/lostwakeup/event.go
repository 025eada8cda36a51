// Package lostwakeup is a one-shot event that goroutines wait for.
//
// Event.Wait checks the flag, releases the lock, and only then takes the
// lock again to wait on the condition variable. A Set that runs in between
// broadcasts to nobody, and Wait sleeps forever: a lost wakeup.
// FixedEvent checks and waits under one hold of the lock, in a loop.
package lostwakeup

import "sync"

// Event is set once; Wait returns after it is set.
type Event struct {
	mu   sync.Mutex
	cond *sync.Cond
	set  bool
}

// NewEvent returns an event that is not set.
func NewEvent() *Event {
	e := &Event{}
	e.cond = sync.NewCond(&e.mu)
	return e
}

// Set sets the event and wakes its waiters.
func (e *Event) Set() {
	e.mu.Lock()
	e.set = true
	e.mu.Unlock()
	e.cond.Broadcast()
}

// Wait waits until the event is set.
//
// Bug: the fast path reads the flag in one critical section and waits in
// another. A Set between the two is never seen.
func (e *Event) Wait() {
	e.mu.Lock()
	done := e.set
	e.mu.Unlock()
	if done {
		return
	}
	e.mu.Lock()
	e.cond.Wait()
	e.mu.Unlock()
}

// FixedEvent is Event with a correct Wait.
type FixedEvent struct{ Event }

// NewFixedEvent returns a FixedEvent that is not set.
func NewFixedEvent() *FixedEvent {
	e := &FixedEvent{}
	e.cond = sync.NewCond(&e.mu)
	return e
}

// Wait waits until the event is set.
func (e *FixedEvent) Wait() {
	e.mu.Lock()
	for !e.set {
		e.cond.Wait()
	}
	e.mu.Unlock()
}
