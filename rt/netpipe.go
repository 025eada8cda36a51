package rt

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// net.Pipe's model, as io.Pipe's (iopipe.go): package net is not
// rewritten, so a real net.Pipe's ends wait for each other natively,
// outside heddle's control, and the order of two goroutines' writes was
// not explored (conform TestNetPipeTwoWriters: natively "cdab" in about
// 5% of runs; heddle "abcd" only, not exhausted). The rewriter replaces
// net.Pipe by NetPipe: net/pipe.go (Go 1.26) on heddle's channels, lock,
// Once and timers. Its ends are net.Conn values, as net.Pipe's; what
// differs is their dynamic type's name (%T, reflect), which user code
// cannot name (net's pipe type is unexported).

// netPipeDeadline is net's pipeDeadline: a deadline, signalled by closing
// cancel, on heddle's timers.
type netPipeDeadline struct {
	mu     sync.Mutex // guards timer and cancel
	timer  *time.Timer
	cancel chan struct{} // never nil
}

func makeNetPipeDeadline() netPipeDeadline {
	return netPipeDeadline{cancel: MakeChan[chan struct{}](0)}
}

// set sets the point in time when the deadline times out; the zero time
// means none.
func (d *netPipeDeadline) set(t time.Time) {
	MutexLock(&d.mu)
	defer MutexUnlock(&d.mu)

	if d.timer != nil && !TimerStop(d.timer) {
		Recv(d.cancel) // wait for the timer's function to close cancel
	}
	d.timer = nil

	closed := netPipeClosed(d.cancel)
	if t.IsZero() {
		if closed {
			d.cancel = MakeChan[chan struct{}](0)
		}
		return
	}
	if dur := Until(t); dur > 0 {
		if closed {
			d.cancel = MakeChan[chan struct{}](0)
		}
		cancel := d.cancel
		d.timer = AfterFunc(dur, func() {
			Close(cancel)
		})
		return
	}
	if !closed {
		Close(d.cancel)
	}
}

// wait returns a channel closed when the deadline is exceeded.
func (d *netPipeDeadline) wait() chan struct{} {
	MutexLock(&d.mu)
	defer MutexUnlock(&d.mu)
	return d.cancel
}

func netPipeClosed(c <-chan struct{}) bool {
	return Select(true, RecvCase(c)) == 0
}

type netPipeAddr struct{}

func (netPipeAddr) Network() string { return "pipe" }
func (netPipeAddr) String() string  { return "pipe" }

// netPipe is one end of a net.Pipe.
type netPipe struct {
	wrMu sync.Mutex // serializes Write operations

	// Used by local Read to interact with remote Write: a receive on
	// rdRx is always followed by a send on rdTx.
	rdRx <-chan []byte
	rdTx chan<- int

	// Used by local Write to interact with remote Read: a send on wrTx
	// is always followed by a receive on wrRx.
	wrTx chan<- []byte
	wrRx <-chan int

	once       sync.Once // protects closing localDone
	localDone  chan struct{}
	remoteDone <-chan struct{}

	readDeadline  netPipeDeadline
	writeDeadline netPipeDeadline
}

// NetPipe replaces net.Pipe.
func NetPipe() (net.Conn, net.Conn) {
	cb1 := MakeChan[chan []byte](0)
	cb2 := MakeChan[chan []byte](0)
	cn1 := MakeChan[chan int](0)
	cn2 := MakeChan[chan int](0)
	done1 := MakeChan[chan struct{}](0)
	done2 := MakeChan[chan struct{}](0)

	p1 := &netPipe{
		rdRx: cb1, rdTx: cn1,
		wrTx: cb2, wrRx: cn2,
		localDone: done1, remoteDone: done2,
		readDeadline:  makeNetPipeDeadline(),
		writeDeadline: makeNetPipeDeadline(),
	}
	p2 := &netPipe{
		rdRx: cb2, rdTx: cn2,
		wrTx: cb1, wrRx: cn1,
		localDone: done2, remoteDone: done1,
		readDeadline:  makeNetPipeDeadline(),
		writeDeadline: makeNetPipeDeadline(),
	}
	return p1, p2
}

func (*netPipe) LocalAddr() net.Addr  { return netPipeAddr{} }
func (*netPipe) RemoteAddr() net.Addr { return netPipeAddr{} }

func (p *netPipe) Read(b []byte) (int, error) {
	n, err := p.read(b)
	if err != nil && err != io.EOF && err != io.ErrClosedPipe {
		err = &net.OpError{Op: "read", Net: "pipe", Err: err}
	}
	return n, err
}

func (p *netPipe) read(b []byte) (n int, err error) {
	switch {
	case netPipeClosed(p.localDone):
		return 0, io.ErrClosedPipe
	case netPipeClosed(p.remoteDone):
		return 0, io.EOF
	case netPipeClosed(p.readDeadline.wait()):
		return 0, os.ErrDeadlineExceeded
	}

	bw := RecvCase(p.rdRx)
	switch Select(false, bw, RecvCase(p.localDone), RecvCase(p.remoteDone), RecvCase(p.readDeadline.wait())) {
	case 0:
		nr := copy(b, bw.V)
		Send(p.rdTx, nr)
		return nr, nil
	case 1:
		return 0, io.ErrClosedPipe
	case 2:
		return 0, io.EOF
	default:
		return 0, os.ErrDeadlineExceeded
	}
}

func (p *netPipe) Write(b []byte) (int, error) {
	n, err := p.write(b)
	if err != nil && err != io.ErrClosedPipe {
		err = &net.OpError{Op: "write", Net: "pipe", Err: err}
	}
	return n, err
}

func (p *netPipe) write(b []byte) (n int, err error) {
	switch {
	case netPipeClosed(p.localDone):
		return 0, io.ErrClosedPipe
	case netPipeClosed(p.remoteDone):
		return 0, io.ErrClosedPipe
	case netPipeClosed(p.writeDeadline.wait()):
		return 0, os.ErrDeadlineExceeded
	}

	MutexLock(&p.wrMu) // the whole of b is written together
	defer MutexUnlock(&p.wrMu)
	for once := true; once || len(b) > 0; once = false {
		switch Select(false, SendCase(p.wrTx, b), RecvCase(p.localDone), RecvCase(p.remoteDone), RecvCase(p.writeDeadline.wait())) {
		case 0:
			nw := Recv(p.wrRx)
			b = b[nw:]
			n += nw
		case 1, 2:
			return n, io.ErrClosedPipe
		default:
			return n, os.ErrDeadlineExceeded
		}
	}
	return n, nil
}

func (p *netPipe) SetDeadline(t time.Time) error {
	if netPipeClosed(p.localDone) || netPipeClosed(p.remoteDone) {
		return io.ErrClosedPipe
	}
	p.readDeadline.set(t)
	p.writeDeadline.set(t)
	return nil
}

func (p *netPipe) SetReadDeadline(t time.Time) error {
	if netPipeClosed(p.localDone) || netPipeClosed(p.remoteDone) {
		return io.ErrClosedPipe
	}
	p.readDeadline.set(t)
	return nil
}

func (p *netPipe) SetWriteDeadline(t time.Time) error {
	if netPipeClosed(p.localDone) || netPipeClosed(p.remoteDone) {
		return io.ErrClosedPipe
	}
	p.writeDeadline.set(t)
	return nil
}

func (p *netPipe) Close() error {
	OnceDo(&p.once, func() { Close(p.localDone) })
	return nil
}
