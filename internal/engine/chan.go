package engine

import (
	"time"
	"unsafe"
)

// chanState is the shadow state of a channel.
type chanState struct {
	// closed is set when a controlled goroutine closed the channel, or a
	// probe found it closed.
	closed bool
	// sendW and recvW are the goroutines whose pending operation has a
	// send, or a receive, case on this channel (if queued), in the order
	// they arrived at it; entries whose goroutine has moved on are dropped
	// lazily. Two lists, so that finding the oldest of one direction does
	// not look at every waiter of the other (conc's pool: a hundred
	// workers receiving, and no sender waiting).
	sendW, recvW waiterList
	// gen, sends and recvs cache the two oldest current senders and
	// receivers among waiters, valid while gen == Exec.gen.
	gen          uint64
	sends, recvs [2]waiter
	// owned is set for channels made by rewritten code during this run.
	// Only controlled goroutines can reach them, so the shadow state is
	// the whole truth and they are never probed. Other channels (made by
	// code that is not rewritten, such as a stdlib context's Done, or
	// before the run) are foreign: heddle probes them.
	owned bool
	// timer is set for the channel of a Timer or Ticker made by the run:
	// with synchronous timer channels (Go 1.23 on), len and cap report 0
	// for it, as Go's do (TimerChan).
	timer bool
	// heldFor is, for a timer's channel, the goroutine its firing
	// committed to receive the value in the buffer (fireWakes): Go's
	// timer sends it to that waiter directly, so no other receive, poll,
	// Stop or Reset finds it there.
	heldFor *G
	// bubble is the synctest bubble of the goroutine that made the
	// channel (bubble.go): blocking on it is durable in that bubble.
	bubble *Bubble
	// model is set for a channel heddle's model makes (a context's Done,
	// an event), not the program: Go's refusal of a bubble's channels
	// outside it (outsideBubble) is not for them (Go makes a context's
	// Done channel in its first caller, in or out of the bubble).
	model bool
	// seq numbers the channels the run made, from 1 in the order it made
	// them (0: not made by the run): the same in every run that makes
	// them in the same order, where their addresses are not (ChanSeq).
	seq uint64
}

//go:norace
func (e *Exec) chanOf(p unsafe.Pointer) *chanState { return &e.objs.obtain(p).ch }

// waiter is a goroutine's pending case on a queued channel.
type waiter struct {
	g   *G
	seq uint64 // g.opSeq when it announced the operation
	i   int    // the case
}

// RegisterChan records a channel made by rewritten code during the run.
//
//go:norace
func (e *Exec) RegisterChan(p unsafe.Pointer) {
	cs := e.chanOf(p)
	cs.owned = true
	e.objs.chans++
	cs.seq = e.objs.chans
	e.bubbleChan(cs)
}

// ChanSeq returns the number of the channel at p among the channels the
// run made, from 1 in the order it made them, or 0 if the run did not make
// it: an order of channels that does not depend on where the allocator
// put them (a range over a map keyed by channels, rt.MapKeys).
//
//go:norace
func (e *Exec) ChanSeq(p unsafe.Pointer) uint64 {
	if o := e.objs.get(p); o != nil && o.ch.owned {
		return o.ch.seq
	}
	return 0
}

// registerModelChan records a channel made by heddle's model of a
// construct during the run (chanState.model).
//
//go:norace
func (e *Exec) registerModelChan(p unsafe.Pointer) {
	e.RegisterChan(p)
	e.chanOf(p).model = true
}

// outsideBubble reports whether the channel at p, made by the program in a
// synctest bubble, is used by a goroutine outside that bubble: Go's
// runtime stops the program then ("fatal error: receive on synctest
// channel from outside bubble", runtime/chan.go and select.go).
//
//go:norace
func (e *Exec) outsideBubble(p unsafe.Pointer) bool {
	if p == nil || e.cur == nil || e.aborting {
		return false
	}
	o := e.objs.get(p)
	return o != nil && o.ch.bubble != nil && !o.ch.model && o.ch.bubble != e.cur.bubble
}

