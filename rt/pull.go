//go:build go1.23

package rt

import (
	"iter"

	"heddle.dev/internal/engine"
)

// Pull replaces iter.Pull. The iterator runs, as with iter.Pull, on a
// coroutine that runs only while the goroutine calling next or stop waits
// in that call; a switch is no scheduling point, in Go as here. What the
// iterator does is done on behalf of that goroutine: during an
// exploration, the coroutine takes the identity of the controlled
// goroutine that resumed it (engine.Exec.Adopt), so that its channel
// operations, locks and go statements are that goroutine's scheduling
// points, explored like the rest of its code, and the caller takes its
// identity back when next or stop returns (or panics, or Goexit, which
// iter.Pull propagates from the iterator to its caller). Outside an
// exploration, or called by a goroutine heddle does not control, it is
// iter.Pull.
func Pull[V any](seq iter.Seq[V]) (next func() (V, bool), stop func()) {
	p := new(puller)
	n, s := iter.Pull(func(yield func(V) bool) {
		p.resume()
		seq(func(v V) bool {
			more := yield(v)
			p.resume()
			return more
		})
	})
	next = func() (V, bool) {
		x, g := p.enter()
		defer p.leave(x, g)
		return n()
	}
	stop = func() {
		x, g := p.enter()
		defer p.leave(x, g)
		s()
	}
	return next, stop
}

// Pull2 replaces iter.Pull2; see Pull.
func Pull2[K, V any](seq iter.Seq2[K, V]) (next func() (K, V, bool), stop func()) {
	p := new(puller)
	n, s := iter.Pull2(func(yield func(K, V) bool) {
		p.resume()
		seq(func(k K, v V) bool {
			more := yield(k, v)
			p.resume()
			return more
		})
	})
	next = func() (K, V, bool) {
		x, g := p.enter()
		defer p.leave(x, g)
		return n()
	}
	stop = func() {
		x, g := p.enter()
		defer p.leave(x, g)
		s()
	}
	return next, stop
}

// puller is the controlled goroutine, if any, on whose behalf a Pull
// iterator's coroutine runs: the one in the call of next or stop that
// resumed it.
type puller struct {
	x *engine.Exec
	g *engine.G
}

// enter is called by the caller of next or stop before it resumes the
// coroutine; it returns the caller's run and goroutine, for leave.
func (p *puller) enter() (*engine.Exec, *engine.G) {
	p.x, p.g = nil, nil
	if x := engine.Current(); x != nil {
		p.x, p.g = x, x.Cur()
	}
	return p.x, p.g
}

// resume is called by the coroutine each time it is resumed: it runs as
// the caller's goroutine.
func (p *puller) resume() {
	if p.x != nil {
		p.x.Adopt(p.g)
	}
}

// leave is called by the caller when next or stop returns: it runs as its
// goroutine again.
func (p *puller) leave(x *engine.Exec, g *engine.G) {
	if x != nil {
		x.Adopt(g)
	}
}
