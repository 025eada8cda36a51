package prog

import (
	"context"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Ninth fidelity audit, second part: Cond waiters woken by a Signal and a
// later Broadcast racing for the lock (the DPOR gap of
// TestCondSignalVsWaiterArrival), a predicate loop with two consumers,
// and signal.NotifyContext's stop against a self-sent signal.

// TestCondSignalThenBroadcastRelock: a and b wait in that order; a
// goroutine's Signal wakes a, then the test goroutine's Broadcast wakes
// b; the three take the lock in any order.
func TestCondSignalThenBroadcastRelock(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var order []string
	ready := make(chan bool)
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			ready <- true
			cond.Wait()
			order = append(order, name)
			mu.Unlock()
		}()
		<-ready
		mu.Lock()
		mu.Unlock()
	}
	signalled := make(chan bool)
	go func() {
		cond.Signal()
		signalled <- true
	}()
	<-signalled
	mu.Lock()
	order = append(order, "test")
	cond.Broadcast()
	mu.Unlock()
	wg.Wait()
	t.Errorf("order %s", strings.Join(order, " "))
}

// TestCondPredicateTwoConsumers: two consumers wait for items in a
// predicate loop; the producer adds two items, signalling each: each
// consumer gets one, or one gets both.
func TestCondPredicateTwoConsumers(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var items []int
	done := false
	got := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			var mine []string
			for {
				mu.Lock()
				for len(items) == 0 && !done {
					cond.Wait()
				}
				if len(items) == 0 {
					mu.Unlock()
					break
				}
				items = items[1:]
				mine = append(mine, name)
				mu.Unlock()
			}
			got <- strings.Join(mine, "")
		}()
	}
	for i := 0; i < 2; i++ {
		mu.Lock()
		items = append(items, i)
		cond.Signal()
		mu.Unlock()
	}
	mu.Lock()
	done = true
	cond.Broadcast()
	mu.Unlock()
	r := []string{<-got, <-got}
	sort.Strings(r)
	t.Errorf("consumed %q", r)
}

// TestSignalNotifyContextStopWithPending: the signal sent before the
// context's stop may or may not have cancelled it.
func TestSignalNotifyContextStopWithPending(t *testing.T) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGUSR2)
	keep := make(chan os.Signal, 1)
	signal.Notify(keep, syscall.SIGUSR2)
	defer signal.Stop(keep)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	stop()
	<-keep
	t.Errorf("cause %v", context.Cause(ctx))
}
