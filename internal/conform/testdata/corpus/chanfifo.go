package prog

import "testing"

// Go queues the goroutines blocked on a channel, buffered or not, and
// serves them in order (runtime/chan.go): a receive from a full buffer
// moves the oldest waiting sender's value into the slot it frees, in the
// same operation, and a send to an empty buffer with receivers waiting
// hands its value to the oldest of them. len(ch) right after the
// operation shows whether a goroutine was waiting: a buffer that stays
// full (or empty) had one, and then the rest is determined. Before heddle
// modelled the handoff, it never reached "len 1" in the first program
// (the slot stayed free for whoever came first).

// TestChanFIFOSend: a sender blocked on a full buffer gets the slot the
// receive frees, before a sender that starts after the receive.
func TestChanFIFOSend(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 0
	go func() { ch <- 1 }() // blocks: the buffer is full
	gate := make(chan bool)
	go func() { <-gate; ch <- 2 }()
	<-ch
	n := len(ch) // 1: the waiting sender's value moved in
	close(gate)
	a, b := <-ch, <-ch
	t.Errorf("len %d then %d %d", n, a, b)
}

// TestChanFIFORecv: a receiver blocked on an empty buffer gets the value
// of the next send, before a receiver that starts after it.
func TestChanFIFORecv(t *testing.T) {
	ch := make(chan int, 1)
	got := make(chan int, 1)
	go func() { got <- <-ch }() // blocks: the buffer is empty
	gate := make(chan bool)
	done := make(chan bool)
	go func() { <-gate; <-ch; done <- true }()
	ch <- 1
	n := len(ch) // 0: handed to the waiting receiver
	close(gate)
	ch <- 2
	<-done
	t.Errorf("len %d first receiver got %d", n, <-got)
}

// TestChanFIFOSelectSend: a select blocked sending on a full buffer has
// sent once the receive takes the head: its other case, made ready right
// after, is too late.
func TestChanFIFOSelectSend(t *testing.T) {
	ch := make(chan int, 1)
	quit := make(chan struct{})
	res := make(chan string, 1)
	ch <- 0
	go func() {
		select {
		case ch <- 1:
			res <- "sent"
		case <-quit:
			res <- "quit"
		}
	}()
	<-ch
	n := len(ch)
	close(quit)
	t.Errorf("len %d %s", n, <-res)
}

// TestChanFIFOSelectRecv: a select blocked receiving from an empty buffer
// gets the value of the send that follows.
func TestChanFIFOSelectRecv(t *testing.T) {
	ch := make(chan int, 1)
	quit := make(chan struct{})
	res := make(chan string, 1)
	go func() {
		select {
		case v := <-ch:
			if v == 7 {
				res <- "got 7"
			}
		case <-quit:
			res <- "quit"
		}
	}()
	ch <- 7
	n := len(ch)
	close(quit)
	t.Errorf("len %d %s", n, <-res)
}

// TestChanFIFOTwoSenders: two senders block on a full buffer of two; each
// receive moves the oldest waiting sender's value in, so the buffer stays
// full while a sender waits.
func TestChanFIFOTwoSenders(t *testing.T) {
	ch := make(chan int, 2)
	ch <- 0
	ch <- 1
	go func() { ch <- 2 }()
	go func() { ch <- 3 }()
	var lens []int
	var vals []int
	for range 4 {
		vals = append(vals, <-ch)
		lens = append(lens, len(ch))
	}
	t.Errorf("lens %v vals %v", lens, vals)
}
