// Package bugs: seeded bugs, each to be found with the kind its name
// ends with (see semantics_test.go), written with the constructs the
// clean suite checks.
package bugs

import (
	"log"
	"os"
	"sync"
	"testing"
	"time"
)

type account struct {
	sync.Mutex
	balance int
}

// Lock order, with the lock taken through a method expression on one side
// and a promoted method on the other.
func TestLockOrderMethodExpr_deadlock(t *testing.T) {
	a, b := &account{}, &account{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		(*sync.Mutex).Lock(&a.Mutex)
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		lock := b.Lock
		lock()
		var l sync.Locker = a
		l.Lock()
		l.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}

func recvTwice[C ~chan int](c C) int { return <-c + <-c }

// A receive on a channel of a type parameter that no one sends to.
func TestTypeParamChan_deadlock(t *testing.T) {
	c := make(chan int)
	go func() { c <- 1 }()
	recvTwice(c)
}

// The classic early return: the worker blocks forever on its send.
func TestEarlyReturn_leak(t *testing.T) {
	ch := make(chan int)
	go func() { ch <- 1 }()
	select {
	case <-ch:
	case <-time.After(time.Millisecond):
	}
}

// Done called once too often, by a method value.
func TestWaitGroupNegative_misuse(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	done := wg.Done
	go done()
	go done()
	time.Sleep(time.Millisecond)
}

// A Cond whose L embeds a Mutex, unlocked once too often through the
// Locker.
func TestUnlockThroughLocker_misuse(t *testing.T) {
	q := &account{}
	var l sync.Locker = q
	q.Lock()
	l.Unlock()
	l.Unlock()
}

// Close and send race: the send may come after the close.
func TestSendOnClosed_misuse(t *testing.T) {
	ch := make(chan error, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ch <- errT("late")
	}()
	close(ch)
	wg.Wait()
}

type errT string

func (e errT) Error() string { return string(e) }

// A check-then-act under two separate critical sections loses an update.
func TestLostUpdate_fail(t *testing.T) {
	acc := &account{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Go(func() {
			acc.Lock()
			v := acc.balance
			acc.Unlock()
			acc.Lock()
			acc.balance = v + 1
			acc.Unlock()
		})
	}
	wg.Wait()
	if acc.balance != 2 {
		t.Fatalf("balance %d, want 2", acc.balance)
	}
}

// A lost wakeup: the Cond whose L embeds a Mutex is signalled before the
// waiter waits, and the waiter does not check a condition.
func TestLostWakeup_deadlock(t *testing.T) {
	q := &account{}
	c := sync.NewCond(q)
	done := make(chan bool)
	go func() {
		q.Lock()
		c.Wait()
		q.Unlock()
		done <- true
	}()
	c.Signal()
	<-done
}

// A goroutine that ends the process on a rare interleaving, through
// log.Fatal.
func TestLogFatal_fail(t *testing.T) {
	state := make(chan int, 1)
	state <- 0
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := <-state
			if v == 0 && i == 2 {
				log.Fatal("second worker first")
			}
			state <- i
		}()
	}
	wg.Wait()
}

// A goroutine that ends the process through a *log.Logger's Fatalf on a
// rare interleaving.
func TestLoggerFatalf_fail(t *testing.T) {
	logger := log.New(os.Stderr, "worker: ", 0)
	var mu sync.Mutex
	order := []int{}
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, i)
			if len(order) == 1 && i == 2 {
				logger.Fatalf("worker %d first", i)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// A goroutine that calls os.Exit with a non-zero status on a rare
// interleaving.
func TestOsExit_fail(t *testing.T) {
	ready := make(chan int, 2)
	go func() { ready <- 1 }()
	go func() { ready <- 2 }()
	if <-ready == 2 {
		os.Exit(3)
	}
	<-ready
}

// log.Fatalln, from the test goroutine, when a poll finds the goroutine it
// started not done yet.
func TestLogFatalln_fail(t *testing.T) {
	done := make(chan struct{})
	go func() { close(done) }()
	select {
	case <-done:
	default:
		log.Fatalln("not done yet")
	}
}