// refuseOutsideBubble reports Go's fatal error for a channel operation on
// a bubble's channel from outside it (outsideBubble), as a misuse, and
// reports whether it did.
//
//go:norace
func (e *Exec) refuseOutsideBubble(cases []ChanCase) bool {
	for _, c := range cases {
		if !e.outsideBubble(c.Chan()) {
			continue
		}
		what := "select"
		if len(cases) == 1 { // a send or receive, blocking or not (chansend, chanrecv)
			what = "receive"
			if c.IsSend() {
				what = "send"
			}
		}
		e.misuse("fatal error: " + what + " on synctest channel from outside bubble")
		return true
	}
	return false
}

// caseReady reports whether case c of g's pending operation can proceed.
// Probing a foreign channel may perform the operation; then g.committed is
// set to the case's index.
//
//go:norace
func (e *Exec) caseReady(g *G, c ChanCase) bool {
	p := c.Chan()
	if p == nil {
		return false
	}
	cs := e.chanOf(p)
	if cs.closed {
		return true
	}
	if cs.heldFor != nil && cs.heldFor != g && !c.IsSend() {
		return false // a timer's value sent to another waiter (fireWakes)
	}
	if c.Cap() > 0 {
		if c.IsSend() {
			if c.Len() < c.Cap() {
				return true
			}
		} else if c.Len() > 0 {
			return true
		}
	} else if h, _ := e.partnerIn(g, c, cs); h != nil {
		return true
	}
	if cs.owned && !e.nativeSeen() {
		return false
	}
	if e.probe(g, c, cs) {
		return true
	}
	return e.settleProbe(g, c, cs)
}

// settleWait is how long, in real time, a blocking operation on a foreign
// channel just announced waits for code heddle does not control to make it
// ready (settleProbe); settleBudget bounds these waits in a run.
const (
	settleWait   = 10 * time.Millisecond
	settleBudget = 3 * settleWait
)

// settleProbe is called when the probe of case c of g's pending operation,
// a foreign channel's, failed. If that operation was just announced, would
// block, and a goroutine heddle does not control takes part in the run
// (nativeSeen: it ran rewritten code, or a probe found it a partner) or in
// an earlier one (Config.NativePartners),
// one of them may be about to make it ready: a goroutine started in init
// that serves requests (the test sends it one and waits for its answer).
// It probes again for up to settleWait, so that whether the operation
// completes at once or arrives and waits does not depend on how fast that
// goroutine is: otherwise a run and its replay saw different choices, and
// the test was "nondeterministic by itself". Each announcement settles
// once, and a run at most settleBudget in all.
//
//go:norace
func (e *Exec) settleProbe(g *G, c ChanCase, cs *chanState) bool {
	if cs.owned || g.op.Dflt || g.settleSeq == g.opSeq || e.settleWaited >= settleBudget || !e.cfg.NativePartners && !e.nativeSeen() {
		return false
	}
	g.settleSeq = g.opSeq
	const d = 100 * time.Microsecond
	for waited := time.Duration(0); waited < settleWait && e.settleWaited < settleBudget; waited += d {
		time.Sleep(d)
		e.settleWaited += d
		if e.probe(g, c, cs) {
			return true
		}
	}
	return false
}

// probe tries a foreign channel operation without blocking. It runs on
// whichever goroutine holds the processor, on behalf of g.
//
//go:norace
func (e *Exec) probe(g *G, c ChanCase, cs *chanState) bool {
	raceDisable()
	ok, closed := tryCase(c)
	raceEnable()
	if closed {
		// Sending on a closed channel: the case is ready, and will panic
		// when it runs, as it would natively.
		cs.closed = true
		return true
	}
	if !ok {
		return false
	}
	if cl, isRecv := c.(probedCloser); isRecv && cl.ProbedClosed() {
		// The receive found the channel closed: no goroutine outside
		// heddle's control is a partner of this run (the channel may have
		// been closed before it, as the Done channel of a context made and
		// cancelled by an earlier run is), so the run's own channels stay
		// its own. A probe that took a value or sent one had a partner.
		cs.closed = true
	} else {
		e.probed = true
	}
	if !c.IsSend() {
		e.foreignRecv = true
	}
	for i, x := range g.op.Cases {
		if x == c {
			g.committed = i
		}
	}
	return true
}

// probedCloser is a receive case that can tell whether its probe (Try)
// received the zero value of a closed channel.
type probedCloser interface{ ProbedClosed() bool }

