package rt_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// pipeRun runs a body in which g0.1 reads an os.Pipe that a goroutine
// heddle does not control writes to after delay (real time; never if
// negative), while g0.2 takes steps and the test goroutine sleeps a
// second and waits for g0.1: g0.1 is detached in the read when the write
// comes late.
func pipeRun(t *testing.T, cfg engine.Config, s engine.Strategy, delay time.Duration) *engine.Result {
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
		if delay < 0 {
			return
		}
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
		rt.Go(func() {
			for i := 0; i < 5; i++ {
				rt.MutexLock(&mu)
				n++
				rt.MutexUnlock(&mu)
			}
		})
		rt.Sleep(time.Second)
		rt.Recv(done)
	})
	if delay < 0 {
		w.Write([]byte{1}) // the abandoned reader ends
	}
	<-wrote
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	return res
}

func traceOf(res *engine.Result) string {
	var b strings.Builder
	for _, s := range res.Trace {
		id := "timer"
		if s.G != nil {
			id = s.G.ID
		}
		b.WriteString(id + " " + s.Kind.String() + "\n")
	}
	return b.String()
}

// TestReplayFollowsDetaches: a run whose goroutine was detached in I/O
// (the write came a second late: the monitor backs off to looks 100ms
// apart, and more under load) replays step for step whether the write comes
// at once this time (the goroutine detaches itself where it was detached
// before, and waits to be scheduled where it came back) or 1.5s late (the
// replay waits for it where it came back); and a run in which it was not
// detached (the write came first) replays so when the write is late (the
// goroutine is not detached: it keeps the processor through its read).
func TestReplayFollowsDetaches(t *testing.T) {
	for _, tc := range []struct {
		name            string
		record, replays time.Duration
	}{
		{"slow, replayed fast", time.Second, 0},
		{"slow, replayed slower", time.Second, 1500 * time.Millisecond},
		{"fast, replayed slow", 0, 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			followed := 0
			for seed := int64(1); seed <= 2; seed++ {
				s := strategy.NewRandom(seed)
				s.Begin(1)
				rec := pipeRun(t, engine.Config{}, s, tc.record)
				if rec.Bug != nil {
					t.Fatalf("seed %d: recorded run: %s: %s", seed, rec.Bug.Kind, rec.Bug.Message)
				}
				if tc.record > 0 && len(rec.Detached) == 0 {
					// The monitor did not look in time: on a machine
					// loaded enough, it may not run for a second.
					t.Logf("seed %d: the reader was not detached in a read that took %v", seed, tc.record)
					continue
				}
				followed++
				keys := make([]string, len(rec.Choices))
				for i, c := range rec.Choices {
					keys[i] = c.Key()
				}
				rp := strategy.NewReplay(strategy.WithDetached(keys, rec.Detached))
				rp.Begin(1)
				res := pipeRun(t, engine.Config{Detached: rp.DetachPlan()}, rp, tc.replays)
				if res.Bug != nil {
					t.Fatalf("seed %d: replay: %s: %s\nrecorded (detached %s):\n%s", seed, res.Bug.Kind, res.Bug.Message, engine.FormatDetached(rec.Detached), traceOf(rec))
				}
				if got, want := traceOf(res), traceOf(rec); got != want {
					t.Fatalf("seed %d: the replay ran\n%s\nthe recorded run (detached %s)\n%s", seed, got, engine.FormatDetached(rec.Detached), want)
				}
				if !rp.Consumed() {
					t.Fatalf("seed %d: the replay did not use every recorded choice", seed)
				}
			}
			if followed == 0 {
				t.Skip("the reader was never detached: the machine is too loaded for the monitor to look within a second")
			}
		})
	}
}

// TestReplayDetachedNotBack: where the recorded run had a goroutine back
// from its I/O, a replay whose goroutine does not come back within
// DetachWait ends as diverged, and says which goroutine was in I/O.
func TestReplayDetachedNotBack(t *testing.T) {
	s := strategy.NewRandom(1)
	s.Begin(1)
	rec := pipeRun(t, engine.Config{}, s, time.Second)
	if len(rec.Detached) == 0 || rec.Detached[0].Back == 0 {
		t.Skipf("the reader was not detached, or did not come back (%s): the machine is too loaded for the monitor to look within a second", engine.FormatDetached(rec.Detached))
	}
	keys := make([]string, len(rec.Choices))
	for i, c := range rec.Choices {
		keys[i] = c.Key()
	}
	rp := strategy.NewReplay(strategy.WithDetached(keys, rec.Detached))
	rp.Begin(1)
	res := pipeRun(t, engine.Config{Detached: rp.DetachPlan(), DetachWait: 100 * time.Millisecond}, rp, -1)
	if res.Bug == nil || res.Bug.Kind != engine.KindNondeterminism {
		t.Fatalf("the replay ended with %v, want a divergence", res.Bug)
	}
	for _, want := range []string{"goroutine g0.1 was in real I/O", "rt_test.pipeRun", "where the recorded run had it back"} {
		if !strings.Contains(res.Bug.Message, want) {
			t.Errorf("the divergence does not say %q: %s", want, res.Bug.Message)
		}
	}
}

