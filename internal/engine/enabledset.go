package engine

import (
	"fmt"
	"math/bits"
	"os"
	"sync/atomic"
	"unsafe"
)

// The enabled set, kept up to date from step to step. A run with
// thousands of goroutines (GoKer's kernels as shipped: a thousand copies of
// a scenario, started at once) would otherwise re-examine every goroutine
// at every step, and rebuild the list of enabled choices from scratch.
//
// In a run with Config.DormantFrom goroutines or more, the engine keeps
// e.gch, the goroutine choices in creation order, from one step to the
// next, and recomputes only the choices of the goroutines a step may have
// changed (dirty ones):
//
//   - the goroutine that announced a new operation, was created or exited;
//   - the goroutines whose pending operation depends on an object that a
//     step touched: the objects of the operation that ran (or arrived: a
//     new waiter can enable a partner, or take a select off its default),
//     and those of the operation a rendezvous partner completed;
//   - goroutines waiting on a channel heddle did not see being made (a
//     foreign channel), which are probed at every pass.
//
// A goroutine's choices depend only on its pending operation, on the state
// of the objects of that operation (a mutex's holder, a channel's buffer,
// closed flag and waiters, a WaitGroup's counter, ...) and, for a
// Cond.Wait, on being signalled, which only a step on the Cond does. Steps
// whose effects reach further (a context cancelled, a timer stopped or
// reset, a timer that runs a function) make every goroutine dirty: the
// set is rebuilt. Goroutines whose operation depends on objects register
// as watchers of those objects, once per operation.
//
// The plain waiters of a sync.Mutex are not watchers but one group of the
// mutex, whose choices a step on the mutex changes all at once
// (lockgroup.go).
//
// This only skips work; the choices are the same as without it (in the
// same order). TestDormancyChangesNoChoice (internal/strategy) runs the
// differential corpus with the set kept from the first goroutine on, and
// rebuilt at every step, and compares every scheduling point. Like the
// partner lists, it assumes that a channel made by the run is operated on
// only by controlled goroutines.

// watch is a goroutine registered on an object for one of its operations.
type watch struct {
	g   *G
	seq uint64 // g.opSeq of the operation
	// dirs says which changes of the object the operation depends on:
	// watchSend for a send case on the channel (it waits for receivers),
	// watchRecv for a receive case (it waits for senders), both for
	// anything else.
	dirs uint8
}

const (
	watchSend = 1 << iota
	watchRecv
	watchAll = watchSend | watchRecv
)

// markDirty makes enabled recompute g's choices at its next pass.
//
//go:norace
func (e *Exec) markDirty(g *G) {
	if !e.incr || g.inDirty {
		return
	}
	g.inDirty = true
	e.dirty = append(e.dirty, g)
	// And in the bitset merge takes them from, while g is in the cache:
	// merge looked each one up again, a miss per waiter of a mutex.
	w := g.Index >> 6
	for len(e.dirtyBits) <= w {
		e.dirtyBits = append(e.dirtyBits, 0)
	}
	e.dirtyBits[w] |= 1 << (g.Index & 63)
}

// noteStep is called before goroutine g performs op as a step; arrive
// says the step is the arrival of its channel operation (chan.go).
//
// An arrival changes no channel's buffer or closed flag: it only adds g
// to the waiters of its unbuffered channels, where partner finds it. A
// receiver arriving can enable only the goroutines that send on that
// channel (a partner for them, or a select taken off its default), and a
// sender only those that receive: the other watchers are not made dirty.
// conc's pool tests have a hundred workers receiving from one channel,
// each arriving again after every task, and every arrival made all the
// others dirty. TestWaitersSameChoices (rt) checks the choices against a
// set rebuilt at every step.
//
//go:norace
func (e *Exec) noteStep(g *G, op *Op, arrive bool) {
	if !e.incr {
		return
	}
	e.markDirty(g)
	if g.grpSeq != 0 {
		e.leaveGroup(g)
	}
	if !targetedKind(op.Kind) {
		e.rebuildAll = true
		return
	}
	if arrive {
		for _, c := range op.Cases {
			p := c.Chan()
			if p == nil || c.Cap() != 0 {
				continue // not a waiter there (addWaiters)
			}
			if c.IsSend() {
				e.touchDirs(p, watchRecv)
			} else {
				e.touchDirs(p, watchSend)
			}
		}
		return
	}
	if readOrAtomic(op.Kind) {
		return
	}
	e.touchOp(op)
}

