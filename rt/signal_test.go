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

// TestSignalDaemonIsNoLeak: a goroutine left waiting on a signal.Notify
// channel when the test returns (an interrupt handler that lives as long
// as the process, as ginkgo's) is not leaked: the operating system can
// send another signal at any time. A goroutine left waiting on an
// ordinary channel beside it still is.
func TestSignalDaemonIsNoLeak(t *testing.T) {
	handler := func() {
		c := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(c, os.Interrupt)
		stop := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			for {
				s := rt.Select(false, rt.RecvCase(c), rt.RecvCase(stop))
				if s == 1 {
					return
				}
			}
		})
	}
	res := exitRun(t, handler)
	if res.Bug != nil {
		t.Fatalf("got %s %q, want a normal end", res.Bug.Kind, res.Bug.Message)
	}

	res = exitRun(t, func() {
		handler()
		never := rt.MakeChan[chan bool](0)
		rt.Go(func() { rt.Recv(never) })
	})
	if res.Bug == nil || res.Bug.Kind != "leak" || len(res.Bug.Blocked) != 1 {
		t.Fatalf("got %+v, want a leak of the goroutine waiting on a plain channel only", res.Bug)
	}
}
