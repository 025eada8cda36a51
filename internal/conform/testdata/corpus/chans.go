package prog

import "testing"

// TestBufferedOrder: two senders fill a buffered channel; the order the
// receiver sees is reported.
func TestBufferedOrder(t *testing.T) {
	c := make(chan int, 2)
	go func() { c <- 1 }()
	go func() { c <- 2 }()
	a, b := <-c, <-c
	t.Errorf("order %d %d", a, b)
}

// TestUnbufferedHandoff: a value handed over an unbuffered channel, with a
// shared variable written before the send and read after the receive.
func TestUnbufferedHandoff(t *testing.T) {
	c := make(chan int)
	x := 0
	go func() {
		x = 5
		c <- x
	}()
	v := <-c
	t.Errorf("v=%d x=%d", v, x)
}

// TestCloseRecv: a receive racing a send and a close.
func TestCloseRecv(t *testing.T) {
	c := make(chan int, 1)
	go func() {
		c <- 3
		close(c)
	}()
	v, ok := <-c
	w, ok2 := <-c
	t.Errorf("%d %v %d %v", v, ok, w, ok2)
}

// TestCloseSendRace: a send racing a close panics in some schedules.
func TestCloseSendRace(t *testing.T) {
	c := make(chan int, 1)
	done := make(chan bool)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("sender recovered: %v", r)
			}
			done <- true
		}()
		c <- 1
	}()
	close(c)
	<-done
	v, ok := <-c
	t.Errorf("then %d %v", v, ok)
}

// TestSelectBothReady: a select with two ready cases picks either.
func TestSelectBothReady(t *testing.T) {
	a, b := make(chan int, 1), make(chan int, 1)
	done := make(chan bool)
	go func() { a <- 1; done <- true }()
	go func() { b <- 2; done <- true }()
	<-done
	<-done
	select {
	case v := <-a:
		t.Errorf("a %d", v)
	case v := <-b:
		t.Errorf("b %d", v)
	}
}

// TestSelectSendRecv: a select that either sends or receives, racing two
// partners.
func TestSelectSendRecv(t *testing.T) {
	in, out := make(chan int), make(chan int)
	done := make(chan int, 2)
	go func() {
		select {
		case in <- 1:
			done <- 1
		default:
			done <- 0
		}
	}()
	go func() {
		select {
		case v := <-out:
			done <- 10 + v
		default:
			done <- 20
		}
	}()
	select {
	case v := <-in:
		t.Errorf("received %d, then %d %d", v, <-done, <-done)
	case out <- 2:
		t.Errorf("sent, then %d %d", <-done, <-done)
	}
}

// TestNilChannelCase: a nil channel's case never fires.
func TestNilChannelCase(t *testing.T) {
	var nilc chan int
	c := make(chan int)
	go func() { c <- 1 }()
	select {
	case <-nilc:
		t.Error("nil channel fired")
	case v := <-c:
		if v != 1 {
			t.Errorf("got %d", v)
		}
	}
}

// TestRangeClose: a range over a channel closed by the producer, with a
// poll of the same channel by the test goroutine.
func TestRangeClose(t *testing.T) {
	c := make(chan int, 1)
	sum := make(chan int)
	go func() {
		s := 0
		for v := range c {
			s += v
		}
		sum <- s
	}()
	c <- 1
	select {
	case c <- 2:
	default:
	}
	close(c)
	t.Errorf("sum %d", <-sum)
}

// TestChanLenPoll: len of a buffered channel read while a goroutine
// sends on it.
func TestChanLenPoll(t *testing.T) {
	c := make(chan int, 1)
	go func() { c <- 1 }()
	n := len(c)
	<-c
	t.Errorf("len %d", n)
}
