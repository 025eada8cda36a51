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
	// trace and choices are the backing arrays of a finished run's
	// trace and choices, handed back by Recycle: the next run appends to
	// them instead of growing new ones (a run of 100,000 steps records
	// 17 MB of trace).
	trace   []Step
	choices []Choice
}

// Recycle gives the pool the trace and choices of res, a run made with
// this pool whose result nobody reads any more, for a later run to reuse.
//
//go:norace
func (p *Pool) Recycle(res *Result) {
	if p == nil || res == nil {
		return
	}
	if cap(res.Trace) > cap(p.trace) {
		// Entries past the length were cleared when the array was last
		// recycled, or never written.
		clear(res.Trace) // drop the pointers to the run's goroutines and objects
		p.trace = res.Trace[:0]
		res.Trace = nil
	}
	if cap(res.Choices) > cap(p.choices) {
		clear(res.Choices)
		p.choices = res.Choices[:0]
		res.Choices = nil
	}
}

type worker struct {
	wake   *handoff
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
	w := &worker{wake: newHandoff(), assign: make(chan *G, 1)}
	g.w = w
	g.wake = w.wake
	go w.loop(g)
}

//go:norace
func (w *worker) loop(g *G) {
	w.wake.own()
	for g != nil {
		g.exec.goroutine(g)
		if !g.pooled {
			return
		}
		g = <-w.assign
	}
}
