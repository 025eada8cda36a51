package strategy_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// classes explores body exhaustively with DFS and returns its distinct
// happens-before (Mazurkiewicz) classes.
func classes(t testing.TB, body func(), lazy bool) map[string]bool {
	t.Helper()
	cc := strategy.NewClassCounter(strategy.NewDFS(0))
	runAll(t, cc, 200000, body)
	m := map[string]bool{}
	src := cc.HB
	if lazy {
		src = cc.Lazy
	}
	for k := range src {
		m[k] = true
	}
	return m
}

// small programs with mutexes, channels, select and timers.
var small = []struct {
	name string
	body func()
}{
	{"mutex-2", func() {
		var mu sync.Mutex
		var x int32
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				atomic.AddInt32(rt.AtomicW(&x), 1)
				rt.MutexUnlock(&mu)
			})
		}
	}},
	{"mutex-3", func() {
		var mu sync.Mutex
		for i := 0; i < 3; i++ {
			rt.Go(func() {
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
			})
		}
	}},
	{"two-mutexes", func() {
		var a, b sync.Mutex
		rt.Go(func() { rt.MutexLock(&a); rt.MutexUnlock(&a); rt.MutexLock(&b); rt.MutexUnlock(&b) })
		rt.Go(func() { rt.MutexLock(&b); rt.MutexUnlock(&b) })
		rt.Go(func() { rt.MutexLock(&a); rt.MutexUnlock(&a) })
	}},
	{"lock-order-deadlock", func() {
		var a, b sync.Mutex
		done := rt.MakeChan[chan bool](2)
		rt.Go(func() {
			rt.MutexLock(&a)
			rt.MutexLock(&b)
			rt.MutexUnlock(&b)
			rt.MutexUnlock(&a)
			rt.Send(done, true)
		})
		rt.Go(func() {
			rt.MutexLock(&b)
			rt.MutexLock(&a)
			rt.MutexUnlock(&a)
			rt.MutexUnlock(&b)
			rt.Send(done, true)
		})
		rt.Recv(done)
		rt.Recv(done)
	}},
	{"buffered-2-senders", func() {
		ch := rt.MakeChan[chan int](2)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		rt.Recv(ch)
		rt.Recv(ch)
	}},
	{"unbuffered-2-senders", func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Send(ch, 2) })
		rt.Recv(ch)
		rt.Recv(ch)
	}},
	{"unbuffered-2-receivers", func() {
		ch := rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan bool](2)
		for i := 0; i < 2; i++ {
			rt.Go(func() { rt.Recv(ch); rt.Send(done, true) })
		}
		rt.Send(ch, 1)
		rt.Send(ch, 2)
		rt.Recv(done)
		rt.Recv(done)
	}},
	{"close-vs-recv", func() {
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(ch, 1) })
		rt.Go(func() { rt.Close(ch) })
		rt.Recv2(ch)
	}},
	{"select-two-senders", func() {
		a := rt.MakeChan[chan int](1)
		b := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(a, 1) })
		rt.Go(func() { rt.Send(b, 2) })
		ca, cb := rt.RecvCase(a), rt.RecvCase(b)
		rt.Select(false, ca, cb)
	}},
	{"select-default", func() {
		a := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(a, 1) })
		ca := rt.RecvCase(a)
		rt.Select(true, ca)
	}},
	{"waitgroup", func() {
		var wg sync.WaitGroup
		var x int32
		rt.WaitGroupAdd(&wg, 2)
		for i := 0; i < 2; i++ {
			rt.Go(func() { atomic.AddInt32(rt.AtomicW(&x), 1); rt.WaitGroupDone(&wg) })
		}
		rt.WaitGroupWait(&wg)
		_ = atomic.LoadInt32(rt.AtomicR(&x))
	}},
	{"timer-vs-send", func() {
		ch := rt.MakeChan[chan int](1)
		rt.Go(func() { rt.Send(ch, 1) })
		tm := rt.After(time.Millisecond)
		c1, c2 := rt.RecvCase(ch), rt.RecvCase(tm)
		rt.Select(false, c1, c2)
	}},
	{"cond-signal", func() {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		ready := false
		rt.Go(func() { rt.MutexLock(&mu); ready = true; rt.CondSignal(c); rt.MutexUnlock(&mu) })
		rt.MutexLock(&mu)
		for !ready {
			rt.CondWait(c)
		}
		rt.MutexUnlock(&mu)
	}},
	{"once", func() {
		var o sync.Once
		var x int32
		for i := 0; i < 2; i++ {
			rt.Go(func() { rt.OnceDo(&o, func() { atomic.AddInt32(&x, 1) }) })
		}
	}},
	{"rwmutex", func() {
		var rw sync.RWMutex
		rt.Go(func() { rt.RWRLock(&rw); rt.RWRUnlock(&rw) })
		rt.Go(func() { rt.RWRLock(&rw); rt.RWRUnlock(&rw) })
		rt.Go(func() { rt.RWLock(&rw); rt.RWUnlock(&rw) })
	}},
	// A poll racing a partner's arrival (engine.OpArrive), and the
	// partner between two operations.
	{"poll-vs-arrival", func() {
		ch := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(ch, 1) })
		if rt.Select(true, rt.RecvCase(ch)) < 0 {
			rt.Recv(ch)
		}
	}},
	{"poll-between-ops", func() {
		a, b := rt.MakeChan[chan int](0), rt.MakeChan[chan int](0)
		done := rt.MakeChan[chan struct{}](0)
		rt.Go(func() {
			v := rt.Recv(a)
			rt.Select(false, rt.SendCase(b, v+1), rt.RecvCase(done))
		})
		rt.Send(a, 1)
		rt.Select(true, rt.RecvCase(b))
		rt.Close(done)
	}},
}

