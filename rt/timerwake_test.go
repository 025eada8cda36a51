package rt_test

import (
	"fmt"
	"testing"
	"time"

	"heddle.dev/rt"
)

// TestBubbleTimerFiresToFirstWaiter: two selects parked on a timer's
// channel, the first before the second (a Wait between): Go's timer sends
// its value to the oldest waiter of the channel's queue, which its select
// then completes with, and the other goes on waiting until its quit case.
// heddle put the value in the channel's buffer, where either select could
// take it: "b timer" was reachable, which Go never does
// (TestSynctestTimerFiresToFirstWaiter, 0 of 5,591 native runs).
func TestBubbleTimerFiresToFirstWaiter(t *testing.T) {
	body := func() string {
		var out string
		msg := bubble(func() {
			tm := rt.NewTimer(time.Second)
			quit := rt.MakeChan[chan int](0)
			done := rt.MakeChan[chan string](2)
			waiter := func(name string) func() {
				return func() {
					switch rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(quit)) {
					case 0:
						rt.Send(done, name+" timer")
					default:
						rt.Send(done, name+" quit")
					}
				}
			}
			rt.Go(waiter("a"))
			rt.SynctestWait()
			rt.Go(waiter("b"))
			rt.Sleep(2 * time.Second)
			rt.Close(quit)
			x := rt.Recv(done)
			y := rt.Recv(done)
			out = x + ", " + y
		})
		return msg + out
	}
	want := "a timer, b quit"
	for name, mk := range exhaustiveStrategies {
		outcomes, bugs, runs := exhaustWith(t, mk(), body)
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("%s: outcomes %q, bugs %v in %d runs; want %q and none", name, keys(outcomes), bugs, runs, want)
		}
	}
}

// TestBubbleTimerFiredIntoSelectStop: a select parked on a timer's channel
// and a buffered channel: the firing commits the select to the timer, so
// a send on the other channel after it does not win, and Stop after it
// reports the timer not active (its value was delivered, not pending).
func TestBubbleTimerFiredIntoSelectStop(t *testing.T) {
	body := func() string {
		var out string
		msg := bubble(func() {
			tm := rt.NewTimer(time.Second)
			ch := rt.MakeChan[chan int](1)
			done := rt.MakeChan[chan string](1)
			rt.Go(func() {
				switch rt.Select(false, rt.RecvCase(tm.C), rt.RecvCase(ch)) {
				case 0:
					rt.Send(done, "timer")
				default:
					rt.Send(done, "ch")
				}
			})
			rt.SynctestWait()
			rt.Sleep(2 * time.Second)
			stopped := rt.TimerStop(tm)
			rt.Send(ch, 1)
			got := rt.Recv(done)
			out = fmt.Sprintf("%s stop %v", got, stopped)
		})
		return msg + out
	}
	want := "timer stop false"
	for name, mk := range exhaustiveStrategies {
		outcomes, bugs, runs := exhaustWith(t, mk(), body)
		if keys(outcomes) != want || len(bugs) > 0 {
			t.Errorf("%s: outcomes %q, bugs %v in %d runs; want %q and none", name, keys(outcomes), bugs, runs, want)
		}
	}
}
