package rt_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// readerRun runs a body in which g0.1 reads an os.Pipe that a goroutine
// heddle does not control writes to after delay (real time), then takes a
// lock that g0.2 and g0.3 take too, while the test goroutine waits for
// g0.1: g0.1 is detached in the read when the write comes late.
func readerRun(t *testing.T, cfg engine.Config, s engine.Strategy, delay time.Duration) *engine.Result {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wrote := make(chan struct{})
	go func() { // not controlled: an HTTP server, say
		defer close(wrote)
		time.Sleep(delay)
		w.Write([]byte{1})
	}()
	cfg.Trace = true
	res := engine.Run(cfg, s, func() {
		var mu sync.Mutex
		n := 0
		done := make(chan struct{})
		rt.Go(func() {
			r.Read(make([]byte, 1))
			rt.MutexLock(&mu)
			n++
			rt.MutexUnlock(&mu)
			rt.Close(done)
		})
		for range 2 {
			rt.Go(func() {
				rt.MutexLock(&mu)
				n++
				rt.MutexUnlock(&mu)
			})
		}
		rt.Recv(done)
	})
	<-wrote
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	return res
}

// TestDPORPrefixFollowsDetaches: an exploration's run replays a prefix of
// the run before it, and when a goroutine waiting in real I/O comes back
// is up to the operating system. Here the first run's reader is detached
// in its read (the write comes 300ms late) and comes back late; in the
// runs after, the write comes at once. Without the first run's record a
// prefix saw the reader back sooner, other points than the run it
// replays, and optimal DPOR left its schedule ("nondeterministic by
// itself": cmd/heddle's parallel_noclaim on a loaded machine, where the
// reader of a pipe came back at a step that moved with the load). With the
// record (DPOR.DetachPrefix, engine.Config.FollowPoints) the prefix holds
// the reader until the step at which it came back then, and the
// exploration runs to its end.
func TestDPORPrefixFollowsDetaches(t *testing.T) {
	d := strategy.NewOptimalDPOR()
	detached := false
	runs := 0
	for run := 1; run <= 200 && d.Begin(run); run++ {
		var cfg engine.Config
		cfg.Detached, cfg.FollowPoints = d.DetachPrefix()
		delay := time.Duration(0)
		if run == 1 {
			delay = 300 * time.Millisecond
		}
		res := readerRun(t, cfg, d, delay)
		d.End(res)
		runs++
		if run == 1 {
			if len(res.Detached) == 0 {
				// The monitor did not look within 300ms: on a machine
				// loaded enough, it may not run that soon.
				t.Skip("the reader was not detached in a read that took 300ms")
			}
			detached = true
		}
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s (detached in this run: %s)", run, res.Bug.Kind, res.Bug.Message, engine.FormatDetached(res.Detached))
		}
	}
	if !detached {
		t.Fatal("no run")
	}
	if runs < 2 {
		t.Fatalf("%d runs, want a prefix replayed", runs)
	}
	if d.Begin(runs + 1) {
		t.Fatalf("optimal DPOR did not end in %d runs", runs)
	}
	t.Logf("%d runs", runs)
}
