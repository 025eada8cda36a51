// Package timectx: time and context.
package timectx

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestSleepAndAfter(t *testing.T) {
	start := time.Now()
	done := make(chan bool)
	go func() {
		time.Sleep(2 * time.Millisecond)
		done <- true
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("timed out")
	}
	// A lower bound Go guarantees (Sleep waits at least d), not a speed
	// assertion: under heddle it checks that the virtual clock moved.
	if time.Since(start) < 2*time.Millisecond {
		t.Fatal("slept less than asked")
	}
}

func TestTimerStopReset(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	if !tm.Stop() {
		t.Fatal("Stop of an active timer returned false")
	}
	tm.Reset(time.Millisecond)
	<-tm.C
	if tm.Stop() {
		t.Fatal("Stop of a fired timer returned true")
	}
}

func TestTicker(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for i := 0; i < 3; i++ {
		<-tk.C
	}
}

func TestAfterFunc(t *testing.T) {
	done := make(chan bool)
	time.AfterFunc(time.Millisecond, func() { done <- true })
	<-done
	tm := time.AfterFunc(time.Hour, func() { t.Error("fired") })
	if !tm.Stop() {
		t.Fatal("Stop returned false")
	}
}

func TestWithCancelAndCause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		<-ctx.Done()
		done <- ctx.Err()
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	cause := errors.New("stop")
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	go cancel2(cause)
	<-ctx2.Done()
	if context.Cause(ctx2) != cause {
		t.Fatal(context.Cause(ctx2))
	}
}

func TestWithTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("no timeout")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal(ctx.Err())
	}
	ctx2, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(time.Hour))
	cancel2()
	<-ctx2.Done()
}

func TestContextAfterFuncWithoutCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	stop := context.AfterFunc(ctx, func() { wg.Done() })
	_ = stop
	detached := context.WithoutCancel(ctx)
	cancel()
	wg.Wait()
	if detached.Err() != nil {
		t.Fatal("WithoutCancel context canceled")
	}
}