// tryCase runs c.Try, turning the panic of a send on a closed channel into
// closed.
//
//go:norace
func tryCase(c ChanCase) (ok, closed bool) {
	defer func() {
		if recover() != nil {
			closed = true
		}
	}()
	return c.Try(), false
}

// partner finds the goroutine whose operation case c of g completes (a
// rendezvous on an unbuffered channel, a handoff on a buffered one): the
// one that has waited longest with a matching operation.
//
//go:norace
func (e *Exec) partner(g *G, c ChanCase) (*G, int) {
	return e.partnerIn(g, c, e.chanOf(c.Chan()))
}

// partnerIn is partner with the state of c's channel at hand (caseReady
// has it: one lookup in the objects' table per case, not two).
//
//go:norace
func (e *Exec) partnerIn(g *G, c ChanCase, cs *chanState) (*G, int) {
	if cs.gen != e.gen {
		e.scanWaiters(cs)
	}
	// The oldest current waiter of the other direction that is not g.
	cands := &cs.recvs
	if !c.IsSend() {
		cands = &cs.sends
	}
	for _, w := range cands {
		if w.g != nil && w.g != g {
			return w.g, w.i
		}
	}
	return nil, -1
}

// scanWaiters finds the two oldest current senders and receivers of cs,
// for as long as nothing changes (one pass of enabled): with many
// goroutines waiting on one channel, finding a partner stays cheap.
//
//go:norace
func (e *Exec) scanWaiters(cs *chanState) {
	cs.gen = e.gen
	cs.sends, cs.recvs = [2]waiter{}, [2]waiter{}
	cs.sendW.scan(&cs.sends)
	cs.recvW.scan(&cs.recvs)
}

// waiterList is the waiters of one direction of a channel.
type waiterList struct {
	ws []waiter
	// sweepAt is the length from which scan looks at every entry, to
	// drop the stale ones: twice the live entries of the last sweep.
	sweepAt int
}

// scan puts the two oldest current waiters of l that did not commit to a
// case in out, dropping the stale entries (whose goroutine has moved on)
// it meets. It stops at the second, but for a sweep of the whole list
// once it has doubled since the last: a list whose stale entries lie
// behind its oldest current waiters stays bounded, at a cost per append
// that does not grow.
//
//go:norace
func (l *waiterList) scan(out *[2]waiter) {
	ws := l.ws
	all := len(ws) >= l.sweepAt
	n, w, i := 0, 0, 0
	for ; i < len(ws); i++ {
		x := ws[i]
		h := x.g
		if h.state != gParked || h.opSeq != x.seq {
			continue
		}
		if w != i {
			ws[w] = x
		}
		w++
		if h.committed < 0 && h.woken == 0 && n < 2 {
			out[n] = x
			n++
			if n == 2 && !all {
				i++
				break
			}
		}
	}
	switch {
	case w == i:
		w = len(ws) // nothing dropped: the unread rest stays in place
	default:
		// Entries dropped: move the unread rest down (element by
		// element under the race detector, see moveChoices).
		for ; i < len(ws); i++ {
			ws[w] = ws[i]
			w++
		}
		for k := w; k < len(ws); k++ {
			ws[k] = waiter{}
		}
	}
	l.ws = ws[:w]
	if all {
		l.sweepAt = 2*w + 8
	}
}

// Arrival. A goroutine's step ends where it announces its next operation,
// but in Go a goroutine that has announced a channel operation may still be
// running the code before it: a partner that polls the channel (a select
// with a default, a non-blocking operation) sees nobody there. So a blocking
// channel operation (a send, a receive, a select without a default) that
// cannot complete when it is announced does not wait on its channels yet:
// its goroutine has one choice, to arrive, a step of its own after which
// it is a waiter, found by partners (which complete the operation with
// it) and by polls. An operation that can complete (a buffered slot, a
// closed channel, a partner that arrived) completes, as in Go, without
// waiting. Of two partners that have not arrived, one arrives first and
// the other completes the rendezvous.
//
// The waiters of a channel are its FIFO queues of senders and receivers,
// Go's sendq and recvq, and they are observable on buffered channels too:
// a receive that frees a slot of a full channel moves the value of the
// oldest waiting sender into the buffer's tail and completes that send
// (its select case is the one taken) in the same operation, so a sender
// that comes later finds the buffer full again; a send to an empty
// channel with waiting receivers hands its value to the oldest of them
// (runtime/chan.go, recv and send). So a blocking operation arrives on
// buffered channels as on unbuffered ones, and the receive (or send) that
// finds a waiter completes with it as one joint step, as a rendezvous
// does (handsOff). Only the buffered channels made by the run, but for
// timers' channels, have queues (queued): a foreign channel's buffer
// changes under code heddle does not control: its waiters wait without
// an arrival step, and any goroutine that finds the operation possible (a
// slot, a value) may take it. A timer's channel is filled by the timer's
// firing, which is no goroutine, but its receivers queue as Go's do: the
// firing hands the value to the oldest that arrived (fireWakes), and a
// select it commits so takes no other case.

