package prog

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// Ninth fidelity audit, signals: signal.Ignore, signal.Reset and
// signal.Stop against signals the program sent itself, and syscall.Tgkill
// of the own thread.

// TestSignalStopWithPending: the signal is sent (queued before Kill
// returns), then the channel is stopped: os/signal's Stop waits until the
// delivery under way ends and delivers to the channels being stopped
// (signal.Stop's "stopping" list), so the signal is in c.
func TestSignalStopWithPending(t *testing.T) {
	c := make(chan os.Signal, 1)
	keep := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	signal.Notify(keep, syscall.SIGUSR1)
	defer signal.Stop(keep)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	signal.Stop(c)
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	default:
		t.Errorf("none")
	}
}

// TestSignalIgnoreAfterNotify: signal.Ignore removes the signal from every
// channel: the signal sent afterwards reaches none.
func TestSignalIgnoreAfterNotify(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	defer signal.Stop(c)
	signal.Ignore(syscall.SIGUSR2)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(20 * time.Millisecond):
		t.Errorf("no signal, ignored %v", signal.Ignored(syscall.SIGUSR2))
	}
}

// TestSignalResetAfterNotify: signal.Reset undoes Notify for the signal
// (SIGWINCH's default action is to ignore it): nothing reaches c.
func TestSignalResetAfterNotify(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGWINCH)
	defer signal.Stop(c)
	signal.Reset(syscall.SIGWINCH)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(20 * time.Millisecond):
		t.Errorf("no signal")
	}
}

// TestSignalNotifyAfterIgnore: a Notify after Ignore wants the signal
// again: it is delivered.
func TestSignalNotifyAfterIgnore(t *testing.T) {
	signal.Ignore(syscall.SIGUSR1)
	before := signal.Ignored(syscall.SIGUSR1)
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("ignored %v, got %v", before, s)
	case <-time.After(5 * time.Second):
		t.Errorf("ignored %v, no signal", before)
	}
}

// TestSignalTgkillSelf: a signal sent to the own thread (tgkill) reaches
// the process's Notify as kill's does.
func TestSignalTgkillSelf(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	defer signal.Stop(c)
	if err := syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c:
		t.Errorf("got %v", s)
	case <-time.After(5 * time.Second):
		t.Errorf("no signal")
	}
}

// TestSignalStopVsKillFromGoroutine: a goroutine sends the signal while
// the test stops one of two channels: the stopped one may or may not get
// it; the kept one always does.
func TestSignalStopVsKillFromGoroutine(t *testing.T) {
	c := make(chan os.Signal, 1)
	keep := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	signal.Notify(keep, syscall.SIGUSR1)
	defer signal.Stop(keep)
	go syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	signal.Stop(c)
	<-keep
	select {
	case <-c:
		t.Errorf("stopped got it")
	default:
		t.Errorf("stopped missed it")
	}
}