// readOrAtomic reports whether a step of kind k leaves unchanged the
// state of every object that a watcher's choices depend on: an atomic
// operation, a sync.Map method, a read of a context or of the run's T,
// a file-system step (rt/file.go). A watcher waits on a channel, a lock,
// a WaitGroup, a Once or a Cond, never on an atomic variable (an atomic
// operation is always enabled), and no such object is at the address of
// one. conc's iter workers take
// turns at an atomic add: each step looked its variable up in the table
// of objects, for no watcher.
//
//go:norace
func readOrAtomic(k OpKind) bool {
	switch k {
	case OpAtomicLoad, OpAtomicWrite, OpMapRead, OpMapWrite, OpCtxErr, OpTestRead, OpFSRead, OpFSWrite:
		return true
	}
	return false
}

// noteFire is called before timer t fires. A firing sends on the timer's
// channel, or starts a goroutine (which is new, hence dirty), or runs
// fireFn, which starts the goroutine that cancels a context at its
// deadline, or cancels a context's children (context.go): cancel makes
// the watchers of the Done channels it closes dirty, and its AfterFuncs'
// goroutines are new. A firing of any other
// kind would run a function whose effects are unknown.
//
//go:norace
func (e *Exec) noteFire(t *Timer) {
	if !e.incr {
		return
	}
	switch {
	case t.ch != nil:
		e.touch(chanAddr(t.ch))
	case t.goFn != nil:
	case t.fireFn != nil:
	default:
		e.rebuildAll = true
	}
}

// noteAnnounce is called when g announces its pending operation. It
// changes no other goroutine's choices: a channel operation waits where
// partners see it only from its arrival, a step of its own (chan.go).
//
//go:norace
func (e *Exec) noteAnnounce(g *G) {
	if !e.incr {
		return
	}
	e.markDirty(g)
}

// targetedKind reports whether a step of kind k changes the state of the
// objects of its operation only (as far as other goroutines' choices are
// concerned).
//
//go:norace
func targetedKind(k OpKind) bool {
	switch k {
	case OpStart, OpYield, OpSend, OpRecv, OpSelect, OpClose, OpChanLen,
		OpLock, OpTryLock, OpUnlock, OpRLock, OpRUnlock, OpWLock, OpWLockWait, OpWUnlock, OpRWTryLock, OpRWTryRLock,
		OpWGAdd, OpWGWait, OpOnce, OpOnceDone, OpAtomicLoad, OpAtomicWrite, OpMapRead, OpMapWrite, OpFSRead, OpFSWrite,
		OpCondWait, OpCondBlocked, OpCondSignal, OpCondBroadcast, OpSleep,
		OpCtxErr, OpTestRead, OpCancel:
		// Cond: Signal and Broadcast mark the waiters of the Cond, whose
		// pending operation (OpCondBlocked) is on the Cond; Wait's unlock
		// and relock are steps of their own. A sleeper's waking changes
		// no other goroutine's choices.
		//
		// ctx.Err and a failing t call's read change nothing another
		// goroutine's choices depend on: like an atomic load, a repeated
		// read moves the clock (Access), and a deadline passed that way
		// is the firing of the context's timer, a step of its own. A
		// cancel closes the Done channels of the context and of its
		// descendants, and cancel makes their watchers dirty; the
		// goroutines of its AfterFuncs are new. pond resolves a task's
		// future by a cancel and reads its pool's ctx.Err at every
		// Submit: each was a full pass over the thousands of goroutines
		// of a run of 10,000 tasks.
		return true
	}
	return false
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

// touch makes the watchers of the object at p dirty, and drops the
// watchers that moved on to another operation.
//
//go:norace
func (e *Exec) touch(p unsafe.Pointer) { e.touchDirs(p, watchAll) }

// touchDirs is touch for the watchers whose dirs meet want; it drops the
// stale watchers of every direction.
//
//go:norace
func (e *Exec) touchDirs(p unsafe.Pointer, want uint8) {
	o := e.objs.get(p)
	if o == nil {
		return
	}
	if o.grp != nil {
		e.touchGroup(o)
	}
	if len(o.watchers) == 0 {
		return
	}
	if o.touched == e.gen {
		if o.touchedDirs&want == want {
			// A second touch before the next pass of enabled finds the
			// same watchers: they register only during a pass.
			return
		}
	} else {
		o.touched, o.touchedDirs = e.gen, 0
	}
	o.touchedDirs |= want
	kept := o.watchers[:0]
	for _, w := range o.watchers {
		g := w.g
		if g.state != gParked || g.opSeq != w.seq {
			continue
		}
		kept = append(kept, w)
		if w.dirs&want != 0 {
			e.markDirty(g)
		}
	}
	for i := len(kept); i < len(o.watchers); i++ {
		o.watchers[i] = watch{}
	}
	o.watchers = kept
}

// watchOp registers g on the objects its pending operation depends on,
// once per operation, and notes it for the next pass if it waits on a
// foreign channel.
//
//go:norace
func (e *Exec) watchOp(g *G) {
	if g.state != gParked {
		return
	}
	op := &g.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect, OpLock, OpRLock, OpWLock, OpWLockWait, OpWGWait, OpOnce, OpCondBlocked:
	case OpNative:
		// Back when the code heddle does not control returns: looked at
		// at every pass (detach.go).
		e.volatile = append(e.volatile, g)
		return
	default:
		return // enabled whatever other goroutines do, or a sleeper
	}
	if g.regSeq != g.opSeq {
		g.regSeq = g.opSeq
		g.foreign = false
		if op.Obj != nil && !(e.grouping() && groupable(g) && e.join(op.Obj, g)) {
			e.register(op.Obj, g)
		}
		for _, c := range op.Cases {
			if p := c.Chan(); p != nil {
				if !e.chanOf(p).owned {
					g.foreign = true
				}
				if p != op.Obj {
					e.register(p, g)
				}
			}
		}
	}
	if g.foreign {
		// A foreign channel is probed at every pass.
		e.volatile = append(e.volatile, g)
	}
}