// queued reports whether goroutines blocked on case c's channel wait in
// its queues, in the order of their arrival: every unbuffered channel,
// and the buffered ones made by the run that are no timer's channel.
//
//go:norace
func (e *Exec) queued(c ChanCase) bool {
	p := c.Chan()
	if p == nil {
		return false
	}
	if c.Cap() == 0 {
		return true
	}
	cs := e.chanOf(p)
	return cs.owned && (!cs.timer || !c.IsSend())
}

// handsOff reports whether case c, about to be performed on an open
// channel, completes the operation of the oldest waiting partner, if any:
// always on an unbuffered channel, and on a queued buffered one unless
// code heddle does not control may operate on it (nativeSeen), which
// would break the invariant that its senders wait only while it is full
// and its receivers only while it is empty.
//
//go:norace
func (e *Exec) handsOff(c ChanCase) bool {
	return c.Cap() == 0 || e.queued(c) && !e.nativeSeen()
}

// mustArrive reports whether op, a send, receive or select, waits in the
// queues of a channel when it cannot complete: it then takes an arrival
// step before it waits. A plain receive from a timer's channel does not:
// the firing's commit (fireWakes) changes what a select with other cases
// takes, but for a lone receive it only orders it with other receivers of
// the same timer, which is rare, and the arrival step would be paid at
// every `<-time.After(d)` and every tick of `for range tk.C`. Such a
// receiver is no waiter a firing commits; any receiver may take the
// value while none is committed, as before.
//
//go:norace
func (e *Exec) mustArrive(op *Op) bool {
	if op.Dflt {
		return false
	}
	for _, c := range op.Cases {
		if e.queued(c) && (len(op.Cases) > 1 || c.Cap() == 0 || !e.chanOf(c.Chan()).timer) {
			return true
		}
	}
	return false
}

// arrive is g's arrival at its pending operation: from now on it waits on
// its channels, in the order of arrival.
//
//go:norace
func (e *Exec) arrive(g *G) {
	g.arrived = true
	e.addWaiters(g)
}

// addWaiters records g's pending operation in the queues of the channels
// of its cases, where partner looks for it.
//
//go:norace
func (e *Exec) addWaiters(g *G) {
	for i, c := range g.op.Cases {
		if !e.queued(c) {
			continue
		}
		cs := e.chanOf(c.Chan())
		l := &cs.recvW
		if c.IsSend() {
			l = &cs.sendW
		}
		l.ws = append(l.ws, waiter{g: g, seq: g.opSeq, i: i})
	}
}

