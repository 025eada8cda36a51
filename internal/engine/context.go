package engine

import (
	"context"
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// ctx is heddle's model of a cancellable context. Its Done channel is an
// owned channel, closed by a visible step, so goroutines that wait on it are
// scheduled like any other channel receive, and its deadline is a timer on
// the virtual clock.
type ctx struct {
	e        *Exec
	parent   context.Context
	done     chan struct{}
	err      error // Canceled or DeadlineExceeded once cancelled
	cause    error
	deadline time.Time
	// children are the contexts derived from this one and not cancelled
	// yet, in creation order; a child taken out leaves a nil (at is its
	// place), and gone counts them until the list is compacted.
	children []*ctx
	at, gone int
	after    []*afterFunc
	timer    *Timer
}

type afterFunc struct {
	c       *ctx
	f       func()
	stopped bool
	started bool
	// batch is the start of several AfterFuncs by one cancel, while a's
	// turn in it has not come (startBatch).
	batch *startBatch
}

// startBatch is the start of the AfterFuncs of one cancel. Go's cancel
// closes the context's Done channel, then starts them one by one (they
// are children of the context, in a map, cancelled under the parent's
// lock): a goroutine that saw Done closed, or the first f started, may
// stop one before the cancel reaches it. So each is
// claimed in a step of its own, first of its goroutine (claimAfter), in
// any order; a stop that comes first wins, and waits, as Go's does for
// the parent's lock, until the cancel is done with them all; a canceller
// that is a controlled goroutine does not return before that either.
type startBatch struct {
	left int    // AfterFuncs neither claimed nor stopped yet
	done *Event // fired when left reaches 0
}

// afterBatch collects the AfterFuncs one cancel starts (cancelIn).
type afterBatch struct {
	list []*afterFunc
}

//go:norace
func (c *ctx) Deadline() (time.Time, bool) {
	if c.deadline.IsZero() {
		return c.parent.Deadline()
	}
	return c.deadline, true
}

//go:norace
func (c *ctx) Done() <-chan struct{} { return c.done }

// Err is a visible operation in a controlled goroutine: a read of the
// context's cancellation state, so that a cancel (of c or an ancestor, or
// its deadline) can come between it and the code before it.
//
//go:norace
func (c *ctx) Err() error {
	c.e.readCtx(c)
	return c.err
}

// readCtx is the scheduling point of a read of c's cancellation state
// (Err, context.Cause). Repeated reads with no cancel in between are polls
// (Access counts them as spins), so `for ctx.Err() == nil {}` lets virtual
// time move on until a deadline fires.
//
//go:norace
func (e *Exec) readCtx(c *ctx) {
	if e.aborting || Current() != e || e.cur == nil {
		return
	}
	e.Access(unsafe.Pointer(c), OpCtxErr)
}

//go:norace
func (c *ctx) Value(key any) any { return c.parent.Value(key) }

// String is Go's: the parent's name and ".WithCancel" (WithCancel,
// WithCancelCause, and WithDeadline under an earlier deadline of the
// parent's), or ".WithDeadline(deadline [time left])" on the virtual clock
// (WithDeadline, WithTimeout and their Cause variants). Contexts derived
// from it by Go's code (WithValue, WithoutCancel) print it in theirs.
//
//go:norace
func (c *ctx) String() string {
	name := contextName(c.parent)
	if c.deadline.IsZero() {
		return name + ".WithCancel"
	}
	var b *Bubble
	if c.timer != nil {
		b = c.timer.bubble
	} else if c.e.cur != nil {
		b = c.e.cur.bubble
	}
	return name + ".WithDeadline(" + c.deadline.String() + " [" + c.deadline.Sub(c.e.clockAt(b)).String() + "])"
}

// contextName is package context's: a context's String, or its type.
//
//go:norace
func contextName(c context.Context) string {
	if s, ok := c.(interface{ String() string }); ok {
		return s.String()
	}
	return reflect.TypeOf(c).String()
}

// AfterFunc makes ctx an afterFuncer, so that contexts derived from it by
// code that is not rewritten are cancelled with it.
//
//go:norace
func (c *ctx) AfterFunc(f func()) func() bool { return c.e.afterFunc(c, f) }

// WithCancel models context.WithCancel and, with a deadline, WithDeadline.
// It returns the context and its cancel function, which takes the error to
// record as the cause (context.Canceled for a plain cancel).
//
//go:norace
func (e *Exec) WithCancel(parent context.Context, deadline time.Time, deadlineCause error) (context.Context, func(cause error)) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	c := &ctx{e: e, parent: parent, done: make(chan struct{})}
	e.registerModelChan(chanAddr(c.done))
	if pd, ok := parent.Deadline(); ok && !deadline.IsZero() && pd.Before(deadline) {
		deadline = time.Time{} // the parent's earlier deadline applies
	}
	c.deadline = deadline
	if p, ok := parent.(*ctx); ok && p.e == e {
		if p.err != nil {
			e.cancel(c, p.err, p.cause)
		} else {
			c.at = len(p.children)
			p.children = append(p.children, c)
		}
	} else if d := parent.Done(); d != nil {
		// A context heddle does not model, or one made by an earlier run
		// (kept in a package variable): its cancellation comes from
		// outside this run.
		select {
		case <-d:
			e.cancel(c, parent.Err(), context.Cause(parent))
		default:
			e.watch(d, c.done, func() { e.cancel(c, parent.Err(), context.Cause(parent)) })
		}
	}
	if !deadline.IsZero() && c.err == nil {
		d := deadline.Sub(e.TimerNow())
		if d <= 0 {
			e.cancel(c, context.DeadlineExceeded, orErr(deadlineCause, context.DeadlineExceeded))
		} else {
			c.timer = e.newTimer(d)
			cause := orErr(deadlineCause, context.DeadlineExceeded)
			c.timer.fireFn = func() { e.goDeadline(c, cause) }
		}
	}
	return c, func(cause error) {
		if e.aborting {
			// The run is being unwound, or is over: the context is kept
			// by the program (a package variable, a deferred call of a
			// goroutine left) and cancelled from outside the run.
			e.cancelAfterRun(c, cause)
			return
		}
		if Current() != e {
			// A goroutine heddle does not control (started in init, or
			// by code that is not rewritten) cancels: the cancellation
			// is applied at the next scheduling pass.
			e.cancelNative(c, cause)
			return
		}
		e.yield(Op{Kind: OpCancel, Obj: unsafe.Pointer(c)})
		e.cancelSplit(c, context.Canceled, cause)
	}
}

