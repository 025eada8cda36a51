package rt_test

import (
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// A goroutine that has finished its previous operation may still be
// running the code before its next one: a partner that polls the channel
// meanwhile sees nobody there, natively. These programs need that state
// (the arrival at a channel operation, a step of its own).

// arriveDefault is issue 10's TestArriveDefault: the partner is between
// two operations when the test polls b.
func arriveDefault() string {
	a, b, done := rt.MakeChan[chan int](0), rt.MakeChan[chan int](0), rt.MakeChan[chan struct{}](0)
	rt.Go(func() {
		v := rt.Recv(a)
		v++
		rt.Select(false, rt.SendCase(b, v), rt.RecvCase(done))
	})
	rt.Send(a, 1)
	out := "received"
	if rt.Select(true, rt.RecvCase(b)) < 0 {
		out = "default"
	}
	rt.Close(done)
	return out
}

// TestArrivalPollSeesNoPartner: exhaustive DFS reaches both outcomes of
// the poll; before the arrival step it found only "received" (the
// partner counted as waiting on b as soon as it had received from a).
func TestArrivalPollSeesNoPartner(t *testing.T) {
	found, bugs, runs := exhaust(t, arriveDefault)
	if len(bugs) > 0 {
		t.Fatalf("bugs: %v", bugs)
	}
	if !found["default"] || !found["received"] || len(found) != 2 {
		t.Errorf("DFS found %s in %d runs, want default | received", keys(found), runs)
	}
}

// TestArrivalPollingLoopDeadlock: a request loop that gives up on the
// reply when the worker is not at its send yet. When the poll takes its
// default, the worker blocks on the reply while the test blocks on the
// next request: a deadlock that only a poll before the worker's arrival
// shows.
func TestArrivalPollingLoopDeadlock(t *testing.T) {
	found, bugs, runs := exhaust(t, func() string {
		req, resp := rt.MakeChan[chan int](0), rt.MakeChan[chan int](0)
		rt.Go(func() {
			for {
				v, ok := rt.Recv2(req)
				if !ok {
					return
				}
				rt.Send(resp, 2*v)
			}
		})
		for i := 0; i < 2; i++ {
			rt.Send(req, i)
			rt.Select(true, rt.RecvCase(resp))
		}
		rt.Close(req)
		return "ok"
	})
	if bugs[engine.KindDeadlock] == 0 {
		t.Errorf("DFS found no deadlock in %d runs (outcomes %s, bugs %v)", runs, keys(found), bugs)
	}
	if !found["ok"] {
		t.Errorf("DFS found no run that ends, in %d runs (bugs %v)", runs, bugs)
	}
}
