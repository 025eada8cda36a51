package prog

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Signals a program sends its own process (syscall.Kill, os.Process.Signal
// of its own pid) with signal.Notify registered: natively the signal is
// queued before the send returns and delivered to the channels soon after,
// by os/signal's goroutine; and sync.Map's Range against a Clear, which
// swaps the hash-trie's root under a walk that goes on reading the old one.

// TestSignalProcessSelf: the own process's os.Process.Signal.
func TestSignalProcessSelf(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(5 * time.Second):
		t.Errorf("no signal")
	}
}

// TestSignalSelfSentTwoChans: two channels registered for the signal both
// receive it.
func TestSignalSelfSentTwoChans(t *testing.T) {
	a := make(chan os.Signal, 1)
	b := make(chan os.Signal, 1)
	signal.Notify(a, syscall.SIGUSR2)
	signal.Notify(b, syscall.SIGUSR2)
	defer signal.Stop(a)
	defer signal.Stop(b)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	got := 0
	timeout := time.After(5 * time.Second)
	for got < 2 {
		select {
		case <-a:
			got++
		case <-b:
			got++
		case <-timeout:
			t.Fatalf("got %d", got)
		}
	}
	t.Errorf("got %d", got)
}

// TestSignalNotifyContextSelf: a self-sent signal cancels the context of
// signal.NotifyContext.
func TestSignalNotifyContextSelf(t *testing.T) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGUSR1)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
		t.Errorf("cancelled: %v", ctx.Err())
	case <-time.After(5 * time.Second):
		t.Errorf("no signal")
	}
}

// TestSignalSelfSentFromGoroutine: another goroutine sends the signal
// the test goroutine waits for.
func TestSignalSelfSentFromGoroutine(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	go func() {
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	}()
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(5 * time.Second):
		t.Errorf("no signal")
	}
}

// TestSyncMapRangeVsClearStore: a Clear and then a Store of a new key
// against a Range: the Range walks the old entries whole or sees the map
// after the Clear (the new key or nothing), never a mix.
func TestSyncMapRangeVsClearStore(t *testing.T) {
	var m sync.Map
	for i := 0; i < 3; i++ {
		m.Store(i, i)
	}
	done := make(chan bool)
	go func() {
		m.Clear()
		m.Store(9, 9)
		close(done)
	}()
	var seen []int
	m.Range(func(k, v any) bool {
		seen = append(seen, k.(int))
		return true
	})
	<-done
	sort.Ints(seen)
	t.Errorf("saw %v", seen)
}

// TestSyncMapRangeClearInside: a Range whose function clears the map sees
// every entry.
func TestSyncMapRangeClearInside(t *testing.T) {
	var m sync.Map
	for i := 0; i < 3; i++ {
		m.Store(i, i)
	}
	n := 0
	m.Range(func(k, v any) bool {
		n++
		m.Clear()
		return true
	})
	_, ok := m.Load(0)
	t.Errorf("%s", fmt.Sprint("saw ", n, ", 0 left ", ok))
}
