package timectx

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"testing"
	"time"
)

func TestTickAndUntil(t *testing.T) {
	tick := time.Tick(time.Millisecond)
	<-tick
	<-tick
	deadline := time.Now().Add(time.Hour)
	if time.Until(deadline) <= 0 {
		t.Fatal("Until")
	}
}

func TestTimeoutAndDeadlineCause(t *testing.T) {
	cause := errors.New("too slow")
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, cause)
	defer cancel()
	<-ctx.Done()
	if context.Cause(ctx) != cause {
		t.Fatal(context.Cause(ctx))
	}
	ctx2, cancel2 := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Millisecond), cause)
	defer cancel2()
	<-ctx2.Done()
	if !errors.Is(ctx2.Err(), context.DeadlineExceeded) {
		t.Fatal(ctx2.Err())
	}
}

func TestSignalNotifyContextStop(t *testing.T) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	done := make(chan bool)
	go func() { <-ctx.Done(); done <- true }()
	stop()
	<-done
}

func TestTickerReset(t *testing.T) {
	tk := time.NewTicker(time.Hour)
	defer tk.Stop()
	tk.Reset(time.Millisecond)
	<-tk.C
}

func TestSignalNotifyStop(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	signal.Stop(c)
	select {
	case s := <-c:
		t.Fatal("signal", s)
	default:
	}
}

// A busy-wait on the clock: reading it in a loop is polling, which moves
// the virtual clock, so the loop ends under heddle as it does natively.
func TestBusyWaitOnClock(t *testing.T) {
	start := time.Now()
	for time.Since(start) < time.Millisecond {
	}
}
