// Package chans: channel operations written the ways real code writes
// them.
package chans

import (
	"sort"
	"testing"
)

type B bool

type named chan int

type result struct {
	n   int
	err error
}

func TestUnbufferedPingPong(t *testing.T) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	sum := 0
	for i := 0; i < 3; i++ {
		ping <- i
		sum += <-pong
	}
	close(ping)
	if _, ok := <-pong; ok {
		t.Fatal("pong not closed")
	}
	if sum != 6 {
		t.Fatalf("sum %d", sum)
	}
}

func TestBufferedLenCap(t *testing.T) {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	if len(ch) != 2 || cap(ch) != 3 {
		t.Fatalf("len %d cap %d", len(ch), cap(ch))
	}
	var so chan<- string = ch
	if len(so) != 2 || cap(so) != 3 {
		t.Fatal("send-only len/cap")
	}
	close(ch)
	var got []string
	for s := range ch {
		got = append(got, s)
	}
	if len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}

func TestSelectForms(t *testing.T) {
	in, out := make(chan int), make(chan int, 1)
	var nilc chan int
	done := make(chan struct{})
	go func() {
		defer close(done)
		in <- 1
	}()
	got := 0
	for got == 0 {
		select {
		case v, ok := <-in:
			if ok {
				got = v
			}
		case <-nilc:
			t.Fatal("nil channel ready")
		case nilc <- 1:
			t.Fatal("nil channel ready")
		}
	}
	<-done
	select {
	case out <- 2:
	default:
		t.Fatal("buffered send blocked")
	}
	select {
	case v := <-out:
		got += v
	default:
		t.Fatal("value lost")
	}
	select {
	case <-in:
		t.Fatal("received from idle channel")
	default:
	}
	if got != 3 {
		t.Fatalf("got %d", got)
	}
}

func TestNamedChanAndDirections(t *testing.T) {
	c := make(named, 1)
	var send chan<- int = c
	var recv <-chan int = c
	go func() { send <- 4 }()
	if v := <-recv; v != 4 {
		t.Fatal(v)
	}
	var ok B
	var v int
	go func() { c <- 5 }()
	v, ok = <-c
	if !ok || v != 5 {
		t.Fatal(v, ok)
	}
}

func TestChannelOfChannels(t *testing.T) {
	reqs := make(chan chan result)
	go func() {
		for reply := range reqs {
			reply <- result{n: 7}
		}
	}()
	reply := make(chan result)
	reqs <- reply
	r := <-reply
	close(reqs)
	if r.n != 7 || r.err != nil {
		t.Fatal(r)
	}
}

func TestFanInWithResults(t *testing.T) {
	results := make(chan int)
	for i := 0; i < 3; i++ {
		go func(i int) { results <- i * i }(i)
	}
	var got []int
	for i := 0; i < 3; i++ {
		got = append(got, <-results)
	}
	sort.Ints(got)
	if got[0] != 0 || got[1] != 1 || got[2] != 4 {
		t.Fatal(got)
	}
}

func TestSendInterfaceValues(t *testing.T) {
	errc := make(chan error, 3)
	anyc := make(chan any, 2)
	go func() {
		errc <- errClosed
		errc <- nil
		errc <- &myErr{}
		anyc <- 1
		anyc <- nil
	}()
	if <-errc != errClosed || <-errc != nil || (<-errc).Error() != "my" {
		t.Fatal("errors")
	}
	if <-anyc != 1 || <-anyc != nil {
		t.Fatal("anys")
	}
}

type errT string

func (e errT) Error() string { return string(e) }

const errClosed errT = "closed"

type myErr struct{}

func (*myErr) Error() string { return "my" }

func TestSelectLoopWithQuit(t *testing.T) {
	data, quit := make(chan int), make(chan bool)
	go func() {
		for i := 0; i < 3; i++ {
			data <- i
		}
		quit <- true
	}()
	n := 0
loop:
	for {
		select {
		case v := <-data:
			n += v
		case <-quit:
			break loop
		}
	}
	if n != 3 {
		t.Fatal(n)
	}
}

func TestGoWithArgsEvaluatedEarly(t *testing.T) {
	ch := make(chan int)
	x := 1
	go func(v int) { ch <- v }(x)
	x = 2
	if v := <-ch; v != 1 {
		t.Fatal(v)
	}
	f := func(c chan int, v int) { c <- v }
	go f(ch, x)
	if v := <-ch; v != 2 {
		t.Fatal(v)
	}
}