func TestDetachedFormat(t *testing.T) {
	ds := []engine.Detached{{G: "g0.1", At: 9, Entry: 4, Back: 14}, {G: "g0", At: 0, Entry: 3}}
	s := engine.FormatDetached(ds)
	if s != "g0.1:9:4:14 g0:0:3:0" {
		t.Fatalf("FormatDetached = %q", s)
	}
	got, err := engine.ParseDetached(s)
	if err != nil || len(got) != 2 || got[0] != ds[0] || got[1] != ds[1] {
		t.Fatalf("ParseDetached(%q) = %v, %v", s, got, err)
	}
	if none, err := engine.ParseDetached(engine.FormatDetached(nil)); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("ParseDetached(FormatDetached(nil)) = %#v, %v: want empty, not nil", none, err)
	}
	for _, bad := range []string{"g0.1:9:4", "x:1:2:3", "g0:a:1:1", "g0:-1:1:1"} {
		if _, err := engine.ParseDetached(bad); err == nil {
			t.Errorf("ParseDetached(%q) did not fail", bad)
		}
	}
}

// laterNative is a strategy that picks the first goroutine whose step is
// not "native" (a detached goroutine back from code heddle does not
// control), and a native step only when nothing else can run: a goroutine
// back from its I/O stays enabled at points where another is picked
// (passed counts those points).
type laterNative struct{ passed int }

func (*laterNative) Begin(int) bool     { return true }
func (*laterNative) End(*engine.Result) {}
func (s *laterNative) Choose(p *engine.Point) int {
	native := false
	for i := range p.Choices {
		native = native || p.Choices[i].PendingKind() == engine.OpNative
	}
	for i := range p.Choices {
		if c := &p.Choices[i]; c.G != nil && c.PendingKind() != engine.OpNative {
			if native {
				s.passed++
			}
			return i
		}
	}
	return 0
}

// TestReplayBackBeforeItsStep: a goroutine detached in a read comes back
// while another goroutine takes steps, and the recorded run picks the other
// one at several points where the goroutine back was enabled too (the
// choices were [g0.1 native, g0.2]). A replay, whose goroutine is back
// before then, must have it enabled from the same step, not only from the
// step at which it ran: held back until then, the replay saw points with
// one choice where the recorded run had two, took the recorded choices at
// the wrong points and left its schedule (yamux's TestHalfClose over TCP:
// "the run diverged from the schedule ... goroutine g0.1.2 was in real
// I/O").
func TestReplayBackBeforeItsStep(t *testing.T) {
	run := func(cfg engine.Config, s engine.Strategy, delay time.Duration) *engine.Result {
		t.Helper()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		wrote := make(chan struct{})
		go func() { // not controlled
			defer close(wrote)
			time.Sleep(delay)
			w.Write([]byte{1})
		}()
		cfg.Trace = true
		res := engine.Run(cfg, s, func() {
			var mu sync.Mutex
			done := make(chan struct{})
			rt.Go(func() {
				r.Read(make([]byte, 1))
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
				rt.Close(done)
			})
			rt.Go(func() {
				for i := 0; i < 40; i++ {
					time.Sleep(3 * time.Millisecond) // real time, in code heddle does not control
					rt.MutexLock(&mu)
					rt.MutexUnlock(&mu)
				}
			})
			rt.Recv(done)
		})
		<-wrote
		if res.Internal != "" {
			t.Fatalf("internal error: %s", res.Internal)
		}
		return res
	}
	for attempt := 0; attempt < 3; attempt++ {
		s := &laterNative{}
		rec := run(engine.Config{}, s, 20*time.Millisecond)
		if rec.Bug != nil {
			t.Fatalf("recorded run: %s: %s", rec.Bug.Kind, rec.Bug.Message)
		}
		if len(rec.Detached) == 0 || rec.Detached[0].Back == 0 || s.passed == 0 {
			// The monitor did not look in time, or the reader came back
			// after the other goroutine's last step (the machine held the
			// writer that long): nothing to check.
			t.Logf("the reader was not detached, or did not come back while the other goroutine ran (%s; passed over %d times)", engine.FormatDetached(rec.Detached), s.passed)
			continue
		}
		keys := make([]string, len(rec.Choices))
		for i, c := range rec.Choices {
			keys[i] = c.Key()
		}
		rp := strategy.NewReplay(strategy.WithDetached(keys, rec.Detached))
		rp.Begin(1)
		res := run(engine.Config{Detached: rp.DetachPlan()}, rp, 0)
		if res.Bug != nil {
			t.Fatalf("replay: %s: %s\nrecorded (detached %s):\n%s", res.Bug.Kind, res.Bug.Message, engine.FormatDetached(rec.Detached), traceOf(rec))
		}
		if got, want := traceOf(res), traceOf(rec); got != want {
			t.Fatalf("the replay ran\n%s\nthe recorded run (detached %s)\n%s", got, engine.FormatDetached(rec.Detached), want)
		}
		if !rp.Consumed() {
			t.Fatalf("the replay did not use every recorded choice")
		}
		return
	}
	t.Skip("the reader never came back while the other goroutine took steps: the machine is too loaded")
}
