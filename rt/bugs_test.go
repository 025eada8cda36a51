package rt_test

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// One small program per kind of bug. Each must be found, and its schedule
// must replay to the same failure 100 times out of 100.
var bugPrograms = []struct {
	kind string
	msg  string // a substring of the bug's message
	run  func()
}{
	{engine.KindDeadlock, "all goroutines are blocked", func() {
		var a, b sync.Mutex
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.MutexLock(&a)
			rt.MutexLock(&b)
			rt.MutexUnlock(&b)
			rt.MutexUnlock(&a)
			rt.Send(done, true)
		})
		rt.MutexLock(&b)
		rt.MutexLock(&a)
		rt.MutexUnlock(&a)
		rt.MutexUnlock(&b)
		rt.Recv(done)
	}},
	{engine.KindLeak, "blocked forever", func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(ch, 1) }) // nobody receives if the timeout wins
		c0, c1 := rt.RecvCase(ch), rt.RecvCase(rt.After(10*time.Millisecond))
		rt.Select(false, c0, c1)
	}},
	{engine.KindPanic, "index out of range", func() {
		var mu sync.Mutex
		s := []int{1}
		rt.Go(func() {
			rt.MutexLock(&mu)
			s = s[:0]
			rt.MutexUnlock(&mu)
		})
		rt.MutexLock(&mu)
		_ = s[0]
		rt.MutexUnlock(&mu)
	}},
	{engine.KindMisuse, "unlock of unlocked mutex", func() {
		var mu sync.Mutex
		var locked atomic.Bool // not a scheduling point: rt's tests are not rewritten
		rt.Go(func() {
			if !locked.Load() {
				rt.MutexUnlock(&mu)
			}
		})
		rt.MutexLock(&mu)
		locked.Store(true)
		rt.Gosched()
		locked.Store(false)
		rt.MutexUnlock(&mu)
	}},
	{engine.KindMisuse, "negative WaitGroup counter", func() {
		var wg sync.WaitGroup
		rt.Go(func() { rt.WaitGroupDone(&wg) })
		rt.WaitGroupAdd(&wg, 1)
		rt.WaitGroupDone(&wg)
	}},
	{engine.KindMisuse, "close of closed channel", func() {
		ch := rt.MakeChan[chan int](0)
		var closed atomic.Bool
		rt.Go(func() {
			if !closed.Load() {
				rt.Close(ch)
			}
		})
		rt.Gosched()
		if !closed.Load() {
			closed.Store(true)
			rt.Close(ch)
		}
	}},
	{engine.KindMisuse, "send on closed channel", func() {
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Close(ch) })
		rt.Send(ch, 1)
	}},
	{engine.KindMisuse, "Cond.Wait without", func() {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		rt.Go(func() { rt.CondSignal(c) })
		rt.CondWait(c)
	}},
	{engine.KindStepLimit, "step bound", func() {
		// Two goroutines wait for each other's flag, politely: a livelock.
		var a, b int32
		rt.Go(func() {
			for *rt.AtomicR(&b) == 0 {
				rt.Gosched()
			}
			*rt.AtomicW(&a) = 1
		})
		for *rt.AtomicR(&a) == 0 {
			rt.Gosched()
		}
		*rt.AtomicW(&b) = 1
	}},
}

func findBug(t *testing.T, run func()) *engine.Result {
	t.Helper()
	s := strategy.NewRandom(7)
	for i := 1; i <= 2000; i++ {
		s.Begin(i)
		res := engine.Run(engine.Config{StepLimit: 2000, MaxStarve: 100 * time.Millisecond}, s, run)
		if res.Bug != nil {
			return res
		}
	}
	t.Fatal("bug not found in 2000 runs")
	return nil
}

func keysOf(cs []engine.Choice) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key()
	}
	return out
}

func TestEveryBugKindFoundAndReplayed(t *testing.T) {
	for _, p := range bugPrograms {
		t.Run(p.kind+"/"+strings.ReplaceAll(p.msg, " ", "-"), func(t *testing.T) {
			if engine.RaceEnabled && p.msg == "send on closed channel" {
				t.Skip("a send unordered with a close is a data race for the race detector, natively too")
			}
			res := findBug(t, p.run)
			if res.Bug.Kind != p.kind || !strings.Contains(res.Bug.Message, p.msg) {
				t.Fatalf("found %s %q, want %s containing %q", res.Bug.Kind, res.Bug.Message, p.kind, p.msg)
			}
			sched := keysOf(res.Choices)
			for i := 0; i < 100; i++ {
				r := strategy.NewReplay(sched)
				r.Begin(1)
				again := engine.Run(engine.Config{StepLimit: 2000, MaxStarve: 100 * time.Millisecond, Record: i == 0}, r, p.run)
				if again.Bug == nil || again.Bug.Kind != res.Bug.Kind || again.Bug.Message != res.Bug.Message || again.Steps != res.Steps {
					t.Fatalf("replay %d: got %v in %d steps, want %s %q in %d steps", i, again.Bug, again.Steps, res.Bug.Kind, res.Bug.Message, res.Steps)
				}
			}
		})
	}
}

