package p

import (
	"crypto/tls"
	"net"
	"os"
	"time"
)

// stream is a connection of rewritten code: its deadlines are its own
// (virtual) timers, and its calls are kept.
type stream struct{}

func (s *stream) SetReadDeadline(t time.Time) error { return nil }

type wrapped struct{ net.Conn }

func deadlines(c net.Conn, tc *net.TCPConn, ln *net.TCPListener, f *os.File, tl *tls.Conn, s *stream, w wrapped) {
	c.SetDeadline(time.Now().Add(time.Second))
	c.SetReadDeadline(time.Time{})
	tc.SetWriteDeadline(time.Now().Add(time.Second))
	ln.SetDeadline(time.Now().Add(time.Second))
	f.SetReadDeadline(time.Now().Add(time.Second))
	tl.SetDeadline(time.Now().Add(time.Second))
	w.SetReadDeadline(time.Now())
	s.SetReadDeadline(time.Now())
	go c.SetDeadline(time.Time{})
	defer tc.SetReadDeadline(time.Time{})
}
