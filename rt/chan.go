package rt

import (
	"unsafe"

	"heddle.dev/internal/engine"
)

// MakeChan replaces make(chan T, size) and make(C, size) for a named channel
// type C: the rewriter emits MakeChan[C](size), or MakeChan[chan T](size).
func MakeChan[C ~chan T, T any](size int) C {
	ch := make(C, size)
	if x := engine.Current(); x != nil {
		x.RegisterChan(chanPtr(ch))
	}
	return ch
}

// Send replaces the statement ch <- v.
func Send[T any](ch chan<- T, v T) {
	if x := engine.Current(); x != nil {
		s := &sendOne[T]{c: SendC[T]{ch: ch, v: v}}
		s.cs[0] = &s.c
		x.Select(s.cs[:], false)
		return
	}
	ch <- v
}

// sendOne and recvOne are a channel operation's case and the list of
// cases the engine takes, in one allocation, not two: the engine keeps
// the list as the operation's (a traced run's steps refer to it), so
// neither can be reused from operation to operation.
type sendOne[T any] struct {
	c  SendC[T]
	cs [1]engine.ChanCase
}

type recvOne[T any] struct {
	c  RecvC[T]
	cs [1]engine.ChanCase
}

// Recv replaces the expression <-ch.
func Recv[T any](ch <-chan T) T {
	if x := engine.Current(); x != nil {
		r := &recvOne[T]{c: RecvC[T]{ch: ch}}
		r.cs[0] = &r.c
		x.Select(r.cs[:], false)
		return r.c.V
	}
	return <-ch
}

// Recv2 replaces v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) {
	if x := engine.Current(); x != nil {
		r := &recvOne[T]{c: RecvC[T]{ch: ch}}
		r.cs[0] = &r.c
		x.Select(r.cs[:], false)
		return r.c.V, r.c.OK
	}
	v, ok := <-ch
	return v, ok
}

// Close replaces close(ch).
func Close[T any](ch chan<- T) {
	if x := engine.Current(); x != nil {
		x.Close(chanPtr(ch), func() { close(ch) })
		return
	}
	close(ch)
}

// Len replaces len(ch) for a channel of any direction.
func Len[T any](ch <-chan T) int {
	if x := engine.Current(); x != nil {
		p := chanPtr(ch)
		x.ChanLen(p)
		if x.TimerChan(p) {
			return 0
		}
	}
	return len(ch)
}

// LenS is Len for a send-only channel.
func LenS[T any](ch chan<- T) int {
	if x := engine.Current(); x != nil {
		p := chanPtr(ch)
		x.ChanLen(p)
		if x.TimerChan(p) {
			return 0
		}
	}
	return len(ch)
}

// Cap replaces cap(ch). Capacity never changes, so it is not a scheduling
// point. The channel of a Timer or Ticker made by the run has a buffer of
// one, but reports a capacity of 0 under synchronous timer channels (Go
// 1.23 on), as Go's own timer channels do (engine.Exec.TimerChan).
func Cap[T any](ch <-chan T) int {
	if x := engine.Current(); x != nil && x.TimerChan(chanPtr(ch)) {
		return 0
	}
	return cap(ch)
}

// CapS is Cap for a send-only channel.
func CapS[T any](ch chan<- T) int {
	if x := engine.Current(); x != nil && x.TimerChan(chanPtr(ch)) {
		return 0
	}
	return cap(ch)
}

// Zero returns the zero value of ch's element type. The rewriter uses it to
// declare the variables of a rewritten `for v := range ch` loop without
// spelling out their type.
func Zero[T any](ch <-chan T) (z T) { return z }

// Case is one case of a rewritten select statement: a *RecvC or a *SendC.
type Case = engine.ChanCase

// RecvC is a receive case of a select. After Select returns its index, V and
// OK hold what `v, ok := <-ch` would have produced.
type RecvC[T any] struct {
	ch <-chan T
	V  T
	OK bool
	// got is set when a probe of a foreign channel already took the value.
	got bool
}

// RecvCase makes the receive case `case v, ok := <-ch`.
func RecvCase[T any](ch <-chan T) *RecvC[T] { return &RecvC[T]{ch: ch} }

// SendC is a send case of a select.
type SendC[T any] struct {
	ch   chan<- T
	v    T
	sent bool
}

// SendCase makes the send case `case ch <- v`. Like the select statement it
// replaces, it evaluates v on entry.
func SendCase[T any](ch chan<- T, v T) *SendC[T] { return &SendC[T]{ch: ch, v: v} }

// Select replaces a select statement. It blocks until one of the cases can
// proceed, performs it, and returns its index; with hasDefault it returns -1
// instead of blocking. A select with no cases and no default blocks forever.
func Select(hasDefault bool, cases ...Case) int {
	if x := engine.Current(); x != nil {
		return x.Select(cases, hasDefault)
	}
	return nativeSelect(hasDefault, cases)
}

func chanPtr[C any](ch C) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

// The engine.ChanCase methods.

//go:norace
func (c *RecvC[T]) Chan() unsafe.Pointer { return chanPtr(c.ch) }

//go:norace
func (c *RecvC[T]) IsSend() bool { return false }

//go:norace
func (c *RecvC[T]) Len() int { return len(c.ch) }

//go:norace
func (c *RecvC[T]) Cap() int { return cap(c.ch) }

// Do receives for real. The engine calls it only when the receive cannot
// block: a value is buffered, the channel is closed, or a partner is about to
// send.
func (c *RecvC[T]) Do() {
	if c.got && c.OK {
		return
	}
	// Not probed, or probed closed: receiving again from a closed channel
	// returns at once, and makes the receiver itself synchronize with the
	// close for the race detector.
	c.V, c.OK = <-c.ch
}

// Try receives without blocking and reports whether it did. The engine
// calls it from the goroutine that is scheduling, so it is not instrumented.
//
//go:norace
func (c *RecvC[T]) Try() bool {
	if c.got {
		return true
	}
	select {
	case c.V, c.OK = <-c.ch:
		c.got = true
		return true
	default:
		return false
	}
}

// ProbedClosed reports whether Try received the zero value of a closed
// channel.
//
//go:norace
func (c *RecvC[T]) ProbedClosed() bool { return c.got && !c.OK }

//go:norace
func (c *SendC[T]) Chan() unsafe.Pointer { return chanPtr(c.ch) }

//go:norace
func (c *SendC[T]) IsSend() bool { return true }

//go:norace
func (c *SendC[T]) Len() int { return len(c.ch) }

//go:norace
func (c *SendC[T]) Cap() int { return cap(c.ch) }

// Do sends for real; see RecvC.Do.
func (c *SendC[T]) Do() {
	if c.sent {
		return
	}
	c.ch <- c.v
}

// Try sends without blocking and reports whether it did; see RecvC.Try.
//
//go:norace
func (c *SendC[T]) Try() bool {
	if c.sent {
		return true
	}
	select {
	case c.ch <- c.v:
		c.sent = true
		return true
	default:
		return false
	}
}