func TestNondeterminismDetectedOnReplay(t *testing.T) {
	calls := 0
	prog := func() {
		calls++
		if calls%2 == 0 {
			rt.Go(func() {})
		}
		rt.Go(func() {})
		rt.Gosched()
	}
	var rec []string
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, prog)
	rec = keysOf(res.Choices)
	r := strategy.NewReplay(rec)
	r.Begin(1)
	again := engine.Run(engine.Config{}, r, prog)
	if again.Bug == nil || again.Bug.Kind != engine.KindNondeterminism {
		t.Fatalf("replay of a program that changed: got %v, want a nondeterminism bug", again.Bug)
	}
}

// TestNoGoroutineLeftBehind runs a test that leaks goroutines in every run
// 10,000 times: every parked goroutine is unwound at the end of its run.
func TestNoGoroutineLeftBehind(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	before := runtime.NumGoroutine()
	runtime.GC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	heapBefore := ms0.HeapAlloc
	s := strategy.NewRandom(3)
	pool := new(engine.Pool)
	leaks := 0
	for i := 1; i <= n; i++ {
		s.Begin(i)
		res := engine.Run(engine.Config{Pool: pool}, s, func() {
			ch := rt.MakeChan[chan int](0)
			var mu sync.Mutex
			rt.MutexLock(&mu)
			rt.Go(func() { rt.Send(ch, 1) })
			rt.Go(func() {
				defer rt.MutexUnlock(&mu) // runs during unwinding: must not schedule
				rt.MutexLock(&mu)
			})
			rt.Go(func() { rt.Select(false) })
		})
		if res.Bug != nil && res.Bug.Kind == engine.KindLeak {
			leaks++
		}
	}
	pool.Close()
	if leaks != n {
		t.Errorf("leak found in %d of %d runs, want all", leaks, n)
	}
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(time.Millisecond)
	}
	after := runtime.NumGoroutine()
	if after > before {
		t.Fatalf("%d goroutines before, %d after %d runs", before, after, n)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	grown := int64(ms.HeapAlloc) - int64(heapBefore)
	t.Logf("after %d leaking runs: %d goroutines left over, heap %+d bytes", n, after-before, grown)
	// Not a timing assertion: a leak of anything per run (a goroutine's
	// stack, a run's shadow state) would be megabytes after 10,000 runs.
	if grown > 4<<20 {
		t.Errorf("heap grew by %d bytes over %d runs", grown, n)
	}
}

// A goroutine that waits for real in code heddle does not control, where
// nothing in the run can release it, is detached (detach.go), waited for,
// and reported blocked outside heddle's control, with the stack where it
// waits.
func TestBlockedOutsideControlIsReported(t *testing.T) {
	stuck := make(chan struct{})
	time.AfterFunc(10*time.Second, func() { close(stuck) })
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{Stuck: stuck, DetachWait: 200 * time.Millisecond}, s, func() {
		var native sync.Mutex // not rewritten: blocks for real
		native.Lock()
		native.Lock()
	})
	if res.Bug == nil || res.Bug.Kind != engine.KindBlocked {
		t.Fatalf("got %v, want a blocked-outside-control bug", res.Bug)
	}
	if !strings.Contains(res.Bug.Stack, "TestBlockedOutsideControlIsReported") {
		t.Errorf("the report's stack does not show where it blocked:\n%s", res.Bug.Stack)
	}
}

func TestRecordedRunHasVectorClocks(t *testing.T) {
	r := strategy.NewRandom(1)
	r.Begin(1)
	res := engine.Run(engine.Config{Record: true}, r, func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Recv(ch)
	})
	var send, recv *engine.Step
	for i := range res.Trace {
		s := &res.Trace[i]
		if s.Kind == engine.OpSend {
			send = s
		}
		if s.Kind == engine.OpRecv {
			recv = s
		}
		if len(s.VC) == 0 && s.G != nil {
			t.Errorf("step %d (%s %s) has no vector clock", s.N, s.G.ID, s.Kind)
		}
	}
	if send == nil || recv == nil {
		t.Fatalf("trace lacks the send or the receive: %+v", res.Trace)
	}
	// The rendezvous orders the two steps, one way or the other.
	if !send.VC.Leq(recv.VC) && !recv.VC.Leq(send.VC) {
		t.Errorf("send %v and receive %v are unordered", send.VC, recv.VC)
	}
}

