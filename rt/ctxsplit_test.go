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