// knownGaps are programs on which optimal DPOR covers every class but is
// not exact, with the reason. There are none now: select-two-senders (5
// complete runs for 4 classes until the wakeup tree stopped running a
// leaf that stands for a choice already explored at its point) is exact.
var knownGaps = map[string]string{}

type optCase struct {
	name string
	body func()
}

func optimalityCases() []optCase {
	var cs []optCase
	for n := 1; n <= 3; n++ {
		cs = append(cs, optCase{fmt.Sprintf("readers-%d", n), readers(n)})
	}
	for n := 1; n <= 3; n++ {
		cs = append(cs, optCase{fmt.Sprintf("lastzero-%d", n), lastzero(n)})
	}
	cs = append(cs, optCase{"indexer-2", indexer(2)})
	for _, s := range small {
		cs = append(cs, optCase{s.name, s.body})
	}
	return cs
}

// dfsClasses caches the classes of the optimality cases, which two tests
// compare against: exhaustive DFS is the slow part of both.
var dfsClasses = map[string]map[string]bool{}

func caseClasses(t *testing.T, c optCase) map[string]bool {
	t.Helper()
	if m, ok := dfsClasses[c.name]; ok {
		return m
	}
	m := classes(t, c.body, false)
	dfsClasses[c.name] = m
	return m
}

func TestOptimalDPORExploresOneRunPerClass(t *testing.T) {
	for _, c := range optimalityCases() {
		want := caseClasses(t, c)
		o := strategy.NewOptimalDPOR()
		cc := strategy.NewClassCounter(o)
		runAll(t, cc, 100000, c.body)
		got := cc.HB
		if _, gap := knownGaps[c.name]; gap {
			t.Logf("%s (known gap): optimal DPOR %s for %d classes", c.name, o.Stats(), len(want))
		} else if o.Complete != len(want) || o.Blocked != 0 || len(got) != len(want) {
			t.Errorf("%s: optimal DPOR: %s, %d distinct classes; DFS finds %d classes", c.name, o.Stats(), len(got), len(want))
		}
		for k := range want {
			if got[k] == 0 {
				t.Errorf("%s: optimal DPOR missed a class", c.name)
				break
			}
		}
	}
}

func TestSourceDPORCoversEveryClass(t *testing.T) {
	for _, c := range optimalityCases() {
		want := caseClasses(t, c)
		s := strategy.NewSourceDPOR()
		cc := strategy.NewClassCounter(s)
		runAll(t, cc, 100000, c.body)
		got := cc.HB
		if s.Complete < len(want) {
			t.Errorf("%s: source DPOR: %s; DFS finds %d classes", c.name, s.Stats(), len(want))
		}
		for k := range want {
			if got[k] == 0 {
				t.Errorf("%s: source DPOR missed a class (%s)", c.name, s.Stats())
				break
			}
		}
		t.Logf("%s: %d classes; source DPOR %s", c.name, len(want), s.Stats())
	}
}

func TestReadersIsTwoToTheN(t *testing.T) {
	for n := 1; n <= 6; n++ {
		o := strategy.NewOptimalDPOR()
		runAll(t, o, 100000, readers(n))
		if o.Complete != 1<<n || o.Blocked != 0 {
			t.Errorf("readers-%d: %s, want %d complete", n, o.Stats(), 1<<n)
		}
		s := strategy.NewSourceDPOR()
		runAll(t, s, 100000, readers(n))
		if s.Complete != 1<<n {
			t.Errorf("readers-%d: source DPOR %s, want %d complete", n, s.Stats(), 1<<n)
		}
	}
	if got := len(classes(t, readers(3), false)); got != 8 {
		t.Errorf("readers-3 has %d HB classes by DFS, want 8", got)
	}
}

var _ = engine.OpLock
