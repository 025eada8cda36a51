package prog

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// The order in which sync's queues serve goroutines, and the return values
// of timers and contexts at the edges. The programs that wait for
// goroutines to block sleep 150 ms, longer than heddle's -max-starve, so
// that heddle too must let them block (and queue) first; their forbidden
// outcomes (subset_test.go) are those Go's queues never produce.

// queueSleep lets the goroutines started before it block and queue.
const queueSleep = 150 * time.Millisecond

// TestMutexQueueOrder: A queues on a held mutex, then B; Unlock wakes A.
func TestMutexQueueOrder(t *testing.T) {
	var mu sync.Mutex
	got := make(chan string, 2)
	mu.Lock()
	go func() { mu.Lock(); got <- "A"; mu.Unlock() }()
	time.Sleep(queueSleep)
	go func() { mu.Lock(); got <- "B"; mu.Unlock() }()
	time.Sleep(queueSleep)
	mu.Unlock()
	first := <-got
	<-got
	t.Errorf("first %s", first)
}

// TestRWMutexWriterQueue: two writers queue on a held RWMutex.
func TestRWMutexWriterQueue(t *testing.T) {
	var rw sync.RWMutex
	got := make(chan string, 2)
	rw.Lock()
	go func() { rw.Lock(); got <- "A"; rw.Unlock() }()
	time.Sleep(queueSleep)
	go func() { rw.Lock(); got <- "B"; rw.Unlock() }()
	time.Sleep(queueSleep)
	rw.Unlock()
	first := <-got
	<-got
	t.Errorf("first %s", first)
}

// TestRWMutexQueuedReader: a reader blocked by the writer is admitted by
// its Unlock, ahead of a writer that queued after it.
func TestRWMutexQueuedReader(t *testing.T) {
	var rw sync.RWMutex
	got := make(chan string, 2)
	rw.Lock()
	go func() { rw.RLock(); got <- "R"; rw.RUnlock() }()
	time.Sleep(queueSleep)
	go func() { rw.Lock(); got <- "W"; rw.Unlock() }()
	time.Sleep(queueSleep)
	rw.Unlock()
	first := <-got
	<-got
	t.Errorf("first %s", first)
}

// TestCondSignalOrder: Signal wakes the goroutine that has waited longest.
func TestCondSignalOrder(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	got := make(chan string, 2)
	wait := func(name string) {
		mu.Lock()
		c.Wait()
		mu.Unlock()
		got <- name
	}
	go wait("A")
	time.Sleep(queueSleep)
	go wait("B")
	time.Sleep(queueSleep)
	mu.Lock()
	c.Signal()
	mu.Unlock()
	first := <-got
	mu.Lock()
	c.Signal()
	mu.Unlock()
	<-got
	t.Errorf("first %s", first)
}

// TestMutexStarvation: A, queued long ago, loses the mutex to the test
// goroutine barging in once; it then switches the mutex to starvation
// mode, and the test's next Lock waits behind it (and TryLock fails while
// the lock is handed to A).
func TestMutexStarvation(t *testing.T) {
	var mu sync.Mutex
	var got []string
	done := make(chan bool)
	mu.Lock()
	go func() { mu.Lock(); got = append(got, "A"); mu.Unlock(); done <- true }()
	time.Sleep(queueSleep)
	mu.Unlock()
	mu.Lock()
	got = append(got, "main")
	time.Sleep(queueSleep)
	mu.Unlock()
	if mu.TryLock() {
		got = append(got, "trylock")
		mu.Unlock()
	}
	mu.Lock()
	got = append(got, "main")
	mu.Unlock()
	<-done
	order := strings.Join(got, " ")
	if strings.HasSuffix(order, "main A") {
		t.Errorf("A starved: %s", order)
		return
	}
	t.Errorf("order %s", order)
}

// TestTimerStopUnreceived: Stop of a timer that expired but whose value
// was not received (Go 1.23 timer channels: it counts as not fired, and
// its value is discarded).
func TestTimerStopUnreceived(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	stopped := tm.Stop()
	stale := false
	select {
	case <-tm.C:
		stale = true
	default:
	}
	t.Errorf("stop %v stale %v", stopped, stale)
}

// TestTimerResetReceiver: Reset racing the expiry of a timer a goroutine
// waits on.
func TestTimerResetReceiver(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	got := make(chan bool)
	go func() {
		select {
		case <-tm.C:
			got <- true
		case <-time.After(20 * time.Millisecond):
			got <- false
		}
	}()
	time.Sleep(time.Millisecond)
	active := tm.Reset(time.Hour)
	fired := <-got
	t.Errorf("reset %v fired %v", active, fired)
}

// TestTickerResetDrains: Ticker.Reset discards a tick not received, and a
// ticker that fell behind dropped the ticks it could not deliver.
func TestTickerResetDrains(t *testing.T) {
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	time.Sleep(7 * time.Millisecond)
	tk.Reset(time.Hour)
	n := 0
	for {
		select {
		case <-tk.C:
			n++
			continue
		default:
		}
		break
	}
	t.Errorf("ticks %d", n)
}

// TestAfterFuncStopTie: AfterFunc's Stop at the instant the function is
// due.
func TestAfterFuncStopTie(t *testing.T) {
	ran := make(chan bool, 1)
	tm := time.AfterFunc(time.Millisecond, func() { ran <- true })
	time.Sleep(time.Millisecond)
	if tm.Stop() {
		t.Error("stopped")
		return
	}
	<-ran
	t.Error("ran")
}

// TestContextAfterFuncStop: context.AfterFunc's stop racing the cancel.
func TestContextAfterFuncStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan bool, 1)
	stop := context.AfterFunc(ctx, func() { ran <- true })
	go cancel()
	if stop() {
		t.Errorf("stopped, err %v", ctx.Err() != nil)
		return
	}
	<-ran
	t.Error("ran")
}

// TestContextCauseOrder: the cause and the error a cancelled context
// reports, read after Done.
func TestContextCauseOrder(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	dctx, dcancel := context.WithDeadline(ctx, time.Now().Add(time.Millisecond))
	defer dcancel()
	go cancel(errors.New("boom"))
	<-dctx.Done()
	t.Errorf("err %v cause %v", dctx.Err(), context.Cause(dctx))
}

// TestOnceFuncPanic: a panicking OnceFunc panics with the same value at
// every call, and runs f once.
func TestOnceFuncPanic(t *testing.T) {
	n := 0
	f := sync.OnceFunc(func() { n++; panic("p") })
	call := func() (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	a, b := call(), call()
	t.Errorf("calls %d panics %v %v", n, a, b)
}