//go:norace
func (e *Exec) register(p unsafe.Pointer, g *G) {
	o := e.objs.obtain(p)
	if n := len(o.watchers); n > 0 && o.watchers[n-1].g == g && o.watchers[n-1].seq == g.opSeq {
		return // a select with two cases on one channel (dirs has both)
	}
	o.watchers = append(o.watchers, watch{g: g, seq: g.opSeq, dirs: watchDirs(p, &g.op)})
}

// watchDirs is the dirs of a watch of op on the object at p: the
// directions of op's cases on p, or watchAll if p is no channel of them.
//
//go:norace
func watchDirs(p unsafe.Pointer, op *Op) uint8 {
	var d uint8
	for _, c := range op.Cases {
		if c.Chan() == p {
			if c.IsSend() {
				d |= watchSend
			} else {
				d |= watchRecv
			}
		}
	}
	if d == 0 {
		return watchAll
	}
	return d
}

// enabledWork is what rebuild keeps from pass to pass, and counts of the
// work of the enabled set (tests bound them).
type enabledWork struct {
	// live is the goroutines a full pass looks at, in creation order:
	// those of e.gs[:liveFrom] that had not finished at the last pass.
	// A finished goroutine has no choices and never runs again; pond's
	// TestPoolMetrics ends with 10,000 of them.
	live     []*G
	liveFrom int

	rebuilds int // full passes over the goroutines
	visited  int // goroutines whose choices were computed, in every pass
	merges   int // passes of merge
	probes   int // choices merge looked at to find the dirty goroutines'
	flips    int // Mutex waiter groups whose choices a pass spliced in or out (lockgroup.go)

	checkBuf []Choice // checkEnabled's full pass
}

// rebuild recomputes the choices of every goroutine.
//
//go:norace
func (e *Exec) rebuild() {
	e.es.rebuilds++
	e.starveFull = true // starvation looks at every choice
	e.syncGroups()
	e.gch = e.gch[:0]
	e.volatile = e.volatile[:0]
	for _, g := range e.dirty {
		g.inDirty = false // a finished one may be left out below
	}
	for i := range e.dirtyBits {
		e.dirtyBits[i] = 0
	}
	e.clearDirty()
	// The goroutines made since the last pass come after every live
	// one: creation order is kept.
	// One by one, not append(live, gs...): the runtime's copy reports
	// its writes to the race detector even from norace code (moveChoices).
	//lint:ignore S1011 one by one on purpose (above)
	for _, g := range e.gs[e.es.liveFrom:] {
		e.es.live = append(e.es.live, g)
	}
	e.es.liveFrom = len(e.gs)
	e.es.visited += len(e.es.live)
	kept := e.es.live[:0]
	for _, g := range e.es.live {
		g.inDirty = false
		n := len(e.gch)
		if g.state == gParked {
			e.gch = e.addChoices(e.gch, g)
		}
		g.nch = len(e.gch) - n
		if e.incr {
			e.watchOp(g)
			if e.cfg.Record {
				e.logChoices(g, n)
			}
		}
		if g.state != gDone {
			// Finished: its choices (none) are set, and logged, above;
			// nothing can give it any again.
			kept = append(kept, g)
		}
	}
	// Not cleared past the length: e.gs keeps those goroutines anyway.
	e.es.live = kept
	e.rebuildAll = false
}