func TestSameSeedSameSchedules(t *testing.T) {
	schedules := func() []string {
		var out []string
		p := strategy.NewPCT(42, 3)
		for run := 1; run <= 50; run++ {
			p.Begin(run)
			res := engine.Run(engine.Config{}, p, tiny)
			p.End(res)
			out = append(out, strings.Join(keysOf(res.Choices), ","))
		}
		return out
	}
	a, b := schedules(), schedules()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("run %d: %s, then %s", i+1, a[i], b[i])
		}
	}
}

// TestReplayReproducesSelectChoices replays schedules whose choices pick a
// select case: the recorded key must name the case even though the
// goroutine has moved on to other operations when the run ends.
func TestReplayReproducesSelectChoices(t *testing.T) {
	var out string
	prog := func() {
		a := rt.MakeChan[chan string](1)
		b := rt.MakeChan[chan string](1)
		rt.Send(a, "a")
		rt.Send(b, "b")
		rt.Go(func() { rt.Gosched() })
		ca, cb := rt.RecvCase(a), rt.RecvCase(b)
		if rt.Select(false, ca, cb) == 0 {
			out = ca.V
		} else {
			out = cb.V
		}
		rt.Gosched()
	}
	s := strategy.NewRandom(5)
	seen := map[string]bool{}
	for run := 1; run <= 40; run++ {
		s.Begin(run)
		res := engine.Run(engine.Config{}, s, prog)
		want := out
		seen[want] = true
		r := strategy.NewReplay(keysOf(res.Choices))
		r.Begin(1)
		again := engine.Run(engine.Config{}, r, prog)
		if again.Bug != nil || out != want {
			t.Fatalf("run %d (%v): replay gave %q, bug %v; want %q", run, keysOf(res.Choices), out, again.Bug, want)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("outcomes %v, want both cases", seen)
	}
}

// TestPollingLetsTimeAdvance: a goroutine that polls with a select default
// until a sleeping goroutine wakes terminates under every strategy; time
// passes while it polls (GoKer Kubernetes11298).
func TestPollingLetsTimeAdvance(t *testing.T) {
	prog := func() {
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			rt.Sleep(300 * time.Nanosecond)
			rt.Close(done)
		})
		var mu sync.Mutex
		for {
			c := rt.RecvCase(done)
			if rt.Select(true, c) == 0 {
				return
			}
			rt.MutexLock(&mu)
			rt.MutexUnlock(&mu)
		}
	}
	for _, s := range []engine.Strategy{strategy.NewPCT(1, 3), strategy.NewRandom(1)} {
		for run := 1; run <= 100; run++ {
			s.Begin(run)
			res := engine.Run(engine.Config{StepLimit: 5000, MaxStarve: 100 * time.Millisecond}, s, prog)
			s.End(res)
			if res.Bug != nil {
				t.Fatalf("%T run %d: %s: %s", s, run, res.Bug.Kind, res.Bug.Message)
			}
		}
	}
}

// TestLeakBesideTicker: a goroutine blocked forever is a leak even while
// another one keeps running on a ticker (GoKer Etcd7492).
func TestLeakBesideTicker(t *testing.T) {
	res := findBug(t, func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() {
			tk := rt.NewTicker(time.Nanosecond)
			defer rt.TickerStop(tk)
			for {
				rt.Recv(tk.C)
			}
		})
		rt.Go(func() { rt.Send(ch, 1) })
	})
	if res.Bug.Kind != engine.KindLeak || len(res.Bug.Blocked) != 1 || res.Bug.Blocked[0].ID != "g0.2" {
		t.Fatalf("got %s %q (blocked %v), want a leak of g0.2", res.Bug.Kind, res.Bug.Message, res.Bug.Blocked)
	}
}

// TestForeignChannelProbed: a channel made outside rewritten code and
// closed by a goroutine heddle does not control (a stdlib timer here) is
// probed until it is ready, instead of being taken for a deadlock.
func TestForeignChannelProbed(t *testing.T) {
	s := strategy.NewRandom(1)
	for run := 1; run <= 3; run++ {
		foreign := make(chan struct{})                                 // made outside the run
		time.AfterFunc(20*time.Millisecond, func() { close(foreign) }) // not rewritten
		s.Begin(run)
		res := engine.Run(engine.Config{}, s, func() {
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				rt.Recv(foreign)
				rt.Send(done, true)
			})
			rt.Recv(done)
		})
		if res.Bug != nil {
			t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
		}
	}
}
