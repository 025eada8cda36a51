package rt_test

import (
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestTimersDueTogetherFireInEitherOrder: an AfterFunc and a Sleep due at
// the same instant. Go keeps timers per P, and natively (GOMAXPROCS 2 or
// more) the sleeper may wake before the AfterFunc timer fires, so Stop
// then succeeds: the conformance harness's TestTimerStop saw both. heddle
// fired ties in creation order and reached only "fired"; neither order is
// an early firing, so neither makes a timing verdict.
func TestTimersDueTogetherFireInEitherOrder(t *testing.T) {
	found, bugs, runs := exhaust(t, func() string {
		fired := rt.MakeChan[chan bool](1)
		tm := rt.AfterFunc(time.Microsecond, func() { rt.Send(fired, true) })
		rt.Sleep(time.Microsecond)
		if rt.TimerStop(tm) {
			return "stopped"
		}
		rt.Recv(fired)
		return "fired"
	})
	if len(bugs) > 0 {
		t.Fatalf("bugs: %v", bugs)
	}
	if !found["stopped"] || !found["fired"] || len(found) != 2 {
		t.Errorf("DFS found %s in %d runs, want fired | stopped", keys(found), runs)
	}
}
