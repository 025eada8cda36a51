package prog

import (
	"context"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Eighth fidelity audit, second part: a Cond's Signal from two goroutines
// with three waiters queued in order, runtime.Goexit in the functions of
// time.AfterFunc and context.AfterFunc, and two commands run at once.

// TestCondTwoSignalsThreeWaiters: a, b and c wait on a Cond in that order;
// two goroutines Signal at once: the two oldest waiters wake (Go's
// notifyList wakes by ticket).
func TestCondTwoSignalsThreeWaiters(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := make(chan bool)
	woke := make(chan string, 3)
	for _, name := range []string{"a", "b", "c"} {
		go func() {
			mu.Lock()
			ready <- true
			cond.Wait()
			mu.Unlock()
			woke <- name
		}()
		// The waiter holds mu until its Wait took its ticket and
		// unlocked: once the test has mu, it waits.
		<-ready
		mu.Lock()
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); cond.Signal() }()
	}
	wg.Wait()
	got := []string{<-woke, <-woke}
	sort.Strings(got)
	cond.Broadcast()
	<-woke
	t.Errorf("woke %s", strings.Join(got, " "))
}

// TestGoexitInAfterFunc: time.AfterFunc's function calls runtime.Goexit:
// its goroutine ends, its deferred calls run.
func TestGoexitInAfterFunc(t *testing.T) {
	done := make(chan string, 1)
	time.AfterFunc(time.Millisecond, func() {
		got := "goexit"
		defer func() { done <- got }()
		runtime.Goexit()
		got = "after goexit"
	})
	t.Errorf("%s", <-done)
}

// TestGoexitInContextAfterFunc: context.AfterFunc's function calls
// runtime.Goexit when the context is cancelled.
func TestGoexitInContextAfterFunc(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	context.AfterFunc(ctx, func() {
		got := "goexit"
		defer func() { done <- got }()
		runtime.Goexit()
		got = "after goexit"
	})
	go cancel()
	t.Errorf("%s", <-done)
}

// TestExecTwoCommands: two goroutines each run a command and append its
// output: either order.
func TestExecTwoCommands(t *testing.T) {
	var mu sync.Mutex
	var out []string
	var wg sync.WaitGroup
	for _, w := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := exec.Command("echo", w).Output()
			if err != nil {
				b = []byte(err.Error())
			}
			mu.Lock()
			out = append(out, strings.TrimSpace(string(b)))
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Errorf("%s", strings.Join(out, " "))
}

// TestSynctestTickerResetInLoop: a ticker reset to a longer period by its
// receiver after the first tick: ticks at 1s, 3s and 5s.
func TestSynctestTickerResetInLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		var at []string
		for i := 0; i < 3; i++ {
			<-tk.C
			at = append(at, time.Since(start).String())
			if i == 0 {
				tk.Reset(2 * time.Second)
			}
		}
		t.Errorf("ticks at %s", strings.Join(at, " "))
	})
}

// TestSynctestTickerResetDropsPending: a tick nobody received is pending
// when the ticker is Reset: Go 1.23's Reset drops it, and the next tick
// comes a period after the Reset.
func TestSynctestTickerResetDropsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		time.Sleep(1500 * time.Millisecond)
		tk.Reset(time.Second)
		<-tk.C
		t.Errorf("tick at %s", time.Since(start))
	})
}

// TestSynctestTimerResetWhileReceiverParked: a goroutine waits on a
// timer's channel; the root resets the timer before it fires: the value
// comes at the new instant.
func TestSynctestTimerResetWhileReceiverParked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		tm := time.NewTimer(time.Second)
		got := make(chan time.Duration)
		go func() {
			<-tm.C
			got <- time.Since(start)
		}()
		time.Sleep(500 * time.Millisecond)
		active := tm.Reset(2 * time.Second)
		t.Errorf("reset %v, fired at %s", active, <-got)
	})
}
