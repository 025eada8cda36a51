package prog

import (
	"sync"
	"testing"
)

// TestLeakAfterDefault: the sender is left blocked when the receiver's
// poll comes first.
func TestLeakAfterDefault(t *testing.T) {
	c := make(chan int)
	go func() {
		c <- 1
	}()
	select {
	case <-c:
	default:
	}
}

// TestLockOrderDeadlock: a lock held across a send the holder's partner
// can only receive after taking the lock.
func TestLockOrderDeadlock(t *testing.T) {
	var mu sync.Mutex
	c := make(chan int)
	done := make(chan bool)
	go func() {
		mu.Lock()
		c <- 1
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	select {
	case v := <-c:
		mu.Unlock()
		<-done
		t.Errorf("got %d", v)
	default:
		mu.Unlock()
		<-c
		<-done
	}
}

// TestPanicInGoroutine: a goroutine panics when it loses a race.
func TestPanicInGoroutine(t *testing.T) {
	c := make(chan int, 1)
	done := make(chan bool)
	go func() {
		select {
		case c <- 1:
		default:
			panic("channel full")
		}
		done <- true
	}()
	select {
	case c <- 2:
	default:
	}
	<-done
	t.Errorf("got %d", <-c)
}

// TestErrorAfterReturn: a goroutine reports an error after the test may
// have returned (Go panics: "Log in goroutine after ... has completed").
func TestErrorAfterReturn(t *testing.T) {
	c := make(chan int, 1)
	go func() {
		c <- 1
		t.Error("late")
	}()
	<-c
}
