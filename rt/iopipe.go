package rt

import (
	"io"
	"sync"
)

// io.Pipe's model. Package io is not rewritten, so a real pipe's ends wait
// for each other natively, outside heddle's control: its goroutines are
// detached and the order of its writes is not explored. The rewriter
// replaces io.Pipe by Pipe, and the types io.PipeReader and io.PipeWriter
// by PipeReader and PipeWriter, in the code it rewrites: they are
// io/pipe.go (Go 1.26) on heddle's channels, lock and Once, so every wait
// of a pipe is a scheduling point and every order of its readers and
// writers is explored. Outside an exploration they behave as io.Pipe.
// What differs from io's types: their names (%T, reflect), and a value
// of type *io.PipeReader made by code that is not rewritten cannot be
// used where rewritten code expects one (the standard library makes none).

// pipeOnceError is io's onceError: an error stored once, under a lock.
type pipeOnceError struct {
	mu  sync.Mutex
	err error
}

func (a *pipeOnceError) Store(err error) {
	MutexLock(&a.mu)
	defer MutexUnlock(&a.mu)
	if a.err != nil {
		return
	}
	a.err = err
}

func (a *pipeOnceError) Load() error {
	MutexLock(&a.mu)
	defer MutexUnlock(&a.mu)
	return a.err
}

// pipe is io's pipe: the shared state of a PipeReader and a PipeWriter.
type pipe struct {
	wrMu sync.Mutex // serializes Write operations
	wrCh chan []byte
	rdCh chan int

	once sync.Once // protects closing done
	done chan struct{}
	rerr pipeOnceError
	werr pipeOnceError
}

func (p *pipe) read(b []byte) (n int, err error) {
	if Select(true, RecvCase(p.done)) == 0 {
		return 0, p.readCloseError()
	}
	bw, done := RecvCase(p.wrCh), RecvCase(p.done)
	switch Select(false, bw, done) {
	case 0:
		nr := copy(b, bw.V)
		Send(p.rdCh, nr)
		return nr, nil
	default:
		return 0, p.readCloseError()
	}
}

func (p *pipe) closeRead(err error) error {
	if err == nil {
		err = io.ErrClosedPipe
	}
	p.rerr.Store(err)
	OnceDo(&p.once, func() { Close(p.done) })
	return nil
}

func (p *pipe) write(b []byte) (n int, err error) {
	if Select(true, RecvCase(p.done)) == 0 {
		return 0, p.writeCloseError()
	}
	MutexLock(&p.wrMu)
	defer MutexUnlock(&p.wrMu)

	for once := true; once || len(b) > 0; once = false {
		wr, done := SendCase(p.wrCh, b), RecvCase(p.done)
		switch Select(false, wr, done) {
		case 0:
			nw := Recv(p.rdCh)
			b = b[nw:]
			n += nw
		default:
			return n, p.writeCloseError()
		}
	}
	return n, nil
}

func (p *pipe) closeWrite(err error) error {
	if err == nil {
		err = io.EOF
	}
	p.werr.Store(err)
	OnceDo(&p.once, func() { Close(p.done) })
	return nil
}

// readCloseError is considered internal to the pipe type.
func (p *pipe) readCloseError() error {
	rerr := p.rerr.Load()
	if werr := p.werr.Load(); rerr == nil && werr != nil {
		return werr
	}
	return io.ErrClosedPipe
}

// writeCloseError is considered internal to the pipe type.
func (p *pipe) writeCloseError() error {
	werr := p.werr.Load()
	if rerr := p.rerr.Load(); werr == nil && rerr != nil {
		return rerr
	}
	return io.ErrClosedPipe
}

// A PipeReader replaces an *io.PipeReader: the read half of a pipe.
type PipeReader struct{ pipe }

// Read implements the standard Read interface: it reads data from the
// pipe, blocking until a writer arrives or the write end is closed.
func (r *PipeReader) Read(data []byte) (n int, err error) {
	return r.pipe.read(data)
}

// Close closes the reader; subsequent writes to the write half of the
// pipe will return the error io.ErrClosedPipe.
func (r *PipeReader) Close() error {
	return r.CloseWithError(nil)
}

// CloseWithError closes the reader; subsequent writes to the write half
// of the pipe will return the error err. It never overwrites the previous
// error if it exists and always returns nil.
func (r *PipeReader) CloseWithError(err error) error {
	return r.pipe.closeRead(err)
}

// A PipeWriter replaces an *io.PipeWriter: the write half of a pipe.
type PipeWriter struct{ r PipeReader }

// Write implements the standard Write interface: it writes data to the
// pipe, blocking until one or more readers have consumed all the data or
// the read end is closed.
func (w *PipeWriter) Write(data []byte) (n int, err error) {
	return w.r.pipe.write(data)
}

// Close closes the writer; subsequent reads from the read half of the
// pipe will return no bytes and io.EOF.
func (w *PipeWriter) Close() error {
	return w.CloseWithError(nil)
}

// CloseWithError closes the writer; subsequent reads from the read half
// of the pipe will return no bytes and the error err, or io.EOF if err is
// nil. It never overwrites the previous error if it exists and always
// returns nil.
func (w *PipeWriter) CloseWithError(err error) error {
	return w.r.pipe.closeWrite(err)
}

// Pipe replaces io.Pipe.
func Pipe() (*PipeReader, *PipeWriter) {
	pw := &PipeWriter{r: PipeReader{pipe: pipe{
		wrCh: MakeChan[chan []byte](0),
		rdCh: MakeChan[chan int](0),
		done: MakeChan[chan struct{}](0),
	}}}
	return &pw.r, pw
}