// cancelSplit is cancel for a cancel function called by a controlled
// goroutine. Go's cancelCtx.cancel closes c's Done channel and then
// cancels c's children, one by one, and other goroutines run meanwhile: a
// goroutine woken by c's Done may find a child's Err still nil. The
// children are cancelled in a step of their own after c's (one step for
// all of them, not one each: a pool's context may have thousands).
//
//go:norace
func (e *Exec) cancelSplit(c *ctx, err, cause error) {
	if c.err != nil {
		return
	}
	kids := c.children
	c.children, c.gone = nil, 0
	sb := e.cancel(c, err, cause)
	if !liveKids(kids) {
		e.waitStarted(sb)
		return
	}
	e.yield(Op{Kind: OpCancel, Obj: unsafe.Pointer(c)})
	var b afterBatch
	for _, k := range kids {
		if k != nil {
			e.cancelIn(k, err, cause, &b)
		}
	}
	kb := e.startAfter(b.list)
	e.waitStarted(sb)
	e.waitStarted(kb)
}

// goDeadline starts the goroutine that cancels c when its deadline's
// timer fires. Go's WithDeadline arms time.AfterFunc(d, func() {
// c.cancel(...) }): the cancel runs in a goroutine of its own, started
// when the timer fires, and a goroutine woken at about the same instant
// (a sleeper that then cancels c itself, or stops one of its AfterFuncs)
// may come first. Cancelled inline at the firing, a deadline always won,
// and a race natively lost more often than not was never explored. As
// time.AfterFunc's (fireEffect), the goroutine is a child of the timer's
// creator, in its bubble if it has one; its first step is the cancel, a
// cancel function's step (OpCancel, at the call that set the deadline),
// with no start step before it: a start does nothing the program sees.
// A cancel that comes before it leaves it nothing to do. The children
// are cancelled in a step of their own, as cancelSplit does for a cancel
// function.
//
//go:norace
func (e *Exec) goDeadline(c *ctx, cause error) {
	if c.err != nil || e.aborting {
		return
	}
	t := c.timer
	cur := e.cur
	e.cur = t.creator
	e.Go(func() { e.cancelSplit(c, context.DeadlineExceeded, cause) })
	e.cur = cur
	g := e.gs[len(e.gs)-1]
	g.op = Op{Kind: OpCancel, Obj: unsafe.Pointer(c), PC: t.PC}
	g.GoPC = t.PC
}

