package prog

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"
)

// Channels beyond the basics (fidelity audit): channels of channels,
// close waking several selects, nil channels with default, len and cap
// while senders run, double close, timers' channels beside ready values.

// TestChanOfChans: two clients send a reply channel to a server, which
// answers in the order it receives them.
func TestChanOfChans(t *testing.T) {
	reqs := make(chan chan int)
	go func() {
		for i := 1; i <= 2; i++ {
			r := <-reqs
			r <- i
		}
	}()
	got := make(chan string, 2)
	for _, name := range []string{"A", "B"} {
		go func() {
			r := make(chan int)
			reqs <- r
			got <- fmt.Sprintf("%s%d", name, <-r)
		}()
	}
	a, b := <-got, <-got
	t.Errorf("%s %s", a, b)
}

// TestCloseWakesSelects: two workers select on a work channel and a done
// channel; the test offers one item for 1 ms and closes done.
func TestCloseWakesSelects(t *testing.T) {
	work, done := make(chan int), make(chan struct{})
	res := make(chan string, 2)
	for i := 0; i < 2; i++ {
		go func() {
			select {
			case v := <-work:
				res <- fmt.Sprintf("w%d", v)
			case <-done:
				res <- "d"
			}
		}()
	}
	select {
	case work <- 1:
	case <-time.After(time.Millisecond):
	}
	close(done)
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%v", r)
}

// TestSelectNilDefault: a select whose only channel is nil takes its
// default; with a ready channel beside the nil one, it may take either
// the channel or nothing, depending on the sender's arrival.
func TestSelectNilDefault(t *testing.T) {
	var nilc chan int
	c := make(chan int, 1)
	done := make(chan bool)
	go func() { c <- 1; done <- true }()
	first := "default"
	select {
	case <-nilc:
		first = "nil"
	default:
	}
	second := "default"
	select {
	case nilc <- 1:
		second = "nil send"
	case v := <-c:
		second = fmt.Sprint(v)
	default:
	}
	<-done
	t.Errorf("%s %s", first, second)
}

// TestChanLenCap: len and cap of a buffered channel observed while a
// goroutine fills it and closes it.
func TestChanLenCap(t *testing.T) {
	c := make(chan int, 2)
	go func() {
		c <- 1
		c <- 2
		close(c)
	}()
	l1 := len(c)
	<-c
	l2 := len(c)
	var rest []int
	for v := range c {
		rest = append(rest, v)
	}
	t.Errorf("len %d then %d cap %d rest %v len %d", l1, l2, cap(c), rest, len(c))
}

// TestDoubleClose: two goroutines close the same channel: one panics.
func TestDoubleClose(t *testing.T) {
	c := make(chan int)
	res := make(chan string, 2)
	for _, name := range []string{"A", "B"} {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					res <- name + " panicked"
					return
				}
				res <- name + " closed"
			}()
			close(c)
		}()
	}
	r := []string{<-res, <-res}
	sort.Strings(r)
	t.Errorf("%v", r)
}

// TestSendClosedSelect: a select's send case on a channel another
// goroutine closes: it panics if the close came first.
func TestSendClosedSelect(t *testing.T) {
	c := make(chan int, 1)
	done := make(chan bool)
	go func() { close(c); done <- true }()
	defer func() {
		<-done
		t.Errorf("recovered %v", recover())
	}()
	select {
	case c <- 1:
	default:
	}
}

// TestSelectTimerAndValue: a timer that is due and a channel holding a
// value are both ready: select takes either.
func TestSelectTimerAndValue(t *testing.T) {
	c := make(chan int, 1)
	c <- 1
	tm := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	select {
	case <-tm.C:
		t.Error("timer")
	case <-c:
		t.Error("value")
	}
}

// TestAfterZeroPoll: a timer of duration 0 (or less) is due at once: a
// non-blocking receive from its channel succeeds.
func TestAfterZeroPoll(t *testing.T) {
	got := ""
	for _, d := range []time.Duration{0, -time.Second} {
		select {
		case <-time.After(d):
			got += "fired "
		default:
			got += "default "
		}
	}
	t.Errorf("%s", got)
}

// TestPanicErrorValue: a goroutine panics with an error value.
func TestPanicErrorValue(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer close(done)
		panic(fmt.Errorf("wrapped: %w", errors.New("boom")))
	}()
	<-done
}

// TestSelectSameChannel: a select with two receive cases on one channel
// that holds a value: either case may take it.
func TestSelectSameChannel(t *testing.T) {
	c := make(chan int, 1)
	c <- 1
	select {
	case <-c:
		t.Error("first case")
	case <-c:
		t.Error("second case")
	}
}

// TestSelectSendRecvBuffered: a select that can both send to and receive
// from a buffered channel holding one value of two: either case.
func TestSelectSendRecvBuffered(t *testing.T) {
	c := make(chan int, 2)
	c <- 1
	select {
	case c <- 2:
		t.Errorf("sent, len %d", len(c))
	case v := <-c:
		t.Errorf("received %d, len %d", v, len(c))
	}
}
