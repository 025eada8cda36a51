package prog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Package context, second fidelity audit: String, cancels from goroutines
// heddle does not control, causes of timeouts racing cancels.

type fid2Key string

// fid2Cancels is served by a goroutine started in init: under heddle a
// goroutine it does not control. It says on fid2Called when cancel
// returned, so that under heddle the cancel comes at the same step of
// every run.
var (
	fid2Cancels = make(chan func())
	fid2Called  = make(chan struct{})
)

func init() {
	go func() {
		for cancel := range fid2Cancels {
			cancel()
			fid2Called <- struct{}{}
		}
	}()
}

// TestContextStringKinds: a context's String (fmt.Sprint) is Go's for
// every kind; a deadline's instant and time left are cut out.
func TestContextStringKinds(t *testing.T) {
	c1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	c2, cancel2 := context.WithCancelCause(context.TODO())
	defer cancel2(nil)
	c3, cancel3 := context.WithCancel(context.WithValue(c1, fid2Key("k"), "v"))
	defer cancel3()
	d, cancel4 := context.WithTimeout(c3, time.Hour)
	defer cancel4()
	d2, cancel5 := context.WithDeadline(d, time.Now().Add(2*time.Hour))
	defer cancel5()
	w := context.WithoutCancel(c2)
	var out []string
	for _, c := range []context.Context{c1, c2, c3, d, d2, w} {
		s := fmt.Sprint(c)
		if i := strings.Index(s, ".WithDeadline("); i >= 0 {
			j := strings.Index(s[i:], ")")
			s = s[:i] + ".WithDeadline(...)" + s[i+j+1:]
		}
		out = append(out, s)
	}
	t.Errorf("%s", strings.Join(out, " "))
}

// TestContextOutsideCancelChildOrder: a cancel called by a goroutine
// started in init closes the parent's Done and then cancels the child: a
// goroutine woken by the parent's Done may see the child not cancelled.
func TestContextOutsideCancelChildOrder(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	child, ccancel := context.WithCancel(parent)
	defer ccancel()
	got := make(chan string)
	go func() {
		<-parent.Done()
		got <- fmt.Sprintf("child err %v", child.Err())
	}()
	fid2Cancels <- cancel
	<-fid2Called
	t.Errorf("%s", <-got)
}

// TestContextTimeoutCauseVsCancelCause: a child's timeout with a cause of
// its own races its parent's cancel with another cause.
func TestContextTimeoutCauseVsCancelCause(t *testing.T) {
	errTimeout, errCancel := errors.New("timeout cause"), errors.New("cancel cause")
	parent, cancel := context.WithCancelCause(context.Background())
	child, ccancel := context.WithTimeoutCause(parent, time.Millisecond, errTimeout)
	defer ccancel()
	go cancel(errCancel)
	<-child.Done()
	t.Errorf("err %v, cause %v", child.Err(), context.Cause(child))
}

// TestContextAfterFuncStopVsCancel: context.AfterFunc's stop races the
// context's cancel: either stop wins (f never runs) or f runs.
func TestContextAfterFuncStopVsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan bool, 1)
	stop := context.AfterFunc(ctx, func() { ran <- true })
	go cancel()
	stopped := stop()
	<-ctx.Done()
	select {
	case <-ran:
		t.Errorf("stopped %v, f ran", stopped)
	default:
		if stopped {
			t.Errorf("stopped %v, f did not run", stopped)
		} else {
			// f runs in a goroutine of its own: wait for it.
			<-ran
			t.Errorf("stopped %v, f ran later", stopped)
		}
	}
}

// TestContextErrgroupFirstError: an errgroup-like pattern: the first error
// is kept and cancels the others, which report what they saw.
func TestContextErrgroupFirstError(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	errs := make(chan string, 3)
	for i := 0; i < 2; i++ {
		i := i
		go func() {
			select {
			case <-ctx.Done():
				errs <- fmt.Sprintf("w%d saw %v", i, context.Cause(ctx))
			default:
				cancel(fmt.Errorf("w%d failed", i))
				errs <- fmt.Sprintf("w%d failed", i)
			}
		}()
	}
	a, b := <-errs, <-errs
	if a > b {
		a, b = b, a
	}
	t.Errorf("%s; %s; cause %v", a, b, context.Cause(ctx))
}