// Select performs a send, a receive or a select: cases are the channel
// operations, hasDefault says whether there is a default case. It returns
// the index of the case performed, or -1 for the default.
//
//go:norace
func (e *Exec) Select(cases []ChanCase, hasDefault bool) int {
	if e.aborting {
		return e.unwindSelect(cases, hasDefault)
	}
	if e.refuseOutsideBubble(cases) {
		return e.unwindSelect(cases, hasDefault)
	}
	kind := OpSelect
	if len(cases) == 1 && !hasDefault {
		if cases[0].IsSend() {
			kind = OpSend
		} else {
			kind = OpRecv
		}
	} else if len(cases) == 0 && !hasDefault {
		kind = OpBlock
	}
	var obj unsafe.Pointer
	if len(cases) == 1 {
		obj = cases[0].Chan()
	}
	e.fireDue(cases, hasDefault)
	if RaceEnabled {
		// The slice was written by user code; strategies read the pending
		// operation and the trace on a goroutine of their own, which the
		// race detector would report as racing with that code. A copy
		// made here is the engine's.
		cases = copyCases(cases)
	}
	e.yield(Op{Kind: kind, Obj: obj, Cases: cases, Dflt: hasDefault})
	g := e.cur
	i := g.sel
	if i < 0 {
		e.poll(g)
		return -1
	}
	c := cases[i]
	cs0 := e.chanOf(c.Chan())
	if cs0.heldFor == g && !c.IsSend() {
		cs0.heldFor = nil // it takes the value its timer's firing sent it
	}
	if (e.cfg.Trace || e.cfg.Record) && !c.IsSend() && e.chanOf(c.Chan()).timer {
		// Emptying a ticker's full channel gives its next tick an early
		// firing, which takes a late wake away (addLateWake): for the
		// DPORs the receive is ordered with late wakes (markClock; only
		// a traced run's steps carry it, so untraced runs skip the
		// channel's lookup).
		e.markClock(g)
	}
	if e.closedRecv(g, i) {
		// The zero value of a closed channel: no progress (spinload.go).
		e.poll(g)
		e.markClosedRecv(g)
	} else {
		if kind == OpRecv {
			g.spins = 0 // a value: progress
			g.endStreak()
		}
		if !c.IsSend() && !cs0.timer {
			// A value another goroutine sent (Bug.Long).
			e.progressed()
		}
	}
	if g.committed == i {
		// A probe already performed it.
		return i
	}
	if g.matched {
		// A partner chose g to complete its rendezvous; it is performing
		// the matching operation on the real channel right now.
		g.matched = false
		c.Do()
		return i
	}
	cs := e.chanOf(c.Chan())
	if !cs.closed && e.handsOff(c) {
		if h, hi := e.partner(g, c); h != nil {
			e.rendezvous(g, c, h, hi)
			return i
		}
	}
	c.Do()
	return i
}

// rendezvous completes g's case c with the operation of partner h, its
// case hi, as one joint step: h performs its half on the real channel and
// runs on to its next scheduling point, then g continues. On an unbuffered
// channel it is a rendezvous; on a buffered one, Go's handoff: g's receive
// from a full channel takes the head of the buffer and h's send fills the
// freed tail, or g's send to an empty channel goes to h's receive. h is
// woken before g's real operation, which h's may precede (h then finds the
// value or the slot g's will use) or follow (h waits in the real channel's
// queue, and g's completes it as Go's runtime does): either way the
// buffer ends as Go's would, and the real operations give the race
// detector the happens-before edges Go's give.
//
//go:norace
func (e *Exec) rendezvous(g *G, c ChanCase, h *G, hi int) {
	if e.incr {
		// h leaves every channel of its operation, not only c's.
		e.markDirty(h)
		e.touchOp(&h.op)
	}
	h.sel = hi
	h.matched = true
	e.record(h, &h.op, nil, 0)
	e.returnTo = g
	h.state = gRunning
	e.cur = h
	raceDisable()
	h.wake.wake()
	raceEnable()
	c.Do()
	raceDisable()
	g.wake.wait()
	raceEnable()
	if e.aborting {
		e.unwound()
	}
	g.state = gRunning
	e.cur = g
}

// Close closes a channel: close performs the real close.
//
//go:norace
func (e *Exec) Close(p unsafe.Pointer, close func()) {
	if e.outsideBubble(p) {
		e.misuse("fatal error: close of synctest channel from outside bubble")
		return
	}
	e.yield(Op{Kind: OpClose, Obj: p})
	if p != nil {
		cs := e.chanOf(p)
		cs.closed = true
		e.wakeClosed(cs)
	}
	close()
}

// wakeClosed commits every goroutine that waits, arrived, on the channel
// of cs, just closed, to its case on that channel. Go's closechan wakes
// every waiter of the channel, and a select it wakes is done (selectgo's
// selectDone): it completes with the closed case, and a partner that
// comes later on another of its channels finds it gone from that
// channel's queue, though the woken goroutine has not run yet. Before,
// such a select stayed a partner of its other channels: a sender there
// could complete with it after the close (suture's
// TestStoppingSupervisorStopsServices: a control message taken by a
// supervisor whose context was cancelled, never seen in 20,000 native
// runs). The other channels of the goroutines it commits are touched:
// their partners' choices change (enabledset.go).
//
//go:norace
func (e *Exec) wakeClosed(cs *chanState) {
	e.wakeClosedIn(&cs.recvW)
	e.wakeClosedIn(&cs.sendW)
}