// cancelKidsLater cancels kids, the children of a context just cancelled
// by a step that was not a controlled goroutine's cancel (a goroutine
// heddle does not control), in a step of their own: a timer due
// at once, whose firing is a choice of its own (never forced as overdue:
// Timer.cascade), as cancelSplit's second step. creator and b are the
// timer's creator and bubble.
//
//go:norace
func (e *Exec) cancelKidsLater(creator *G, b *Bubble, kids []*ctx, err, cause error) {
	creator.nTmr++
	e.nTimers++
	t := &Timer{n: creator.nTmr, when: e.nowIn(b), seq: e.nTimers, active: true, creator: creator, bubble: b, cascade: true}
	if e.cfg.Record {
		t.PC = userPC()
	}
	t.fireFn = func() {
		for _, k := range kids {
			if k != nil {
				e.cancel(k, err, cause)
			}
		}
	}
	e.pushTimer(t)
	raceRelease(unsafe.Pointer(t))
}

// liveKids reports whether one of kids is not cancelled yet.
//
//go:norace
func liveKids(kids []*ctx) bool {
	for _, k := range kids {
		if k != nil && k.err == nil {
			return true
		}
	}
	return false
}

// afterRun serializes the cancellations of contexts whose run is over:
// they may come from any goroutine, controlled by a later run or by none.
var afterRun sync.Mutex

// cancelAfterRun cancels c, a context of run e, once e is being unwound or
// is over: as Go would, it closes c's Done channel (and those of its
// children) and runs its AfterFuncs, natively. A later run sees the
// channel as a foreign one, closed. Before, such a cancel did nothing: a
// pool made by one run and released by the next (ants' default pool, made
// in init and rebooted by a test) waited forever for its context to end.
//
//go:norace
func (e *Exec) cancelAfterRun(c *ctx, cause error) {
	afterRun.Lock()
	defer afterRun.Unlock()
	e.cancel(c, context.Canceled, cause)
}

// nativeCancel is a cancel requested by a goroutine heddle does not
// control.
type nativeCancel struct {
	c     *ctx
	cause error
}

// cancelNative records the cancellation of c by a goroutine heddle does not
// control, which may not touch the run's state: the goroutine that holds
// the processor applies it at its next scheduling pass (applyNativeCancels),
// as an event from outside, like a timer firing. A cancel after the run
// ended changes nothing: its goroutines are gone.
//
//go:norace
func (e *Exec) cancelNative(c *ctx, cause error) {
	if active.Load() != e {
		return
	}
	e.nativeMu.Lock()
	e.nativeCancels = append(e.nativeCancels, nativeCancel{c, cause})
	e.nNativeCancels.Add(1)
	e.nativeMu.Unlock()
}