//go:norace
func (e *Exec) clearDirty() {
	// Not cleared: the entries past the length point to goroutines of
	// this run, which e.gs keeps anyway, and storing nils cost a write
	// barrier each while the collector runs (a dirty goroutine per step).
	e.dirty = e.dirty[:0]
}

// update recomputes the choices of the dirty goroutines, in creation order
// (the order in which rebuild probes foreign channels).
//
//go:norace
func (e *Exec) update() {
	for i, g := range e.volatile {
		e.markDirty(g)
		e.volatile[i] = nil
	}
	e.volatile = e.volatile[:0]
	if len(e.flipped) > 0 {
		e.flipGroups()
	}
	mark := len(e.lockers)
	e.noteStarveDirty()
	e.es.visited += len(e.dirty)
	if len(e.dirty) > 16 {
		// Splicing each one in costs a move of the choices after it:
		// a thousand waiters on a mutex, all dirty at every Lock and
		// Unlock, merged in one pass instead.
		e.merge()
	} else {
		sortByIndex(e.dirty)
		for _, g := range e.dirty {
			g.inDirty = false
			e.dirtyBits[g.Index>>6] &^= 1 << (g.Index & 63)
			e.refresh(g)
		}
		e.clearDirty()
	}
	if len(e.toList) > 0 {
		e.listMerge(mark)
	}
	if checkSet.Load() {
		e.checkEnabled()
	}
}

// checkSet makes every update of the enabled set compare its result with
// a full pass (checkEnabled).
var checkSet atomic.Bool

func init() {
	if os.Getenv("HEDDLE_CHECKSET") != "" {
		checkSet.Store(true)
	}
}

// CheckEnabledSet turns on or off, for every run, the comparison of the
// enabled set kept from step to step with the one a full pass over the
// goroutines computes, at every step; it returns the previous setting. A
// difference ends the run with an internal error that shows both. Tests
// turn it on; HEDDLE_CHECKSET=1 in the environment turns it on in any
// binary that uses the engine (go test ./rt ./internal/engine, a test
// binary built by heddle).
func CheckEnabledSet(on bool) bool { return checkSet.Swap(on) }

// checkEnabled compares e.gch, kept from step to step, with the choices of
// a full pass, and panics where they differ. Goroutines that wait on a
// foreign channel (or came back from native code) are probed at every
// pass already, and probing again could perform their operation: their
// choices are taken as they are. Once native code was seen to run, owned
// channels are probed too: the check is skipped.
//
//go:norace
func (e *Exec) checkEnabled() {
	if e.nativeSeen() {
		return
	}
	want := e.es.checkBuf[:0]
	for _, g := range e.gs {
		if g.state != gParked {
			continue
		}
		if e.probedOp(g) {
			pos := e.gchPos(g.Index)
			want = appendChoices(want, e.gch[pos:pos+g.nch])
			continue
		}
		want = e.addChoices(want, g)
	}
	e.es.checkBuf = want[:0]
	bad := len(want) != len(e.gch)
	for i := 0; !bad && i < len(want); i++ {
		bad = want[i] != e.gch[i]
	}
	n := 0
	for _, g := range e.gs {
		if n+g.nch > len(e.gch) {
			bad = true
			break
		}
		for _, c := range e.gch[n : n+g.nch] {
			bad = bad || c.G != g
		}
		if e.cfg.Record && g.Index/enChunk < len(e.enChunks) {
			if c := e.enChunks[g.Index/enChunk]; c != nil && !sameChoices(c.ch[g.Index%enChunk], e.gch[n:n+g.nch]) {
				bad = true
			}
		}
		n += g.nch
	}
	if bad {
		// Also on standard error: a test that runs the engine
		// directly may not look at Result.Internal.
		msg := fmt.Sprintf("engine: at step %d, the enabled set kept from step to step differs from a full pass:\nkept: %s\nfull: %s", e.steps, choiceKeys(e.gch), choiceKeys(want))
		fmt.Fprintln(os.Stderr, msg)
		panic(msg)
	}
}

