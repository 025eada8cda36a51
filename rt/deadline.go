package rt

import (
	"net"
	"reflect"
	"time"

	"heddle.dev/internal/engine"
)

// SetDeadline, SetReadDeadline and SetWriteDeadline replace the calls of
// those methods on a connection, a listener or a file whose type is not
// known to be rewritten code's (a net.Conn, a *net.TCPConn, an *os.File).
//
// During an exploration time.Now reads the virtual clock, so a test's
// c.SetReadDeadline(time.Now().Add(d)) computes a virtual instant; a real
// connection hands it to the network poller, which reads it on the real
// clock: in the past (the virtual clock starts when heddle test starts)
// every read times out at once, in the future it never does. The deadline
// is mapped onto the real clock, d from now, when the value it is set on
// keeps its deadlines in the runtime's poller (a type of package net or
// os, or a *tls.Conn over one); a connection of rewritten code (net.Pipe's
// model, a multiplexer's stream) keeps its deadlines on the virtual clock
// and gets the instant unchanged.
func SetDeadline(c interface{ SetDeadline(time.Time) error }, t time.Time) error {
	return c.SetDeadline(deadlineFor(c, t))
}

// SetReadDeadline: see SetDeadline.
func SetReadDeadline(c interface{ SetReadDeadline(time.Time) error }, t time.Time) error {
	return c.SetReadDeadline(deadlineFor(c, t))
}

// SetWriteDeadline: see SetDeadline.
func SetWriteDeadline(c interface{ SetWriteDeadline(time.Time) error }, t time.Time) error {
	return c.SetWriteDeadline(deadlineFor(c, t))
}

// deadlineFor returns the instant to pass to c's deadline setter for the
// instant t the caller computed.
func deadlineFor(c any, t time.Time) time.Time {
	if t.IsZero() || t != t.Round(0) {
		// No deadline, or an instant read from the real clock (it has a
		// monotonic reading: read by code that is not rewritten).
		return t
	}
	var now time.Time
	if x := engine.Current(); x != nil {
		now = x.Now()
	} else if x := engine.Active(); x != nil {
		now = x.ForeignNow()
	} else {
		return t
	}
	if !realDeadlines(c, 4) {
		return t
	}
	return time.Now().Add(t.Sub(now))
}

// realDeadlines says whether c keeps its deadlines in the runtime's
// network poller: a value of a type of package net or os (the standard
// library is not rewritten), or a connection wrapping one (a *tls.Conn's
// NetConn).
func realDeadlines(c any, depth int) bool {
	if c == nil || depth == 0 {
		return false
	}
	if w, ok := c.(interface{ NetConn() net.Conn }); ok {
		return realDeadlines(w.NetConn(), depth-1)
	}
	t := reflect.TypeOf(c)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.PkgPath() {
	case "net", "os":
		return true
	}
	return false
}
