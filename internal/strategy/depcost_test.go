package strategy_test

import (
	"fmt"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// condPredicateTwoConsumers is conformance's TestCondPredicateTwoConsumers
// (fid9b.go): two consumers wait for items in a predicate loop; the
// producer adds two items, signalling each, then sets done and
// broadcasts. It logs the two consumers' takes (1 for a, 2 for b).
func condPredicateTwoConsumers(o *outcome) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var items []int
	done := false
	got := rt.MakeChan[chan int32](2)
	for name := int32(1); name <= 2; name++ {
		name := name
		rt.Go(func() {
			mine := int32(0)
			for {
				rt.MutexLock(&mu)
				for len(items) == 0 && !done {
					rt.CondWait(cond)
				}
				if len(items) == 0 {
					rt.MutexUnlock(&mu)
					break
				}
				items = items[1:]
				mine = mine*10 + name
				rt.MutexUnlock(&mu)
			}
			rt.Send(got, mine)
		})
	}
	for i := 0; i < 2; i++ {
		rt.MutexLock(&mu)
		items = append(items, i)
		rt.CondSignal(cond)
		rt.MutexUnlock(&mu)
	}
	rt.MutexLock(&mu)
	done = true
	rt.CondBroadcast(cond)
	rt.MutexUnlock(&mu)
	a, b := rt.Recv(got), rt.Recv(got)
	if a > b {
		a, b = b, a
	}
	o.log(0, a*1000+b)
}

// twoRangers is conformance's TestTwoRangersOneProducer (fid9.go) with n
// values: two goroutines range over an unbuffered channel that the test
// goroutine sends n values on and closes; each sends its count.
func twoRangers(n int) func(o *outcome) {
	return func(o *outcome) {
		ch := rt.MakeChan[chan int](0)
		counts := rt.MakeChan[chan int32](2)
		for i := 0; i < 2; i++ {
			rt.Go(func() {
				k := int32(0)
				for {
					if _, ok := rt.Recv2(ch); !ok {
						break
					}
					k++
				}
				rt.Send(counts, k)
			})
		}
		for i := 0; i < n; i++ {
			rt.Send(ch, i)
		}
		rt.Close(ch)
		a, b := rt.Recv(counts), rt.Recv(counts)
		if a > b {
			a, b = b, a
		}
		o.log(0, a*10+b)
	}
}

// ordered is what exploreOrders found: the runs, the classes of their
// happens-before, the outcomes, and the orders in which the goroutines
// took the mutexes and sent.
type ordered struct {
	runs            int
	classes         map[string]bool
	outcomes        map[string]bool
	orders          map[string]bool
	proven, blocked bool
}

// exploreOrders explores prog with s to the end, or to limit runs.
func exploreOrders(t *testing.T, s engine.Strategy, limit int, prog func(*outcome)) ordered {
	t.Helper()
	cc := strategy.NewClassCounter(s)
	x := ordered{classes: map[string]bool{}, outcomes: map[string]bool{}, orders: map[string]bool{}}
	var o *outcome
	body := func() {
		o = &outcome{}
		prog(o)
	}
	for run := 1; cc.Begin(run); run++ {
		if run > limit {
			t.Fatalf("exploration did not end within %d runs (%d classes)", limit, len(x.classes))
		}
		r := engine.Run(lateCfg, cc, body)
		cc.End(r)
		x.runs++
		x.classes[cc.Last] = true
		x.outcomes[o.String()+bugKey(r.Bug)] = true
		var order []string
		for _, st := range r.Trace {
			if st.G != nil && (st.Kind == engine.OpLock || st.Kind == engine.OpSend) {
				order = append(order, st.G.ID+" "+st.Kind.String())
			}
		}
		x.orders[fmt.Sprint(order)] = true
	}
	if d, ok := s.(*strategy.DPOR); ok {
		x.proven, x.blocked = d.Proven() != "", d.Blocked > 0
	}
	return x
}

// TestCondWakeCommutesWithLaterSignals: a waiter's wake (OpCondBlocked,
// after the Signal or Broadcast that woke it) commutes with the Cond's
// other Signals, Broadcasts and Waits, as the waiter is off the wait
// list: only its waker conflicts with it. Before, the wake wrote the Cond
// (and, since fidaudit9's fix, raced every later Signal and Broadcast):
// both DPORs took 25,680 runs on TestCondPredicateTwoConsumers' model,
// each its own class, for the same 1,744 orders of the mutex acquisitions
// and sends (the same set) that 8,720 runs reach now. The waker's race
// stays unreversed; the relock race fidaudit9's fix is for is a mutex
// race now (TestCondLaterSignalRacesWake).
func TestCondWakeCommutesWithLaterSignals(t *testing.T) {
	for _, d := range []*strategy.DPOR{strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		x := exploreOrders(t, d, 12000, condPredicateTwoConsumers)
		if !x.proven || x.blocked || x.runs != len(x.classes) {
			t.Errorf("%s: proven %v, %d classes, want one run per class, a claim", d.Stats(), x.proven, len(x.classes))
		}
		if x.runs > 8720 {
			t.Errorf("%s, want at most 8,720", d.Stats())
		}
		if len(x.orders) != 1744 || len(x.outcomes) != 3 {
			t.Errorf("%s: %d mutex and send orders, want 1,744; outcomes %v, want 3", d.Stats(), len(x.orders), x.outcomes)
		}
	}
}

// TestClosedReceivesCommute: receives that find their channel closed
// (Step.ClosedRecv) read it: they commute with each other, so that two
// rangers over one channel, both ending at its close, are not explored
// in both orders of their last receives. Both DPORs make one run per
// class, and reach every class the depth-first search of all schedules
// reaches: 240 at one value (480 before), 1,100 at two (2,200).
func TestClosedReceivesCommute(t *testing.T) {
	dfs := exploreOrders(t, strategy.NewDFS(0), 20000, twoRangers(1))
	for _, c := range []struct {
		n, runs int
	}{{1, 240}, {2, 1100}} {
		for _, d := range []*strategy.DPOR{strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
			x := exploreOrders(t, d, 5000, twoRangers(c.n))
			if !x.proven || x.blocked || x.runs != len(x.classes) || x.runs != c.runs {
				t.Errorf("%d values: %s: proven %v, %d classes; want %d runs, one per class, a claim", c.n, d.Stats(), x.proven, len(x.classes), c.runs)
			}
			if c.n != 1 {
				continue
			}
			for k := range dfs.classes {
				if !x.classes[k] {
					t.Errorf("%s misses a class of the depth-first search's %d:\n%s", d.Stats(), len(dfs.classes), k)
					break
				}
			}
			if fmt.Sprint(x.outcomes) != fmt.Sprint(dfs.outcomes) || fmt.Sprint(x.orders) != fmt.Sprint(dfs.orders) {
				t.Errorf("%s: outcomes %v, %d send orders; depth-first search: %v, %d", d.Stats(), x.outcomes, len(x.orders), dfs.outcomes, len(dfs.orders))
			}
		}
	}
}