// probedOp reports whether g's pending operation is looked at by probing:
// a wait on a channel heddle did not see being made, or a return from
// native code.
//
//go:norace
func (e *Exec) probedOp(g *G) bool {
	if g.op.Kind == OpNative {
		return true
	}
	for _, c := range g.op.Cases {
		if p := c.Chan(); p != nil && !e.chanOf(p).owned {
			return true
		}
	}
	return false
}

//go:norace
func choiceKeys(cs []Choice) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += " "
		}
		s += c.Key()
	}
	return s
}

// merge recomputes the choices of the dirty goroutines in one pass over
// e.gch: the choices of the goroutines in between are moved as blocks, and
// the goroutines that are not dirty are not looked at but by a search for
// the next dirty one's place: the next few choices, then a galloping
// search (hundreds of goroutines not started, between the waiters of a
// mutex and the goroutine that released it, were each looked at by a
// scan). The dirty ones are taken in creation order from a bitset (no
// sort), and the new list is built in e.scratch, which then becomes
// e.gch. The result is the one that refreshing each in turn, or
// rebuilding, gives.
//
//go:norace
func (e *Exec) merge() {
	// markDirty set e.dirtyBits.
	words := len(e.dirtyBits)
	e.es.merges++
	old, buf := e.gch, e.scratch[:0]
	from := 0 // old[:from] is in buf, or dropped
	var lv lockView
	for w := 0; w < words; w++ {
		for set := e.dirtyBits[w]; set != 0; set &= set - 1 {
			g := e.gs[w*64+bits.TrailingZeros64(set)]
			g.inDirty = false
			// The next few choices first (the waiters of a mutex, all
			// dirty at its Lock and Unlock, lie close together), then
			// a galloping search.
			at, end := from, min(from+8, len(old))
			for at < end && old[at].G.Index < g.Index {
				at++
			}
			e.es.probes += at - from
			if at == end && end < len(old) {
				var looks int
				at, looks = gallop(old, at, g.Index)
				e.es.probes += looks
			}
			if at > from {
				buf = appendChoices(buf, old[from:at])
			}
			from = at + g.nch
			n := len(buf)
			if g.state == gParked {
				if en, ok := e.waiterEnabled(g, &lv); !ok {
					buf = e.addChoices(buf, g)
				} else if en {
					// Field by field: a Choice made on the stack and
					// copied in stalled on its own stores (a third of
					// merge's time with a thousand waiters).
					buf = append(buf, Choice{})
					c := &buf[len(buf)-1]
					c.G, c.Case, c.spin = g, -1, spinClass(g, false)
					c.kind, c.gi = g.op.Kind, int32(g.Index+1)
				}
			}
			g.nch = len(buf) - n
			// Here, while g is in the cache, not in a pass of its own:
			// a thousand waiters on a mutex are each looked at again.
			// The order of the registrations does not matter (a touch
			// marks dirty, and dirty goroutines are taken in creation
			// order).
			if g.state == gParked && (g.regSeq != g.opSeq || g.foreign || g.op.Kind == OpNative) {
				e.watchOp(g)
			}
		}
		e.dirtyBits[w] = 0
	}
	buf = appendChoices(buf, old[from:])
	// old keeps pointers to goroutines, which e.gs keeps anyway.
	e.gch, e.scratch = buf, old[:0]
	if e.cfg.Record {
		for _, g := range e.dirty {
			e.logChoices(g, e.gchPos(g.Index))
		}
	}
	e.clearDirty()
}