// applyNativeCancels applies the cancellations requested by goroutines
// heddle does not control (cancelNative).
//
//go:norace
func (e *Exec) applyNativeCancels() {
	raceDisable() // the lock is no synchronization of the program's
	e.nativeMu.Lock()
	cs := e.nativeCancels
	e.nativeCancels = nil
	e.appliedCancels += int32(len(cs))
	e.nativeMu.Unlock()
	raceEnable()
	for _, nc := range cs {
		// As cancelSplit: c's Done is closed first, its children are
		// cancelled in a later step (natively the canceller's next
		// statements), and goroutines woken by the Done may run between.
		c := nc.c
		if c.err != nil {
			continue
		}
		kids := c.children
		c.children, c.gone = nil, 0
		e.cancel(c, context.Canceled, nc.cause)
		if liveKids(kids) {
			// The timer's creator orders its firing after the
			// creator's steps (Exec.clock): the run's first goroutine,
			// which waits for the test meanwhile, orders it after
			// none of the program's. With the goroutine that held the
			// processor, a firing after its later steps was ordered
			// after them, and odpor never tried it before them.
			e.cancelKidsLater(e.gs[0], nil, kids, context.Canceled, nc.cause)
		}
	}
	e.rebuildAll = true
}

// nativeCancelSteps is how many steps a cancel by a goroutine heddle does
// not control waits, at most, for applyNativeNow's events.
const nativeCancelSteps = 64

// applyNativeNow reports whether the pass, whose enabled set has n
// choices, applies the pending cancels of goroutines heddle does not
// control. Such a goroutine cancels at an instant of real time, and
// applied at the next pass the cancel came before or after the steps
// taken meanwhile depending on how fast that goroutine ran: a run and its
// replay saw different choices. So a cancel is applied at a pass that
// sees that goroutine's progress: a receive from a foreign channel (the
// goroutine started in init that cancels, then answers the test), or when
// nothing else can run (after waitNativeCancel), or, for a goroutine that
// never shows progress while others can run (a spinner polling ctx.Err),
// nativeCancelSteps steps after the cancel was first seen.
//
//go:norace
func (e *Exec) applyNativeNow(n int) bool {
	if e.cancelSince == 0 {
		e.cancelSince = e.steps + 1
	}
	switch {
	case e.foreignRecv:
	case n == 0:
		if e.waitNativeCancel() {
			return false
		}
	case e.steps+1-e.cancelSince < nativeCancelSteps:
		return false
	}
	e.cancelSince = 0
	return true
}

// waitNativeCancel is called when nothing can run while a cancel by a
// goroutine heddle does not control is pending. If a goroutine waits on a
// foreign channel, or is away in code heddle does not control, the
// canceller may be about to end that wait: a goroutine started in init
// that cancels and then sends on a channel the test receives from. The
// cancel is not applied yet: it sleeps a little, for up to ForeignWait in
// all, and reports true, so that the cancel is applied at the pass that
// sees the send too. Applied at once, the cancel made the goroutines it
// woke runnable at a pass before or after the one that saw the send,
// depending on real time: the run's choices were not the same from one
// run to the next, and the test was "nondeterministic by itself".
//
//go:norace
func (e *Exec) waitNativeCancel() bool {
	if e.cancelWaited >= ForeignWait {
		return false
	}
	if away, _ := e.away(); !away && !e.foreignWaiter() {
		return false
	}
	return e.sleepProgress(&e.cancelWaited)
}

// foreignWaiter reports whether a goroutine is parked on a channel heddle
// did not see being made (a foreign one).
//
//go:norace
func (e *Exec) foreignWaiter() bool {
	for _, g := range e.gs {
		if g.state != gParked {
			continue
		}
		for _, c := range g.op.Cases {
			if p := c.Chan(); p != nil && !e.chanOf(p).owned {
				return true
			}
		}
	}
	return false
}

//go:norace
func orErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// cancel cancels c and its children, inside the current step.
//
//go:norace
func (e *Exec) cancel(c *ctx, err, cause error) *startBatch {
	var b afterBatch
	e.cancelIn(c, err, cause, &b)
	return e.startAfter(b.list)
}

// startAfter starts the AfterFuncs of a cancel one by one (startBatch),
// whose batch it returns. One alone too: Go's cancel closes the Done
// channel before it reaches the AfterFunc, and a goroutine that saw Done
// closed can stop it first (TestAfterFuncStopAfterDone).
//
//go:norace
func (e *Exec) startAfter(list []*afterFunc) *startBatch {
	if len(list) == 0 {
		return nil
	}
	sb := &startBatch{left: len(list), done: e.NewEvent()}
	for _, a := range list {
		a.started = false
		a.batch = sb
		a := a
		e.Go(func() { e.claimAfter(a) })
	}
	return sb
}

