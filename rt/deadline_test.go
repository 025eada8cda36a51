package rt

import (
	"net"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// virtualConn keeps its deadlines on the virtual clock, as a connection of
// rewritten code does (a multiplexer's stream, net.Pipe's model).
type virtualConn struct{ net.Conn }

// TestDeadlineOnRealClock: an instant a test computes from the virtual
// clock, given to a value that keeps its deadlines in the runtime's poller
// (a *net.TCPListener, a *net.TCPConn), is mapped onto the real clock, as
// far from the real now as it is from the virtual one; a value of
// rewritten code gets it unchanged, and no deadline or an instant of the
// real clock are kept.
func TestDeadlineOnRealClock(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mapped, virtual, zero, real time.Time
	var want time.Time
	engine.Run(engine.Config{}, strategy.NewRandom(1), func() {
		Sleep(time.Hour) // the virtual clock an hour ahead of its start
		want = Now().Add(time.Minute)
		mapped = deadlineFor(ln, want)
		virtual = deadlineFor(virtualConn{}, want)
		zero = deadlineFor(ln, time.Time{})
		real = deadlineFor(ln, time.Now())
	})
	// Natively the deadline is a minute from now. A check that allows the
	// process to stall up to 50 s between the two readings of the clock.
	if d := time.Until(mapped); d <= 10*time.Second || d > time.Minute {
		t.Errorf("a deadline a minute ahead of the virtual clock is %v ahead of the real clock, want a minute", d)
	}
	if !virtual.Equal(want) {
		t.Errorf("a connection of rewritten code got %v, want the virtual instant %v", virtual, want)
	}
	if !zero.IsZero() {
		t.Errorf("no deadline became %v", zero)
	}
	if real.Round(0) == real {
		t.Errorf("an instant of the real clock lost its monotonic reading: %v", real)
	}
}

// TestDeadlineOutsideRun: outside an exploration the instant is the
// caller's.
func TestDeadlineOutsideRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want := time.Now().Add(time.Minute).Round(0)
	if got := deadlineFor(ln, want); !got.Equal(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
