package rt_test

import (
	"os"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestUnwindGoroutineBackAtItsEnd: a goroutine detached in a read returns
// from its function when the read ends (the return is its entry back into
// the engine, in goroutine's deferred call) and waits there to be
// scheduled, and the run ends first. Unwinding woke it to end it by
// runtime.Goexit, which, in that deferred call, skipped the exit that
// unwind waits for: the run hung forever (failsafehttp's
// TestNewRoundTripperWithLevel, in Exec.unwind). The replay of a record
// in which the goroutine never came back makes it so every time: the
// goroutine detaches itself at its end, and is held there.
func TestUnwindGoroutineBackAtItsEnd(t *testing.T) {
	body := func(r *os.File) func() {
		return func() {
			rt.Go(func() {
				r.Read(make([]byte, 1))
			})
			rt.Sleep(time.Second)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte{1, 2}) // both reads return at once
	s := strategy.NewRandom(1)
	s.Begin(1)
	rec := engine.Run(engine.Config{Trace: true}, s, body(r))
	if rec.Bug != nil || rec.Internal != "" {
		t.Fatalf("recorded run: %v %s", rec.Bug, rec.Internal)
	}
	at := -1
	for _, st := range rec.Trace {
		if st.G != nil && st.G.ID == "g0.1" && st.Kind == engine.OpStart {
			at = st.N
		}
	}
	if at < 0 {
		t.Fatalf("g0.1 never started: %s", traceOf(rec))
	}
	keys := make([]string, len(rec.Choices))
	for i, c := range rec.Choices {
		keys[i] = c.Key()
	}
	plan := []engine.Detached{{G: "g0.1", At: at, Entry: 0, Back: 0}}
	rp := strategy.NewReplay(keys)
	rp.Begin(1)
	done := make(chan *engine.Result, 1)
	go func() {
		done <- engine.Run(engine.Config{Detached: plan}, rp, body(r))
	}()
	select {
	case res := <-done:
		if res.Internal != "" {
			t.Fatalf("internal error: %s", res.Internal)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the run has not ended after 30s")
	}
}
