package prog

import (
	"testing"
	"time"
)

// TestAfterVsValue: a timeout racing a value that comes after a
// rendezvous.
func TestAfterVsValue(t *testing.T) {
	a, c := make(chan int), make(chan int, 1)
	go func() {
		<-a
		c <- 1
	}()
	a <- 0
	select {
	case v := <-c:
		t.Errorf("value %d", v)
	case <-time.After(time.Millisecond):
		t.Error("timeout")
	}
}

// TestTimerStop: Stop racing the timer's own firing.
func TestTimerStop(t *testing.T) {
	fired := make(chan bool, 1)
	tm := time.AfterFunc(time.Microsecond, func() { fired <- true })
	time.Sleep(time.Microsecond)
	stopped := tm.Stop()
	if stopped {
		t.Error("stopped before firing")
		return
	}
	<-fired
	t.Error("fired")
}

// TestTickerPoll: a ticker's channel polled without blocking.
func TestTickerPoll(t *testing.T) {
	tk := time.NewTicker(time.Microsecond)
	defer tk.Stop()
	<-tk.C
	time.Sleep(time.Microsecond)
	select {
	case <-tk.C:
		t.Error("tick ready")
	default:
		t.Error("no tick")
	}
}

// TestSleepOrder: two goroutines sleep different durations and report in
// order of waking.
func TestSleepOrder(t *testing.T) {
	c := make(chan int, 2)
	go func() {
		time.Sleep(2 * time.Millisecond)
		c <- 2
	}()
	go func() {
		time.Sleep(time.Millisecond)
		c <- 1
	}()
	a, b := <-c, <-c
	t.Errorf("%d %d", a, b)
}