// CloseWakes returns the cases, on channels other than the one at p, of
// the goroutines a close of that channel would wake and commit to their
// case on it (wakeClosed), or nil: a close is dependent with the partners
// those goroutines then no longer are (a sender on one of those channels
// completed with such a goroutine before the close, and waits after it).
// It allocates; it is for traced runs and strategies.
//
//go:norace
func (e *Exec) CloseWakes(p unsafe.Pointer) []ChanCase {
	o := e.objs.get(p)
	if p == nil || o == nil || o.ch.closed {
		return nil
	}
	var out []ChanCase
	out = e.closeWakesIn(out, &o.ch.recvW)
	return e.closeWakesIn(out, &o.ch.sendW)
}

// closeWakesIn is CloseWakes for the waiters of one direction: for each
// that wakeClosedIn would commit, its other cases.
//
//go:norace
func (e *Exec) closeWakesIn(out []ChanCase, l *waiterList) []ChanCase {
	for _, w := range l.ws {
		h := w.g
		if h.state != gParked || h.opSeq != w.seq || !h.arrived || h.committed >= 0 || h.woken > 0 {
			continue
		}
		for j, c := range h.op.Cases {
			if j != w.i && c.Chan() != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// wakeClosedIn is wakeClosed for the waiters of one direction.
//
//go:norace
func (e *Exec) wakeClosedIn(l *waiterList) {
	for _, w := range l.ws {
		h := w.g
		if h.state != gParked || h.opSeq != w.seq || !h.arrived || h.committed >= 0 || h.woken > 0 {
			continue
		}
		h.woken = w.i + 1
		for j, c := range h.op.Cases {
			if p := c.Chan(); j != w.i && p != nil {
				e.touch(p)
			}
		}
	}
}

// fireWakes is called when timer t's firing has put its value in the
// buffer of its channel: Go's timer sends it to the oldest receiver
// waiting in the channel's queue (runtime/chan.go, send), which a select
// then completes with (selectgo's selectDone), though it has not run yet.
// Here that goroutine is committed to its case on the channel, as a close
// commits its waiters (wakeClosed), and the value is held for it
// (chanState.heldFor). Before, the value sat in the buffer: the select
// could take another case made ready after the firing, another receiver
// could take it, and a Stop could drop it (TestSynctestTimerFiresToFirstWaiter).
//
//go:norace
func (e *Exec) fireWakes(t *Timer) {
	if len(t.ch) == 0 {
		return
	}
	o := e.objs.get(chanAddr(t.ch))
	if o == nil || !o.ch.timer || o.ch.heldFor != nil {
		return
	}
	cs := &o.ch
	for _, w := range cs.recvW.ws {
		h := w.g
		if h.state != gParked || h.opSeq != w.seq || !h.arrived || h.committed >= 0 || h.woken > 0 {
			continue
		}
		h.woken = w.i + 1
		cs.heldFor = h
		for j, c := range h.op.Cases {
			if p := c.Chan(); j != w.i && p != nil {
				e.touch(p)
			}
		}
		return
	}
}

// heldValue reports whether the value in timer t's channel was sent to a
// waiting receiver by its firing (fireWakes): it is no longer pending.
//
//go:norace
func (e *Exec) heldValue(t *Timer) bool {
	if t == nil || t.ch == nil {
		return false
	}
	o := e.objs.get(chanAddr(t.ch))
	return o != nil && o.ch.heldFor != nil
}

// ChanLen is the scheduling point of len(ch).
//
//go:norace
func (e *Exec) ChanLen(p unsafe.Pointer) {
	e.yield(Op{Kind: OpChanLen, Obj: p})
}

// copyCases copies cases element by element: the built-in copy reports its
// accesses to the race detector even from norace code.
//
//go:norace
func copyCases(cases []ChanCase) []ChanCase {
	out := make([]ChanCase, len(cases))
	//lint:ignore S1001 copy's runtime code reports its accesses to the race detector.
	for i, c := range cases {
		out[i] = c
	}
	return out
}
