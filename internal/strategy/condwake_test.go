package strategy_test

import (
	"sync"
	"testing"

	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// condSignalThenBroadcast: a waiter woken by another goroutine's Signal
// races the test goroutine's Lock; the Broadcast the test goroutine sends
// under that lock wakes nobody if the Signal woke the waiter. The waiter
// logs 1 if it relocked first (it reads the Signal's reason), 2 if after
// the Broadcast's (fidaudit9's TestCondSignalVsWaiterArrival).
func condSignalThenBroadcast(o *outcome) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	reason := int32(0)
	res := rt.MakeChan[chan int32](1)
	rt.Go(func() {
		rt.MutexLock(&mu)
		rt.CondWait(c)
		r := reason
		rt.MutexUnlock(&mu)
		rt.Send(res, r)
	})
	sent := rt.MakeChan[chan bool](0)
	rt.Go(func() {
		rt.MutexLock(&mu)
		reason = 1
		rt.CondSignal(c)
		rt.MutexUnlock(&mu)
		rt.Send(sent, true)
	})
	rt.Recv(sent)
	rt.MutexLock(&mu)
	reason = 2
	rt.CondBroadcast(c)
	rt.MutexUnlock(&mu)
	o.log(0, rt.Recv(res))
}

// TestCondLaterSignalRacesWake: a Signal or Broadcast after the one that
// woke a waiter races the waiter's wake (it is not what enabled it): both
// DPORs reach the waiter relocking before the Broadcast.
func TestCondLaterSignalRacesWake(t *testing.T) {
	for _, d := range []*strategy.DPOR{strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		c := exploreCounted(t, d, 200, condSignalThenBroadcast)
		if !c.outcomes["g0[1] "] || !c.outcomes["g0[2] "] {
			t.Errorf("%s: outcomes %v; want g0[1] and g0[2]", c.stats, c.outcomes)
		}
	}
}
