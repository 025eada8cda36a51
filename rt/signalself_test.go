//go:build unix

package rt_test

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestSignalSelfSent: a signal the program sends its own process, with
// signal.Notify registered for it, is delivered in every run (natively it
// is queued before kill returns), before a timer of the wait for it can
// fire; to every channel registered for it.
func TestSignalSelfSent(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		a := rt.MakeChan[chan os.Signal](1)
		b := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(a, syscall.SIGUSR1)
		rt.SignalNotify(b, syscall.SIGUSR1)
		defer rt.SignalStop(a)
		defer rt.SignalStop(b)
		p, err := os.FindProcess(os.Getpid())
		if err != nil {
			return err.Error()
		}
		if err := rt.ProcessSignal(p, syscall.SIGUSR1); err != nil {
			return err.Error()
		}
		got := ""
		timeout := rt.After(5 * time.Second)
		for len(got) < 2 {
			switch rt.Select(false, rt.RecvCase(a), rt.RecvCase(b), rt.RecvCase(timeout)) {
			case 0:
				got += "a"
			case 1:
				got += "b"
			default:
				return "no signal: " + got
			}
		}
		return "got " + fmt.Sprint(len(got))
	})
	if len(outcomes) != 1 || !outcomes["got 2"] || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want only got 2", keys(outcomes), bugs)
	}
}

// TestSignalSelfSentVsReady: the delivery is a step of its own: a select
// with another ready case may run before it or after it.
func TestSignalSelfSentVsReady(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(c, syscall.SIGUSR2)
		defer rt.SignalStop(c)
		ready := rt.MakeChan[chan bool](1)
		rt.Send(ready, true)
		if err := rt.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
			return err.Error()
		}
		if rt.Select(false, rt.RecvCase(c), rt.RecvCase(ready)) == 0 {
			return "got"
		}
		return "ready"
	})
	if len(outcomes) != 2 || !outcomes["got"] || !outcomes["ready"] || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want got and ready", keys(outcomes), bugs)
	}
}

// TestSignalSelfSentStopped: after signal.Stop the channel receives no
// more, even a signal sent before Stop (Stop waits for a delivery under
// way); a signal sent twice before its delivery is delivered once.
func TestSignalSelfSentStopped(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan os.Signal](2)
		keep := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(c, syscall.SIGUSR1)
		rt.SignalNotify(keep, syscall.SIGUSR1)
		rt.Kill(os.Getpid(), syscall.SIGUSR1)
		rt.Kill(os.Getpid(), syscall.SIGUSR1)
		rt.SignalStop(c)
		n := rt.Len(c)
		rt.Recv(keep)
		return fmt.Sprint("before stop ", n, ", after ", rt.Len(c)-n)
	})
	for o := range outcomes {
		if o != "before stop 0, after 0" && o != "before stop 1, after 0" && o != "before stop 2, after 0" {
			t.Errorf("outcome %q", o)
		}
	}
	if len(bugs) > 0 {
		t.Errorf("bugs %v", bugs)
	}
}

// TestSignalIgnoreReset: signal.Ignore takes the signal from every
// registration and drops it when the program sends it itself;
// signal.Ignored reports it; a Notify after it wants the signal again;
// Reset takes it from the registrations too.
func TestSignalIgnoreReset(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(c chan os.Signal) string
		want string
	}{
		{"ignore", func(c chan os.Signal) string {
			rt.SignalNotify(c, syscall.SIGUSR2)
			rt.SignalIgnore(syscall.SIGUSR2)
			rt.Kill(os.Getpid(), syscall.SIGUSR2)
			return fmt.Sprint("ignored ", rt.SignalIgnored(syscall.SIGUSR2))
		}, "ignored true, none"},
		{"ignore all", func(c chan os.Signal) string {
			rt.SignalNotify(c)
			rt.SignalIgnore()
			rt.Kill(os.Getpid(), syscall.SIGUSR2)
			return fmt.Sprint("ignored ", rt.SignalIgnored(syscall.SIGUSR1))
		}, "ignored true, none"},
		{"notify after ignore", func(c chan os.Signal) string {
			rt.SignalIgnore(syscall.SIGUSR1)
			rt.SignalNotify(c, syscall.SIGUSR1)
			rt.Kill(os.Getpid(), syscall.SIGUSR1)
			return fmt.Sprint("ignored ", rt.SignalIgnored(syscall.SIGUSR1))
		}, "ignored false, got"},
		{"reset", func(c chan os.Signal) string {
			rt.SignalNotify(c, syscall.SIGWINCH, syscall.SIGUSR1)
			rt.SignalReset(syscall.SIGWINCH)
			rt.Kill(os.Getpid(), syscall.SIGWINCH) // its default action: ignored
			return fmt.Sprint("ignored ", rt.SignalIgnored(syscall.SIGWINCH))
		}, "ignored false, none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outcomes, bugs := exhaustControlled(t, func() string {
				c := rt.MakeChan[chan os.Signal](1)
				defer rt.SignalStop(c)
				s := tc.body(c)
				if rt.Select(false, rt.RecvCase(c), rt.RecvCase(rt.After(time.Second))) == 0 {
					return s + ", got"
				}
				return s + ", none"
			})
			if len(outcomes) != 1 || !outcomes[tc.want] || len(bugs) > 0 {
				t.Errorf("outcomes %q, bugs %v; want only %q", keys(outcomes), bugs, tc.want)
			}
		})
	}
}

// TestSignalNotifyContextCause: NotifyContext's context is cancelled with
// os/signal's cause when the signal arrives; its stop cancels it with
// none (context.Canceled) first: a signal sent before the stop gives one
// or the other (natively both, conform TestSignalNotifyContextStopWithPending).
func TestSignalNotifyContextCause(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		ctx, stop := rt.SignalNotifyContext(context.Background(), syscall.SIGUSR2)
		keep := rt.MakeChan[chan os.Signal](1)
		rt.SignalNotify(keep, syscall.SIGUSR2)
		defer rt.SignalStop(keep)
		rt.Kill(os.Getpid(), syscall.SIGUSR2)
		stop()
		rt.Recv(keep)
		return fmt.Sprint(rt.Cause(ctx))
	})
	want := []string{"context canceled", "user defined signal 2 signal received"}
	if len(outcomes) != 2 || !outcomes[want[0]] || !outcomes[want[1]] || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q", keys(outcomes), bugs, want)
	}
}
