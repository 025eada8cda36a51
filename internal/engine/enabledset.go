package engine

import "unsafe"

// Dormant goroutines. A run with thousands of goroutines blocked on their
// own channels or locks (GoKer's kernels as shipped: a thousand copies of a
// scenario) would otherwise re-examine every one of them at every step.
// A parked goroutine whose operation is not enabled, and depends only on
// objects whose whole state heddle models (channels made by the run,
// mutexes, RWMutexes, WaitGroups, Onces), becomes dormant: enabled skips
// it until a step touches one of its objects. A step touches the objects
// of the operation that ran, those of the operations its goroutines
// announced next (a new waiter on an unbuffered channel can enable a
// partner), and, for any step whose effects reach further (a timer, a
// Cond, a context, Timer.Stop), every object: all goroutines wake.
// Dormancy only skips work; the choices are the same as without it.

// stepInfo is what enabled needs to know of the step that ran since its
// last call.
type stepInfo struct {
	g       *G // the goroutine that ran, nil if none
	op      Op // the objects of its operation (Obj and Cases)
	partner *G // its rendezvous partner, if any
	all     bool
}

// noteStep records the step about to run: goroutine g performing op.
//
//go:norace
func (e *Exec) noteStep(g *G, op *Op) {
	if !e.anyDormant {
		return // nothing to wake: runs with few goroutines pay no more
	}
	e.step = stepInfo{g: g, all: !targetedKind(op.Kind)}
	e.step.op.Obj, e.step.op.Cases = op.Obj, op.Cases
}

// noteWakeAll records a step whose effects are not limited to the objects
// of one operation.
//
//go:norace
func (e *Exec) noteWakeAll() {
	if e.anyDormant {
		e.step = stepInfo{all: true}
	}
}

// targetedKind reports whether a step of kind k changes the state of the
// objects of its operation only.
//
//go:norace
func targetedKind(k OpKind) bool {
	switch k {
	case OpStart, OpYield, OpSend, OpRecv, OpSelect, OpClose, OpChanLen,
		OpLock, OpTryLock, OpUnlock, OpRLock, OpRUnlock, OpWLock, OpWLockWait, OpWUnlock, OpRWTryLock, OpRWTryRLock,
		OpWGAdd, OpWGWait, OpOnce, OpOnceDone, OpAtomicLoad, OpAtomicWrite, OpMapRead, OpMapWrite:
		return true
	}
	return false
}

// wakeAfterStep wakes the dormant goroutines the last step may have
// enabled.
//
//go:norace
func (e *Exec) wakeAfterStep() {
	s := &e.step
	if !e.anyDormant {
		return
	}
	if s.all {
		for _, g := range e.gs {
			g.dormant = false
		}
	} else if s.g != nil {
		e.touchOp(&s.op)
		e.touchOp(&s.g.op)
		if s.partner != nil {
			e.touchOp(&s.partner.op)
		}
	}
	*s = stepInfo{}
}

//go:norace
func (e *Exec) touchOp(op *Op) {
	if op.Obj != nil {
		e.touch(op.Obj)
	}
	for _, c := range op.Cases {
		if p := c.Chan(); p != nil {
			e.touch(p)
		}
	}
}

//go:norace
func (e *Exec) touch(p unsafe.Pointer) {
	o := e.objs.get(p)
	if o == nil || len(o.dormant) == 0 {
		return
	}
	for i, g := range o.dormant {
		g.dormant = false
		g.regSeq = 0
		o.dormant[i] = nil
	}
	o.dormant = o.dormant[:0]
}

// sleep makes g dormant, if its pending operation (not enabled now) can be
// enabled only by a step on one of its objects. enabled calls it only in
// runs with at least Config.DormantFrom goroutines.
//
//go:norace
func (e *Exec) sleep(g *G) {
	op := &g.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect:
		if op.Dflt || g.committed >= 0 {
			return
		}
		for _, c := range op.Cases {
			if p := c.Chan(); p != nil && !e.chanOf(p).owned {
				return // a foreign channel is probed at every pass
			}
		}
	case OpLock, OpRLock, OpWLock, OpWLockWait, OpWGWait, OpOnce, OpBlock:
	default:
		return
	}
	g.dormant = true
	e.anyDormant = true
	if g.regSeq == g.opSeq {
		return // still in its objects' lists
	}
	g.regSeq = g.opSeq
	if op.Obj != nil {
		e.register(op.Obj, g)
	}
	for _, c := range op.Cases {
		if p := c.Chan(); p != nil {
			e.register(p, g)
		}
	}
}

//go:norace
func (e *Exec) register(p unsafe.Pointer, g *G) {
	o := e.objs.obtain(p)
	if n := len(o.dormant); n > 0 && o.dormant[n-1] == g {
		return
	}
	o.dormant = append(o.dormant, g)
}
