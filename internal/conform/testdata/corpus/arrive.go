package prog

import (
	"sync"
	"testing"
)

// TestArriveDefault is issue 10's reproduction: a select with default
// polls while its partner is between its receive and its send.
func TestArriveDefault(t *testing.T) {
	a, b, done := make(chan int), make(chan int), make(chan struct{})
	go func() {
		v := <-a
		v++
		select {
		case b <- v:
		case <-done:
		}
	}()
	a <- 1
	select {
	case <-b:
	default:
		t.Error("default taken: the partner had not reached its send yet")
	}
	close(done)
}

// TestArriveRecvPoll polls with a non-blocking receive while the partner
// has not reached its send; the value it gets, if any, is reported.
func TestArriveRecvPoll(t *testing.T) {
	a, b := make(chan int), make(chan int, 1)
	go func() {
		v := <-a
		b <- v * 10
	}()
	a <- 4
	select {
	case v := <-b:
		t.Errorf("received %d", v)
	default:
		t.Error("nothing yet")
	}
}

// TestArriveSendPoll offers a value with a non-blocking send to a partner
// that may not have reached its receive yet.
func TestArriveSendPoll(t *testing.T) {
	a, b := make(chan int), make(chan int)
	got := make(chan int, 1)
	go func() {
		<-a
		select {
		case v := <-b:
			got <- v
		default:
			got <- -1
		}
	}()
	a <- 0
	select {
	case b <- 7:
	default:
	}
	t.Errorf("partner got %d", <-got)
}

// TestArrivePollTwice polls twice in a loop while the partner makes two
// steps before its send.
func TestArrivePollTwice(t *testing.T) {
	a, b, done := make(chan int), make(chan int), make(chan struct{})
	go func() {
		<-a
		select {
		case b <- 1:
		case <-done:
		}
	}()
	a <- 0
	polls := 0
	for i := 0; i < 2; i++ {
		select {
		case <-b:
			t.Errorf("received after %d empty polls", polls)
			close(done)
			return
		default:
			polls++
		}
	}
	close(done)
	t.Errorf("no value in %d polls", polls)
}

// TestArriveMutexTryLock tries a lock that the partner takes right after
// a rendezvous.
func TestArriveMutexTryLock(t *testing.T) {
	a := make(chan int)
	done := make(chan bool)
	var mu sync.Mutex
	go func() {
		<-a
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	a <- 0
	if mu.TryLock() {
		mu.Unlock()
		t.Error("TryLock succeeded")
	} else {
		t.Error("TryLock failed")
	}
	<-done
}
