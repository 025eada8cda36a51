package rt_test

import (
	"fmt"
	"testing"
	"time"

	"heddle.dev/rt"
)

// Go's channels queue the goroutines blocked on them, buffered or not
// (runtime/chan.go's sendq and recvq), and serve them in order: a receive
// from a full buffer moves the oldest waiting sender's value into the slot
// it frees, in the same operation; a send to an empty buffer with
// receivers waiting hands its value to the oldest. These programs wait a
// second (longer than exhaust's MaxStarve, so the sleep never ends before
// the other goroutines have arrived where they block) to have a goroutine
// wait on a channel before a later one comes: the first must win, in every
// schedule, as it does natively (the probes in
// internal/conform/testdata/corpus/chanfifo.go).

// exhaustOnly explores body exhaustively and fails unless every run ends
// without a bug with outcome want.
func exhaustOnly(t *testing.T, want string, body func() string) {
	t.Helper()
	found, bugs, runs := exhaust(t, body)
	if len(bugs) > 0 {
		t.Fatalf("bugs in %d runs: %v (outcomes %s)", runs, bugs, keys(found))
	}
	if !found[want] || len(found) != 1 {
		t.Errorf("DFS found %s in %d runs, want %s only", keys(found), runs, want)
	}
}

// TestBufferedSendHandoff: the waiting sender's value goes into the slot
// the receive frees; a sender that comes later finds the buffer full.
func TestBufferedSendHandoff(t *testing.T) {
	exhaustOnly(t, "1", func() string {
		ch := rt.MakeChan[chan int](1)
		rt.Send(ch, 0)
		rt.Go(func() { rt.Send(ch, 1) }) // waits: the buffer is full
		rt.Sleep(time.Second)
		gate := rt.MakeChan[chan bool](0)
		rt.Go(func() { rt.Recv(gate); rt.Send(ch, 2) })
		rt.Recv(ch)
		rt.Close(gate)
		v := rt.Recv(ch)
		rt.Recv(ch)
		return fmt.Sprint(v)
	})
}

// TestBufferedRecvHandoff: a send to an empty buffer goes to the receiver
// that waits, not to one that comes later.
func TestBufferedRecvHandoff(t *testing.T) {
	exhaustOnly(t, "A", func() string {
		ch := rt.MakeChan[chan int](1)
		got := rt.MakeChan[chan string](2)
		rt.Go(func() { rt.Recv(ch); rt.Send(got, "A") }) // waits: the buffer is empty
		rt.Sleep(time.Second)
		gate := rt.MakeChan[chan bool](0)
		rt.Go(func() { rt.Recv(gate); rt.Recv(ch); rt.Send(got, "B") })
		rt.Send(ch, 1)
		rt.Close(gate)
		w := rt.Recv(got)
		rt.Send(ch, 2)
		rt.Recv(got)
		return w
	})
}

// TestBufferedHandoffOrder: two senders wait on a full buffer of two, in
// order; the four receives see the buffer's values, then the senders' in
// the order they came.
func TestBufferedHandoffOrder(t *testing.T) {
	exhaustOnly(t, "[0 1 2 3]", func() string {
		ch := rt.MakeChan[chan int](2)
		rt.Send(ch, 0)
		rt.Send(ch, 1)
		rt.Go(func() { rt.Send(ch, 2) })
		rt.Sleep(time.Second)
		rt.Go(func() { rt.Send(ch, 3) })
		rt.Sleep(time.Second)
		var got []int
		for range 4 {
			got = append(got, rt.Recv(ch))
		}
		return fmt.Sprint(got)
	})
}

// TestBufferedHandoffSelect: a select waiting to send on a full buffer
// has sent once a receive frees the slot: closing its other channel right
// after cannot make it take that case instead.
func TestBufferedHandoffSelect(t *testing.T) {
	exhaustOnly(t, "sent 1", func() string {
		ch := rt.MakeChan[chan int](1)
		quit := rt.MakeChan[chan struct{}](0)
		res := rt.MakeChan[chan string](1)
		rt.Send(ch, 0)
		rt.Go(func() {
			switch rt.Select(false, rt.SendCase(ch, 1), rt.RecvCase(quit)) {
			case 0:
				rt.Send(res, "sent")
			default:
				rt.Send(res, "quit")
			}
		})
		rt.Sleep(time.Second)
		rt.Recv(ch)
		rt.Close(quit)
		r := rt.Recv(res)
		return fmt.Sprint(r, " ", rt.Recv(ch))
	})
}

// TestBufferedHandoffSelectRecv: a select waiting to receive from an
// empty buffer gets the value of the send that follows; its other case
// made ready right after is too late.
func TestBufferedHandoffSelectRecv(t *testing.T) {
	exhaustOnly(t, "got 7", func() string {
		ch := rt.MakeChan[chan int](1)
		quit := rt.MakeChan[chan struct{}](0)
		res := rt.MakeChan[chan string](1)
		rt.Go(func() {
			r := rt.RecvCase(ch)
			switch rt.Select(false, r, rt.RecvCase(quit)) {
			case 0:
				rt.Send(res, fmt.Sprint("got ", r.V))
			default:
				rt.Send(res, "quit")
			}
		})
		rt.Sleep(time.Second)
		rt.Send(ch, 7)
		rt.Close(quit)
		return rt.Recv(res)
	})
}

// TestUnbufferedFIFO: on an unbuffered channel, the receive pairs with the
// sender that has waited longest, a plain send or a select on several
// channels alike.
func TestUnbufferedFIFO(t *testing.T) {
	for _, selFirst := range []bool{false, true} {
		want := "A"
		if selFirst {
			want = "S"
		}
		t.Run(fmt.Sprint("selectFirst=", selFirst), func(t *testing.T) {
			exhaustOnly(t, want, func() string {
				ch := rt.MakeChan[chan string](0)
				other := rt.MakeChan[chan string](0)
				plain := func() { rt.Send(ch, "A") }
				sel := func() { rt.Select(false, rt.SendCase(other, "x"), rt.SendCase(ch, "S")) }
				first, second := plain, sel
				if selFirst {
					first, second = sel, plain
				}
				rt.Go(first)
				rt.Sleep(time.Second)
				rt.Go(second)
				rt.Sleep(time.Second)
				v := rt.Recv(ch)
				rt.Recv(ch)
				return v
			})
		})
	}
}
