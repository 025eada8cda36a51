package engine

// Pool keeps the real goroutines of controlled goroutines that returned, so
// that later runs reuse them instead of starting new ones: a reused
// goroutine keeps its grown stack, which makes short runs several times
// cheaper. A goroutine that ended by Goexit or panic, or was unwound, is
// not reused.
//
// A Pool belongs to one exploration; only the goroutine that holds heddle's
// processor touches it. Close ends the idle goroutines.
type Pool struct {
	free []*worker
	// trace is the backing array of a finished run's trace, handed back
	// by RecycleTrace: the next traced run appends to it instead of
	// growing a new one (a run of 100,000 steps records 17 MB).
	trace []Step
}

// RecycleTrace gives the pool the trace of res, a run made with this pool
// whose result, trace included, nobody reads any more, for a later run to
// reuse. Recorded runs keep theirs (their steps share enabled sets and
// clocks with reports).
//
//go:norace
func (p *Pool) RecycleTrace(res *Result) {
	if p == nil || res == nil || cap(res.Trace) <= cap(p.trace) {
		return
	}
	t := res.Trace[:cap(res.Trace)]
	clear(t) // drop the pointers to the run's goroutines and objects
	p.trace = t[:0]
	res.Trace = nil
}

type worker struct {
	wake   chan struct{}
	assign chan *G
}

// Close ends the pool's idle goroutines.
//
//go:norace
func (p *Pool) Close() {
	if p == nil {
		return
	}
	for _, w := range p.free {
		w.assign <- nil
	}
	p.free = nil
}

// start runs g on a pooled goroutine, or a new one.
//
//go:norace
func (e *Exec) start(g *G) {
	if p := e.cfg.Pool; p != nil && len(p.free) > 0 && !RaceEnabled {
		w := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		g.w = w
		g.wake = w.wake
		w.assign <- g
		return
	}
	w := &worker{wake: make(chan struct{}, 1), assign: make(chan *G, 1)}
	g.w = w
	g.wake = w.wake
	go w.loop(g)
}

//go:norace
func (w *worker) loop(g *G) {
	for g != nil {
		g.exec.goroutine(g)
		if !g.pooled {
			return
		}
		g = <-w.assign
	}
}