// gallop returns the index of the first choice of cs[from:] whose
// goroutine's creation index is idx or more (cs is in creation order),
// or len(cs), and how many choices it looked at: it looks at cs[from],
// then at steps that double, then searches the last one's range. As
// choicePos, it reads the index kept in each choice.
//
//go:norace
func gallop(cs []Choice, from, idx int) (int, int) {
	if from >= len(cs) {
		return from, 0
	}
	k := int32(idx + 1) // the index as choices keep it
	if cs[from].gi >= k {
		return from, 1
	}
	looks := 1
	lo, step := from, 1 // cs[lo] is before idx's
	hi := lo + step
	for hi < len(cs) {
		looks++
		if cs[hi].gi >= k {
			break
		}
		lo, step = hi, 2*step
		hi = lo + step
	}
	hi = min(hi, len(cs))
	// cs[lo] is before idx's; cs[hi] is not, or hi == len(cs).
	lo++
	for lo < hi {
		looks++
		m := int(uint(lo+hi) >> 1)
		if cs[m].gi < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, looks
}

// choicePos returns the index in cs (in creation order) of the first
// choice of the goroutine of creation index idx, or where it would be.
// It reads the index each choice keeps (Choice.gi, set on every choice
// of e.gch), not the goroutine's: a G is 648 bytes, and its Index a
// load from a cache line the step may not touch otherwise (3% of a
// profile of conc's iter.TestForEachIdx, at every refresh and
// prevIndex).
//
//go:norace
func choicePos(cs []Choice, idx int) int {
	lo, hi, k := 0, len(cs), int32(idx+1) // the index as choices keep it
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].gi < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// appendChoices is append(dst, src...), element by element under the
// race detector (see moveChoices).
//
//go:norace
func appendChoices(dst, src []Choice) []Choice {
	if !RaceEnabled {
		return append(dst, src...)
	}
	n := len(dst)
	for range src {
		dst = append(dst, Choice{})
	}
	for i := range src {
		dst[n+i] = src[i]
	}
	return dst
}

// sortByIndex sorts gs, at most 16 goroutines, in creation order: an
// insertion sort, which allocates nothing (sort.Sort's interface did, at
// every update with two dirty goroutines or more: a sixth of x/sync
// errgroup TestGoLimit's allocations).
//
//go:norace
func sortByIndex(gs []*G) {
	for i := 1; i < len(gs); i++ {
		g := gs[i]
		j := i
		for ; j > 0 && gs[j-1].Index > g.Index; j-- {
			gs[j] = gs[j-1]
		}
		gs[j] = g
	}
}

// refresh recomputes g's choices and puts them in their place in e.gch.
//
//go:norace
func (e *Exec) refresh(g *G) {
	buf := e.scratch[:0]
	if g.state == gParked {
		buf = e.addChoices(buf, g)
	}
	e.scratch = buf
	k, old := len(buf), g.nch
	if k > 0 || old > 0 {
		pos := e.gchPos(g.Index)
		if k != old {
			e.shiftGch(pos+old, k-old)
		}
		for i := 0; i < k; i++ {
			// Field by field: addChoices has just stored them so, and
			// a whole-Choice copy's 16-byte loads would wait for those
			// stores to reach the cache (perf annotate).
			d, c := &e.gch[pos+i], &buf[i]
			d.G, d.Case, d.Select, d.Arrive, d.Timer, d.Early = c.G, c.Case, c.Select, c.Arrive, c.Timer, c.Early
			d.spin, d.kind, d.gi = c.spin, c.kind, c.gi
			c.G, c.Timer = nil, nil
		}
		g.nch = k
		e.logChoices(g, pos)
	}
	e.watchOp(g)
}

// gchPos returns the index in e.gch of the first choice of the goroutine
// of creation index idx, or where it would be.
//
//go:norace
func (e *Exec) gchPos(idx int) int { return choicePos(e.gch, idx) }

// shiftGch moves e.gch[from:] by d places (d < 0: towards the start).
//
//go:norace
func (e *Exec) shiftGch(from, d int) {
	n := len(e.gch)
	if d > 0 {
		for i := 0; i < d; i++ {
			e.gch = append(e.gch, Choice{})
		}
		moveChoices(e.gch[from+d:], e.gch[from:n])
		return
	}
	moveChoices(e.gch[from+d:], e.gch[from:])
	for i := n + d; i < n; i++ {
		e.gch[i] = Choice{}
	}
	e.gch = e.gch[:n+d]
}

// moveChoices is copy(dst, src), element by element under the race
// detector (copy's runtime code reports its accesses even from norace
// code, and e.gch is touched by whichever goroutine holds the processor).
//
//go:norace
func moveChoices(dst, src []Choice) {
	if !RaceEnabled {
		copy(dst, src)
		return
	}
	n := len(src)
	if len(dst) < n {
		n = len(dst)
	}
	if n == 0 {
		return
	}
	if &dst[0] == &src[0] {
		return
	}
	// Overlapping moves: backwards when moving towards the end.
	if uintptr(unsafe.Pointer(&dst[0])) > uintptr(unsafe.Pointer(&src[0])) {
		for i := n - 1; i >= 0; i-- {
			dst[i] = src[i]
		}
		return
	}
	for i := 0; i < n; i++ {
		dst[i] = src[i]
	}
}
