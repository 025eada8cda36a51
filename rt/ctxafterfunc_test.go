package rt_test

import (
	"context"
	"testing"

	"heddle.dev/rt"
)

// context.AfterFunc's stop racing a cancel on another goroutine: natively
// the cancel can come first and start f, and stop returns false (the
// conformance program TestContextAfterFuncStop: "ran" in 407 of 1,200 runs).
func TestContextAfterFuncStopRacesCancel(t *testing.T) {
	found, bugs, _ := exhaust(t, func() string {
		ctx, cancel := rt.WithCancel(context.Background())
		ran := rt.MakeChan[chan bool](1)
		stop := rt.ContextAfterFunc(ctx, func() { rt.Send(ran, true) })
		rt.Go(cancel)
		if stop() {
			return "stopped"
		}
		rt.Recv(ran)
		return "ran"
	})
	if len(bugs) > 0 || keys(found) != "ran | stopped" {
		t.Fatalf("outcomes %q, bugs %v; want ran | stopped", keys(found), bugs)
	}
}