// claimAfter is the goroutine of an AfterFunc of a startBatch: its first
// step is the cancel reaching a, and then f runs, unless a stop came
// first. The step writes a's object, as a stop does (Go's afterFuncCtx's
// once, which both take): not the world, as a cancel's step does, which
// would order it against every step of the program, nor the context's
// object, which its Err reads (natively an atomic load of what the
// cancel set before it reached a).
//
//go:norace
func (e *Exec) claimAfter(a *afterFunc) {
	e.Access(unsafe.Pointer(a), OpAtomicWrite)
	sb := a.batch
	if a.stopped || sb == nil {
		return
	}
	a.batch = nil
	a.started = true
	sb.left--
	if sb.left == 0 {
		e.Fire(sb.done)
	}
	a.f()
}

// waitStarted waits until the cancel is done with the AfterFuncs of sb.
//
//go:norace
func (e *Exec) waitStarted(sb *startBatch) {
	if sb != nil && sb.left > 0 {
		e.Wait(sb.done)
	}
}

// cancelIn is cancel; b collects the AfterFuncs it starts.
//
//go:norace
func (e *Exec) cancelIn(c *ctx, err, cause error, b *afterBatch) {
	if c.err != nil {
		return
	}
	c.err = err
	c.cause = cause
	e.objs.obtain(unsafe.Pointer(c)).writes++ // for readCtx's spin detection
	cs := e.chanOf(chanAddr(c.done))
	cs.closed = true
	e.wakeClosed(cs) // a select waiting on Done is done (chan.go)
	close(c.done)
	if e.incr && !e.aborting {
		// The goroutines waiting on Done may run now (OpCancel is a
		// targeted step, enabledset.go).
		e.touch(chanAddr(c.done))
	}
	if c.timer != nil {
		e.stopTimer(c.timer)
	}
	// Taken off c first: each child cancelled takes itself out of its
	// parent's list, which shifted the list under this loop, and every
	// other child was left uncancelled.
	kids := c.children
	c.children, c.gone = nil, 0
	for _, k := range kids {
		if k != nil {
			e.cancelIn(k, err, cause, b)
		}
	}
	for _, a := range c.after {
		if !a.stopped && !a.started {
			a.started = true
			if e.aborting {
				go a.f() // the run is over: natively
			} else {
				b.list = append(b.list, a)
			}
		}
	}
	if p, ok := c.parent.(*ctx); ok && c.at < len(p.children) && p.children[c.at] == c {
		p.dropChild(c)
	}
}

// dropChild takes child k out of c.children, in constant time on average:
// a pool's context has a child per pending task (pond resolves each
// task's future by cancelling it), and each was looked for and shifted
// out of a list of thousands.
//
//go:norace
func (c *ctx) dropChild(k *ctx) {
	c.children[k.at] = nil
	c.gone++
	if c.gone <= len(c.children)/2 {
		return
	}
	n := 0
	for _, x := range c.children {
		if x != nil {
			x.at = n
			c.children[n] = x
			n++
		}
	}
	clear(c.children[n:])
	c.children, c.gone = c.children[:n], 0
}

//go:norace
func (e *Exec) afterFunc(c *ctx, f func()) func() bool {
	a := &afterFunc{c: c, f: f}
	if c.err != nil {
		a.started = true
		e.Go(f)
	} else {
		c.after = append(c.after, a)
	}
	return a.stop
}

