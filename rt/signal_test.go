package rt_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"heddle.dev/rt"
)

// TestSignalArrivesWhenIdle: a program waiting for a signal is not a
// deadlock. signal.Notify's channel gets the first signal named once
// nothing else can run, after the work that was ready; NotifyContext's
// context is cancelled likewise.
func TestSignalArrivesWhenIdle(t *testing.T) {
	var got os.Signal
	worked := false
	res := exitRun(t, func() {
		c := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(c, syscall.SIGTERM, os.Interrupt)
		work := rt.MakeChan[chan bool](0)
		rt.Go(func() { rt.Send(work, true) })
		worked = rt.Recv(work)
		got = rt.Recv(c)
	})
	if res.Bug != nil {
		t.Fatalf("Notify: got %s %q, want a normal end", res.Bug.Kind, res.Bug.Message)
	}
	if got != syscall.SIGTERM || !worked {
		t.Errorf("Notify: got signal %v (worked %v), want SIGTERM after the work", got, worked)
	}

	var err error
	res = exitRun(t, func() {
		ctx, stop := rt.SignalNotifyContext(context.Background(), os.Interrupt)
		defer stop()
		rt.Recv(ctx.Done())
		err = ctx.Err()
	})
	if res.Bug != nil {
		t.Fatalf("NotifyContext: got %s %q, want a normal end", res.Bug.Kind, res.Bug.Message)
	}
	if err != context.Canceled {
		t.Errorf("NotifyContext: ctx.Err() = %v, want context.Canceled", err)
	}
}
