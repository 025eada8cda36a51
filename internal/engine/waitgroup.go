package engine

import "unsafe"

// wgState is the shadow state of a sync.WaitGroup.
type wgState struct {
	count int // the counter
}

//go:norace
func (e *Exec) wg(p unsafe.Pointer) *wgState { return &e.objs.obtain(p).wg }

// WaitGroupAdd models WaitGroup.Add and Done.
//
//go:norace
func (e *Exec) WaitGroupAdd(p unsafe.Pointer, delta int) {
	e.yield(Op{Kind: OpWGAdd, Obj: p})
	w := e.wg(p)
	if delta < 0 {
		raceReleaseMerge(p)
	}
	w.count += delta
	if w.count < 0 {
		w.count = 0
		panic(plainError("sync: negative WaitGroup counter"))
	}
}

// WaitGroupWait models WaitGroup.Wait: enabled when the counter is zero.
//
//go:norace
func (e *Exec) WaitGroupWait(p unsafe.Pointer) {
	e.yield(Op{Kind: OpWGWait, Obj: p})
	raceAcquire(p)
}

// plainError is a panic value that prints like the runtime's own.
type plainError string

//go:norace
func (p plainError) Error() string { return string(p) }
