package rt_test

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

// The calls the rewriter makes of sync and time methods called through
// interfaces (rt/iface.go), and of sync/atomic functions used as values:
// they act on heddle's model, as the direct calls do. Called natively, as
// they were, a Cond's Signal woke no waiter of the model (deadlock), a
// WaitGroup's Done went below zero, a Timer's Stop stopped nothing and a
// value's atomic Store was no scheduling point.

// TestIfaceCondSignal: a waiter waits for a flag; the signaller sets it
// and signals through an interface: the waiter wakes whether it waited or
// not.
func TestIfaceCondSignal(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		var s interface{ Signal() } = c
		ready, waited := false, false
		done := make(chan bool)
		rt.Go(func() {
			rt.MutexLock(&mu)
			for !ready {
				waited = true
				rt.CondWait(c)
			}
			rt.MutexUnlock(&mu)
			rt.Close(done)
		})
		rt.MutexLock(&mu)
		ready = true
		rt.MutexUnlock(&mu)
		rt.IfaceSignal(s)
		rt.Recv(done)
		return fmt.Sprint(waited)
	})
	if len(bugs) != 0 || keys(outcomes) != "false | true" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}

// embeddedWG promotes its WaitGroup's methods.
type embeddedWG struct{ sync.WaitGroup }

// TestIfaceWaitGroup: Done and Wait through an interface on a type
// promoting a WaitGroup's methods, whose Add was the direct call's: the
// Wait is the model's (called natively, it waited outside heddle's
// control).
func TestIfaceWaitGroup(t *testing.T) {
	dfs := strategy.NewDFS(0)
	outcomes := map[string]bool{}
	for run := 1; dfs.Begin(run); run++ {
		if run > 1000 {
			t.Fatal("DFS did not finish within 1000 runs")
		}
		var out string
		res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, dfs, func() {
			w := &embeddedWG{}
			var g interface {
				Done()
				Wait()
			} = w
			var n atomic.Int32
			rt.WaitGroupAdd(&w.WaitGroup, 2)
			for range 2 {
				rt.Go(func() {
					rt.AtomicW(&n).Add(1)
					rt.IfaceDone(g)
				})
			}
			rt.IfaceWait(g)
			out = fmt.Sprint(rt.AtomicR(&n).Load())
		})
		dfs.End(res)
		if res.Bug != nil || res.Detaches != 0 {
			t.Fatalf("run %d: bug %v, %d waits outside heddle's control", run, res.Bug, res.Detaches)
		}
		outcomes[out] = true
	}
	if keys(outcomes) != "2" {
		t.Fatalf("outcomes %s", keys(outcomes))
	}
}

// TestIfaceTimerStop: a timer stopped through an interface does not fire.
func TestIfaceTimerStop(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		tm := rt.NewTimer(time.Millisecond)
		var s interface{ Stop() bool } = tm
		stopped := rt.IfaceTimerStop(s)
		rt.Sleep(5 * time.Millisecond)
		if rt.Select(true, rt.RecvCase(tm.C)) == 0 {
			return fmt.Sprint("fired ", stopped)
		}
		return fmt.Sprint("quiet ", stopped)
	})
	if len(bugs) != 0 || keys(outcomes) != "quiet true" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}

// TestAtomicThroughInterfaceIsAStep: two stores through an interface over
// an atomic.Int32 are scheduling points: a load between them sees 1.
func TestAtomicThroughInterfaceIsAStep(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		var n atomic.Int32
		var s interface{ Store(int32) } = &n
		done := make(chan bool)
		rt.Go(func() {
			rt.AtomicIW(s).Store(1)
			rt.AtomicIW(s).Store(2)
			rt.Close(done)
		})
		v := rt.AtomicR(&n).Load()
		rt.Recv(done)
		return fmt.Sprint(v)
	})
	if len(bugs) != 0 || keys(outcomes) != "0 | 1 | 2" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}

// TestAtomicFuncValueIsAStep: atomic.AddInt32 used as a value, wrapped, is
// a scheduling point.
func TestAtomicFuncValueIsAStep(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		var n int32
		add := rt.AtomicRMWFn(atomic.AddInt32)
		load := rt.AtomicLoadFn(atomic.LoadInt32)
		done := make(chan bool)
		rt.Go(func() {
			add(&n, 1)
			add(&n, 1)
			rt.Close(done)
		})
		v := load(&n)
		rt.Recv(done)
		return fmt.Sprint(v)
	})
	if len(bugs) != 0 || keys(outcomes) != "0 | 1 | 2" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}

// TestSyncMapThroughInterfaceIsAStep: two stores through an interface
// over a sync.Map are steps: a load between them sees the first, and a
// Range through one sees a key stored meanwhile or not.
func TestSyncMapThroughInterfaceIsAStep(t *testing.T) {
	outcomes, bugs, _ := exhaust(t, func() string {
		var m sync.Map
		var kv interface {
			Store(key, value any)
			Range(f func(key, value any) bool)
		} = &m
		done := make(chan bool)
		rt.Go(func() {
			rt.SyncMapIW(kv).Store("k", 1)
			rt.SyncMapIW(kv).Store("k", 2)
			rt.Close(done)
		})
		v, _ := rt.SyncMapR(&m).Load("k")
		n := 0
		rt.IfaceSyncMapRange(kv, func(key, value any) bool { n++; return true })
		rt.Recv(done)
		return fmt.Sprint(v, n)
	})
	if len(bugs) != 0 || keys(outcomes) != "1 1 | 2 1 | <nil> 0 | <nil> 1" {
		t.Fatalf("outcomes %s, bugs %v", keys(outcomes), bugs)
	}
}
