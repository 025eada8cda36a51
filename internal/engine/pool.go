package engine

import (
	"context"
	"runtime/pprof"
)

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
	// traceLen is the length of the last traced run's trace: a traced
	// run with no array to reuse starts with that capacity (lendTrace).
	traceLen int
}

// lendTrace gives res, the result of a run about to start with cfg, the
// array its trace is appended to: the pool's, or one of the length of
// the last traced run's trace. The determinism check replays run 2 while
// run 2's trace is still read, and grew its own step by step: growing
// the trace of pond's TestPoolMetrics (tens of thousands of steps, and
// pointers the collector scans) was a sixth of the test's processor time.
//
//go:norace
func (p *Pool) lendTrace(res *Result, cfg Config) {
	switch {
	case cfg.Trace && !cfg.Record && p.trace != nil && cap(p.trace) >= p.traceLen:
		res.Trace, p.trace = p.trace, nil
	case (cfg.Trace || cfg.Record) && p.traceLen > 0:
		res.Trace = make([]Step, 0, p.traceLen+p.traceLen/8)
	}
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
	// realID is the id of the real goroutine the worker is, which a
	// dump of every goroutine's stack (runtime.Stack) shows (stacks.go).
	realID int64
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
	g.goid = nextGoid.Add(1)
	g.fnPC = funcPC(g.fn)
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
	w.realID = realGoid()
	w.wake.own()
	for g != nil {
		g.exec.goroutine(g)
		if !g.pooled {
			return
		}
		// The goroutine has ended for the program: it drops the profiler
		// labels it had from the goroutine that started it (pprof.Do) or
		// set itself, which a goroutine profile would show after its end
		// (go-memdb's TestWatchCtxLeak). A reused goroutine does not
		// inherit its new starter's labels: the runtime gives no way to
		// read them.
		pprof.SetGoroutineLabels(context.Background())
		g = <-w.assign
	}
}
