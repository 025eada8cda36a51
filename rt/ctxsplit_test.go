package rt_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestCancelChildrenAfterDone: Go's cancel closes the context's Done
// channel and then cancels its children: a goroutine woken by the
// parent's Done may find a child not cancelled yet. The engine cancelled
// the parent and its children in one step, and missed it.
func TestCancelChildrenAfterDone(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		parent, cancel := rt.WithCancel(context.Background())
		child, ccancel := rt.WithCancel(parent)
		defer ccancel()
		got := rt.MakeChan[chan string](0)
		rt.Go(func() {
			rt.Recv(parent.Done())
			rt.Send(got, fmt.Sprint(child.Err()))
		})
		cancel()
		// Once cancel returned, every child is cancelled.
		after := child.Err()
		return rt.Recv(got) + " / " + fmt.Sprint(after)
	})
	want := "<nil> / context canceled | context canceled / context canceled"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestDeadlineChildrenAfterDone: the same when the parent's deadline
// cancels it (natively in the deadline timer's own goroutine).
func TestDeadlineChildrenAfterDone(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		parent, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		child, ccancel := rt.WithCancel(parent)
		defer ccancel()
		got := rt.MakeChan[chan string](0)
		rt.Go(func() {
			rt.Recv(parent.Done())
			rt.Send(got, fmt.Sprint(child.Err()))
		})
		return rt.Recv(got)
	})
	want := "<nil> | context deadline exceeded"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// deadlineVsSleeper is a context's deadline against a goroutine that
// sleeps as long and then cancels the context itself; with clockRead, the
// test reads the clock in between, which moves the virtual clock on, and
// the sleeper's wake is a little later than the deadline. It returns the
// context's error once Done.
func deadlineVsSleeper(clockRead bool) string {
	ctx, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
	if clockRead {
		_ = rt.Now()
	}
	rt.Go(func() {
		rt.Sleep(time.Millisecond)
		cancel()
	})
	rt.Recv(ctx.Done())
	return fmt.Sprint(ctx.Err())
}

// TestDeadlineCancelVsSleeperCancel: Go's deadline cancels in a goroutine
// that time.AfterFunc starts when the timer fires, and a goroutine woken
// at about the same instant can cancel first (natively it mostly does:
// conformance's TestContextTimeoutCauseVsSleepCancel). The engine
// cancelled inline at the firing, and with the sleeper's wake a little
// later than the deadline only the deadline's cancel was reached.
func TestDeadlineCancelVsSleeperCancel(t *testing.T) {
	for _, clockRead := range []bool{false, true} {
		outcomes, bugs := exhaustControlled(t, func() string { return deadlineVsSleeper(clockRead) })
		want := "context canceled | context deadline exceeded"
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("clock read %v: outcomes %q, bugs %v; want %q and none", clockRead, keys(outcomes), bugs, want)
		}
	}
}

// TestDeadlineCancelVsAfterFuncStop: a goroutine that sleeps until the
// deadline stops one of the context's AfterFuncs: stopped, or the
// deadline's cancel came first and started it.
func TestDeadlineCancelVsAfterFuncStop(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		ctx, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		_ = rt.Now()
		ran := rt.MakeChan[chan string](1)
		stop := rt.ContextAfterFunc(ctx, func() { rt.Send(ran, "ran") })
		res := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.Sleep(time.Millisecond)
			rt.Send(res, stop())
		})
		if rt.Recv(res) {
			return "stopped"
		}
		return rt.Recv(ran)
	})
	want := "ran | stopped"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// TestBubbleDeadlineGoroutineInBubble: in a synctest bubble the goroutine
// that cancels a context at its deadline belongs to the bubble, as the
// AfterFunc goroutines it starts do: synctest.Wait, after a sleep that
// ends at the deadline, returns once they have run.
func TestBubbleDeadlineGoroutineInBubble(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var ran bool
		var err error
		msg := bubble(func() {
			ctx, cancel := rt.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			rt.ContextAfterFunc(ctx, func() { ran = true })
			rt.Sleep(time.Millisecond)
			rt.SynctestWait()
			err = ctx.Err()
		})
		return fmt.Sprint(ran, " ", err, msg == "")
	})
	want := "true context deadline exceeded true"
	if keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}