// stop is the stop function of a context.AfterFunc. It is a scheduling
// point, a write of a's object (Go's afterFuncCtx.once, which the claim
// of a cancel's start takes too, claimAfter, and another stop), ordered
// with every cancel (a write of the world): natively a cancel on another
// goroutine can come before it, start f, and make it return false; of two
// stops, the first returns true.
//
//go:norace
func (a *afterFunc) stop() bool {
	if e := a.c.e; !e.aborting && Current() == e && e.cur != nil {
		e.Access(unsafe.Pointer(a), OpAtomicWrite)
	}
	if a.started || a.stopped {
		return false
	}
	a.stopped = true
	if sb := a.batch; sb != nil {
		// The cancel has not reached a yet: natively stop wins, and
		// then waits for the parent's lock, which the cancel holds
		// until it is done with its AfterFuncs.
		a.batch = nil
		sb.left--
		if sb.left == 0 {
			a.c.e.Fire(sb.done)
		} else {
			a.c.e.Wait(sb.done)
		}
	}
	return true
}

// ContextAfterFunc models context.AfterFunc.
//
//go:norace
func (e *Exec) ContextAfterFunc(parent context.Context, f func()) func() bool {
	if c, ok := parent.(*ctx); ok && c.e == e {
		return e.afterFunc(c, f)
	}
	d := parent.Done()
	if d == nil {
		return func() bool { return true }
	}
	w := &foreignAfterFunc{e: e, f: f, stopCh: make(chan struct{})}
	e.registerModelChan(chanAddr(w.stopCh))
	e.watch(d, w.stopCh, w.fire)
	return w.stop
}

// foreignAfterFunc is a context.AfterFunc on a context heddle does not
// model: a system goroutine watches its Done channel.
type foreignAfterFunc struct {
	e                *Exec
	f                func()
	stopCh           chan struct{}
	stopped, started bool
}

//go:norace
func (w *foreignAfterFunc) fire() {
	if !w.stopped {
		w.started = true
		w.e.Go(w.f)
	}
}

//go:norace
func (w *foreignAfterFunc) stop() bool {
	if w.started || w.stopped {
		return false
	}
	w.stopped = true
	cs := w.e.chanOf(chanAddr(w.stopCh))
	cs.closed = true
	w.e.wakeClosed(cs)
	close(w.stopCh)
	return true
}

// ContextCause returns the cause of a context modelled by heddle.
//
//go:norace
func ContextCause(c context.Context) (error, bool) {
	x, ok := c.(*ctx)
	if !ok {
		return nil, false
	}
	x.e.readCtx(x)
	return x.cause, true
}

// watch starts a system goroutine that waits until foreign is closed (then
// runs f) or stop is closed. System goroutines are not reported as leaks.
//
//go:norace
func (e *Exec) watch(foreign <-chan struct{}, stop <-chan struct{}, f func()) {
	e.Go(func() {
		i := e.Select([]ChanCase{&structRecv{ch: foreign}, &structRecv{ch: stop}}, false)
		if i == 0 {
			f()
		}
	})
	e.gs[len(e.gs)-1].System = true
}

// structRecv is a receive case on a chan struct{}, for the engine's own
// goroutines.
type structRecv struct {
	ch     <-chan struct{}
	got    bool
	closed bool // Try found the channel closed
}

//go:norace
func (c *structRecv) ProbedClosed() bool { return c.got && c.closed }

//go:norace
func (c *structRecv) Chan() unsafe.Pointer { return chanAddrRecv(c.ch) }

//go:norace
func (c *structRecv) IsSend() bool { return false }

//go:norace
func (c *structRecv) Len() int { return len(c.ch) }

//go:norace
func (c *structRecv) Cap() int { return cap(c.ch) }

//go:norace
func (c *structRecv) Do() {
	if !c.got {
		<-c.ch
	}
}

//go:norace
func (c *structRecv) Try() bool {
	if c.got {
		return true
	}
	select {
	case _, ok := <-c.ch:
		c.got, c.closed = true, !ok
		return true
	default:
		return false
	}
}

//go:norace
func chanAddrRecv[T any](ch <-chan T) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&ch))
}

// GoWait runs f in a new controlled goroutine and waits for it to return,
// the way t.Run runs a subtest.
//
//go:norace
func (e *Exec) GoWait(f func()) {
	done := make(chan struct{})
	e.registerModelChan(chanAddr(done))
	e.Go(func() {
		defer e.Close(chanAddr(done), func() { close(done) })
		f()
	})
	e.Select([]ChanCase{&structRecv{ch: done}}, false)
}
