package rt_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"heddle.dev/rt"
)

// Two goroutines write to one end of a net.Pipe: the other end reads
// either write first (conform TestNetPipeTwoWriters: natively "cdab" in
// about 5% of runs). With net.Pipe itself, whose writers wait natively,
// heddle saw "abcd" only, and could not claim exhaustion.
func TestNetPipeModelTwoWriters(t *testing.T) {
	got := odporOutcomes(t, func() string {
		a, b := rt.NetPipe()
		done := rt.MakeChan[chan struct{}](0)
		for _, s := range []string{"ab", "cd"} {
			s := s
			rt.Go(func() {
				a.Write([]byte(s))
				rt.Send(done, struct{}{})
			})
		}
		rt.Go(func() {
			rt.Recv(done)
			rt.Recv(done)
			a.Close()
		})
		got, err := io.ReadAll(b)
		return fmt.Sprintf("%s %v", got, err)
	})
	if want := "abcd <nil> | cdab <nil>"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// A short Read takes part of a write; the writer waits for the rest, and
// the reader's Close ends the write (conform TestNetPipeReadPartial).
func TestNetPipeModelPartialReadClose(t *testing.T) {
	got := odporOutcomes(t, func() string {
		a, b := rt.NetPipe()
		res := rt.MakeChan[chan string](1)
		rt.Go(func() {
			n, err := a.Write([]byte("abcd"))
			rt.Send(res, fmt.Sprint(n, err))
		})
		buf := make([]byte, 2)
		n, _ := b.Read(buf)
		b.Close()
		return fmt.Sprintf("%s then %s", buf[:n], rt.Recv(res))
	})
	if want := "ab then 2 io: read/write on closed pipe"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// A read deadline in the past fails a Read at once; one in the future
// fails a Read no write meets when heddle's clock gets there.
func TestNetPipeModelDeadline(t *testing.T) {
	got := odporOutcomes(t, func() string {
		a, b := rt.NetPipe()
		defer a.Close()
		b.SetReadDeadline(rt.Now().Add(-time.Second))
		_, err := b.Read(make([]byte, 1))
		past := errors.Is(err, os.ErrDeadlineExceeded)
		b.SetReadDeadline(rt.Now().Add(time.Second))
		_, err = b.Read(make([]byte, 1))
		future := errors.Is(err, os.ErrDeadlineExceeded)
		b.SetReadDeadline(time.Time{})
		rt.Go(func() { a.Write([]byte("x")) })
		n, err := b.Read(make([]byte, 1))
		return fmt.Sprintf("past %v, future %v, then %d %v", past, future, n, err)
	})
	if want := "past true, future true, then 1 <nil>"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// Outside an exploration the model behaves as net.Pipe.
func TestNetPipeModelNative(t *testing.T) {
	a, b := rt.NetPipe()
	go func() {
		fmt.Fprint(a, "hello")
		a.Close()
	}()
	got, err := io.ReadAll(b)
	if string(got) != "hello" || err != nil {
		t.Fatalf("read %q %v", got, err)
	}
	if _, err := b.Write([]byte("x")); err != io.ErrClosedPipe {
		t.Fatalf("write after close: %v", err)
	}
	var _ net.Conn = a
}
