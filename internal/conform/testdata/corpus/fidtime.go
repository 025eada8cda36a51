package prog

import (
	"sync/atomic"
	"testing"
	"time"
)

// Timers and tickers beyond the basics (fidelity audit): Go 1.23 timer
// channels (len and cap 0, Reset discards a stale value), AfterFunc's
// Reset, Ticker.Reset racing a receiver.

// TestTimerChanLen: since Go 1.23 a timer's channel is unbuffered: len
// and cap are 0, even when the timer has fired and no one received.
func TestTimerChanLen(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	l, c := len(tm.C), cap(tm.C)
	<-tm.C
	t.Errorf("len %d cap %d", l, c)
}

// TestTimerResetExpired: Reset of an expired timer whose value was not
// received discards the value; the next receive gets the new expiry.
func TestTimerResetExpired(t *testing.T) {
	start := time.Now()
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	active := tm.Reset(50 * time.Millisecond)
	at := <-tm.C
	t.Errorf("reset %v late %v", active, at.Sub(start) >= 50*time.Millisecond)
}

// TestAfterFuncReset: Reset of an AfterFunc timer before it fires runs f
// once; after it fired, Reset schedules it again.
func TestAfterFuncReset(t *testing.T) {
	var n atomic.Int32
	ran := make(chan bool, 2)
	tm := time.AfterFunc(time.Millisecond, func() { n.Add(1); ran <- true })
	r1 := tm.Reset(2 * time.Millisecond)
	<-ran
	r2 := tm.Reset(time.Millisecond)
	<-ran
	t.Errorf("resets %v %v runs %d", r1, r2, n.Load())
}

// TestTickerResetRace: Ticker.Reset racing a goroutine that receives
// ticks.
func TestTickerResetRace(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	got := make(chan int)
	go func() {
		n := 0
		timeout := time.After(20 * time.Millisecond)
		for {
			select {
			case <-tk.C:
				n++
				if n == 2 {
					got <- n
					return
				}
			case <-timeout:
				got <- n
				return
			}
		}
	}()
	time.Sleep(time.Millisecond)
	tk.Reset(time.Hour)
	t.Errorf("ticks %d", <-got)
}

// TestTimerStopWhileWaiting: Stop of a timer a goroutine is blocked on:
// the goroutine either got the value or stays blocked until its timeout.
func TestTimerStopWhileWaiting(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	got := make(chan string)
	go func() {
		select {
		case <-tm.C:
			got <- "fired"
		case <-time.After(30 * time.Millisecond):
			got <- "timeout"
		}
	}()
	time.Sleep(time.Millisecond)
	stopped := tm.Stop()
	t.Errorf("stop %v %s", stopped, <-got)
}

// TestTwoTimersSameDuration: two timers of the same duration created one
// after the other: the earlier is due first, and a select after both are
// due takes either.
func TestTwoTimersSameDuration(t *testing.T) {
	a := time.NewTimer(time.Millisecond)
	b := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	select {
	case <-a.C:
		t.Error("a")
	case <-b.C:
		t.Error("b")
	}
}

// TestTickerStopNoStale: after Stop returns, no tick is received, even one
// due before the Stop (Go 1.23 timer channels).
func TestTickerStopNoStale(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	time.Sleep(3 * time.Millisecond)
	tk.Stop()
	select {
	case <-tk.C:
		t.Error("stale tick")
	default:
		t.Error("no tick")
	}
}
