package rt_test

import (
	"context"
	"strings"
	"testing"

	"heddle.dev/rt"
)

// TestCancelReachesEveryChild: cancelling a context cancels each of its
// children, and wakes the goroutines waiting on their Done channels. The
// engine cancelled every other child only: each child, cancelled, took
// itself out of its parent's list while the parent's loop went over that
// list (pond's pool context, cancelled with its tasks' futures as
// children, left half of them pending).
func TestCancelReachesEveryChild(t *testing.T) {
	exhaustOnly(t, "cancelled cancelled cancelled cancelled woken", func() string {
		root, cancel := rt.WithCancel(context.Background())
		var ks []context.Context
		for range 4 {
			k, _ := rt.WithCancel(root)
			ks = append(ks, k)
		}
		woken := rt.MakeChan[chan string](0)
		rt.Go(func() {
			rt.Recv(ks[1].Done())
			rt.Send(woken, "woken")
		})
		cancel()
		var out []string
		for _, k := range ks {
			if k.Err() != nil {
				out = append(out, "cancelled")
			} else {
				out = append(out, "pending")
			}
		}
		out = append(out, rt.Recv(woken))
		return strings.Join(out, " ")
	})
}
