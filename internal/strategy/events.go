package strategy

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"heddle.dev/internal/engine"
)

// This file turns a run's trace into the events of heddle.md §4 and
// computes their happens-before relation with vector clocks, for DPOR, the
// HBR caches and the Mazurkiewicz-class counting of the tests.

// access is one object an event touches. Every event but an arrival
// reads the pseudo-object world, which a timer firing writes: it moves
// virtual time, which any step may read.
//
// Channels are modelled as in the Go runtime: a channel's buffer and
// closed state (the channel's own address), and the FIFO queues of its
// waiting senders and receivers (queueOf), which decide the partner of a
// rendezvous, or of a buffered channel's handoff (the engine pairs a
// goroutine with the partner that waited longest), and, for an
// unbuffered channel, whether a select case is ready. A
// goroutine joins the queues of its operation by arriving at it
// (engine.OpArrive), a step of its own that a blocking operation takes
// when it cannot complete: the arrival reads what kept each case from
// being ready (the channel, the queue of its partners) and writes the
// queues it joins. An operation that completes without having arrived
// reads the queue of its partners (its partner is the oldest there); one
// that had arrived leaves the queues it joined. A select reads what makes
// each of its cases ready, so a select that takes its default (a poll)
// conflicts with the arrival of a partner on one of its channels.
type access struct {
	obj   uintptr
	write bool
	mutex bool // a Lock/Unlock-family transition (independent under the lazy HBR)
	// side is the index in the event's gs of the goroutine whose
	// operation the access belongs to, and tag which of its objects it
	// is: with the step, they name the object across runs (nameObjects).
	side, tag int
}

// Tags of accesses; the case index is added to the last four.
const (
	tagOp      = 0      // the operation's object
	tagCase    = 1 << 8 // a select case's channel
	tagLeave   = 2 << 8 // the queue an arrived operation leaves, of one of its cases
	tagPartner = 3 << 8 // the queue of a case's partners
	tagJoin    = 4 << 8 // the queue an arrival joins
	tagWake    = 5 << 8 // the queue a goroutine a close woke leaves (engine.Exec.CloseWakes)
	tagBuf     = 1      // the store buffer a commit drains (engine.OpRacyCommit)
	tagGroup   = 2      // the group of racy statements a commit writes
	tagFS      = 3      // the names of the file tree (engine.OpFSRead, OpFSWrite)
	tagWoke    = 6 << 8 // the wake of the j-th waiter a Signal or Broadcast woke
)

// wakeOf is the pseudo-object of the wake of goroutine g from a
// Cond.Wait: the Signal or Broadcast that woke it writes it, and g's
// OpCondBlocked step (it takes the wake) writes it; that step touches
// nothing else, as the woken waiter is off the Cond's wait list: it
// commutes with the other Signals, Broadcasts and Waits. (It relocks c.L
// in a step of its own.) The address is the engine's G, where no object
// of the program lives.
func wakeOf(g *engine.G) uintptr { return uintptr(unsafe.Pointer(g)) }

// fsNames is the object standing for the names of the file tree: the
// entries of every directory, which file-system steps read (OpFSRead: a
// lookup, a listing) or write (OpFSWrite: a create, a remove, a rename,
// a mkdir). It is an object as any other (not a pseudo-object): the
// runs name it by the first step that touches it.
var fsNames = uintptr(unsafe.Pointer(fsNamesObj))

// fsNamesObj keeps the address of fsNames from being another object's.
var fsNamesObj = new(byte)

// world is the pseudo-object every event reads (virtual time).
var world = uintptr(unsafe.Pointer(worldObj))

// worldObj keeps the address of world from being another object's.
var worldObj = new(byte)

// clock is the pseudo-object of the clock's reading alone: a late wake
// (engine.LateWakeID) writes it, and reads the world, which a timer
// firing, a sleep, a timer's Stop or a context's cancel write; a step
// that read the clock (engine.Step.ReadsClock: time.Now, Since, Until,
// arming a timer, a mutex's starvation mode, the test's end) reads it.
// A late wake only moves the clock: it commutes with a step that neither
// reads the clock nor touches timers, as a timer firing (a write of the
// world, which moves the clock and sends on the timer's channel) does
// not. A goroutine's choice not yet taken may read the clock in its
// step: its pending event reads it (pendingEventInto).
var clock = uintptr(unsafe.Pointer(clockObj))

// clockObj keeps the address of clock from being another object's.
var clockObj = new(byte)

// pseudo reports whether obj is a pseudo-object: the world, which every
// event touches, with the fixed name 0 across runs, or the clock (name 1).
func pseudo(obj uintptr) bool { return obj == world || obj == clock }

// queueOf is the pseudo-object of the waiting senders (or receivers) of
// the channel c: an address inside its runtime header, where
// no user object lives.
func queueOf(c uintptr, send bool) uintptr {
	if send {
		return c + 1
	}
	return c + 2
}

// queueAccess appends to r an access to the queue of the senders (or
// receivers) of c.
func queueAccess(r []access, c uintptr, send, write bool, side, tag int) []access {
	return append(r, access{obj: queueOf(c, send), write: write, side: side, tag: tag})
}

// event is one step: a choice and the local code after it, or the joint
// step of an unbuffered rendezvous (two goroutines).
type event struct {
	key   string  // the choice key of the step taken (initiator)
	n     int     // the step's number in the run (Step.N), 0 if it did not run
	pc    uintptr // call site of the initiator's operation, when recorded
	gs    []*engine.G
	cases []int
	kinds []engine.OpKind
	chans [][]engine.ChanCase // the channel cases of each goroutine's operation
	dflt  []bool              // each goroutine's operation is a select with a default
	acc   []access
	timer string // the timer, for a firing
	// computed by hb:
	proc int   // primary process: goroutine index, or len(Gs) for timers
	idx  int   // 1-based index of the event in its primary process
	vc   []int // vector clock (entries are per-process event counts)
	lvc  []int // the same under the lazy dependence

	// Room for the first side and its first accesses (addSide), so that
	// an event of one goroutine is one allocation, not seven: POS and the
	// DPORs build one per step.
	gs1    [1]*engine.G
	cases1 [1]int
	kinds1 [1]engine.OpKind
	chans1 [1][]engine.ChanCase
	dflt1  [1]bool
	acc1   [3]access
}

// accesses classifies one goroutine's operation (heddle.md §4): its kind,
// its object, the select case taken (-1 for a default or a non-select),
// its channel cases, and whether it had arrived (waited on its channels).
func accesses(k engine.OpKind, obj uintptr, cs int, cases []engine.ChanCase, side int, arrived bool) []access {
	return appendAccesses(nil, k, obj, cs, cases, side, arrived)
}

// appendAccesses is accesses appended to dst, which saves an allocation
// per step when dst has room.
func appendAccesses(dst []access, k engine.OpKind, obj uintptr, cs int, cases []engine.ChanCase, side int, arrived bool) []access {
	switch k {
	case engine.OpArrive:
		// An arrival runs no code of the program: it does not read
		// virtual time.
		return arriveAccesses(dst, cases, side)
	case engine.OpSleep, engine.OpTimerFire, engine.OpTimerStop, engine.OpCancel, engine.OpBubbleWait, engine.OpBubbleEnd:
		// Virtual time (and a timer's channel) is read by any step. A
		// synctest Wait, or the end of a bubble, depends on the state
		// of every goroutine of the bubble: it is ordered with every
		// step as a write of the world is.
		return append(dst, access{obj: world, write: true, side: side})
	}
	r := append(dst, access{obj: world, side: side})
	w := func(m bool) []access { return append(r, access{obj: obj, write: true, mutex: m, side: side}) }
	rd := func(m bool) []access { return append(r, access{obj: obj, mutex: m, side: side}) }
	switch k {
	case engine.OpSend, engine.OpRecv:
		r = w(false)
		if len(cases) == 1 {
			r = pairAccesses(r, cases, 0, arrived, side)
		}
		return r
	case engine.OpClose:
		return w(false)
	case engine.OpChanLen:
		return rd(false)
	case engine.OpSelect:
		return selectAccesses(r, cs, cases, side, arrived)
	case engine.OpLock, engine.OpUnlock:
		return w(true)
	case engine.OpWLock, engine.OpWLockWait, engine.OpWUnlock:
		// RWMutex transitions are not relaxed by the lazy HBR: seed-004's
		// model (and Theorem 4.3.1) has plain mutexes only.
		return w(false)
	case engine.OpOnce, engine.OpOnceDone:
		// Once.Do blocks while f runs, like a Lock; the completion of f
		// releases it, like an Unlock. It is not a pure mutex transition
		// (which Do runs f matters), so it stays dependent under the
		// lazy HBR.
		return w(false)
	case engine.OpRLock, engine.OpRUnlock:
		return rd(false)
	case engine.OpTryLock, engine.OpRWTryLock:
		return w(false)
	case engine.OpRWTryRLock:
		return rd(false)
	case engine.OpWGAdd:
		return rd(false) // Adds commute with each other; Wait conflicts with them
	case engine.OpWGWait, engine.OpCondWait, engine.OpCondBlocked, engine.OpCondSignal, engine.OpCondBroadcast:
		return w(false)
	case engine.OpAtomicLoad, engine.OpMapRead:
		return rd(false)
	case engine.OpCtxErr:
		// A read of a context's cancellation: a cancel, or a deadline
		// firing, of it or an ancestor writes the world, which every
		// step reads.
		return rd(false)
	case engine.OpAtomicWrite, engine.OpMapWrite:
		return w(false)
	case engine.OpFSRead:
		// A file-system step writes its file's object and reads the
		// names of the file tree (a lookup, a listing), which every
		// create, remove, rename or mkdir writes (OpFSWrite): one object
		// for the whole tree, as a change of a name under a directory
		// changes what a listing of the directory, of any of its
		// ancestors (MkdirAll) or of its descendants (RemoveAll,
		// Rename), and a lookup of a path through it, see.
		return append(w(false), access{obj: fsNames, side: side, tag: tagFS})
	case engine.OpFSWrite:
		return append(w(false), access{obj: fsNames, write: true, side: side, tag: tagFS})
	case engine.OpTestRead:
		// A failing testing.T call reads whether the test completed,
		// which the test's end writes, and writes the test's failure
		// (its first message): two goroutines' failing calls conflict.
		return w(false)
	case engine.OpTestDone:
		return w(false)
	case engine.OpRacyRead:
		// A racy statement's object is its group of racing statements:
		// two racy steps conflict if their groups are the same and one
		// of them writes (see racy.go in the engine).
		return rd(false)
	case engine.OpRacyWrite, engine.OpRacyWriteEnd:
		return w(false)
	case engine.OpRacyStore:
		// A store into its goroutine's store buffer: it touches no
		// memory, only the object of the buffered store, which its
		// commit writes too (see storebuf.go in the engine).
		return w(false)
	case engine.OpRacyCommit:
		// A buffered store reaches memory: a write of the store's object;
		// addSide adds the writes of its group and of the buffer.
		return w(false)
	case engine.OpRacyFence:
		// A goroutine waits for its store buffer (the object) to drain.
		return rd(false)
	}
	return r // start, gosched, exit, block: only program order
}

// selectAccesses adds to r the accesses of a select that takes case cs
// (-1: its default). The case taken writes its channel. The select chose
// among its ready cases (a default: none was ready), so it reads what
// makes each other case ready: the channel (buffer, closed) and, for an
// unbuffered one, the queue of its partners. Taking a case commutes with
// making another case ready, but the latter adds a choice (local
// nondeterminism, which the DPOR algorithms do not model): treating them
// as dependent makes DPOR reverse them and explore that choice. A select
// that had arrived was chosen by its partner (or woken by a close): it
// leaves the queues it joined for its unbuffered cases.
func selectAccesses(r []access, cs int, cases []engine.ChanCase, side int, arrived bool) []access {
	if cs >= 0 && cs < len(cases) {
		if c := uintptr(cases[cs].Chan()); c != 0 {
			r = append(r, access{obj: c, write: true, side: side, tag: tagCase + cs})
		}
	}
	for j, cc := range cases {
		c := uintptr(cc.Chan())
		if c == 0 {
			continue
		}
		if j != cs {
			r = append(r, access{obj: c, side: side, tag: tagCase + j})
		}
		if j == cs || cc.Cap() == 0 && !arrived {
			r = pairAccesses(r, cases, j, arrived, side)
		} else if arrived {
			r = queueAccess(r, c, cc.IsSend(), true, side, tagLeave+j)
		}
	}
	return r
}

// pairAccesses adds to r the queue access of case j of an operation that
// takes it: an operation that had not arrived pairs with the oldest
// partner in the queue of its partners (read; on a buffered channel, the
// waiter its receive or send completes, if any); one that had arrived
// leaves its own queue (write).
func pairAccesses(r []access, cases []engine.ChanCase, j int, arrived bool, side int) []access {
	cc := cases[j]
	c := uintptr(cc.Chan())
	if c == 0 {
		return r
	}
	if arrived {
		return queueAccess(r, c, cc.IsSend(), true, side, tagLeave+j)
	}
	return queueAccess(r, c, !cc.IsSend(), false, side, tagPartner+j)
}

// arriveAccesses adds to r the accesses of an arrival: it happened
// because no case was ready, so it reads each case's channel and the
// queue of its partners (had a partner arrived first on an unbuffered
// channel, the operation would have completed with it); and it joins the
// queue of each case, which partners, and polls, read: on a buffered
// channel too, where the oldest waiter is the one a receive (or send)
// completes (the engine's handoff). (The engine keeps no queue on a
// timer's channel or a foreign buffered one: joining it there, in a
// select that arrives on other channels, only orders the step with the
// other arrivals on it.)
func arriveAccesses(r []access, cases []engine.ChanCase, side int) []access {
	for j, cc := range cases {
		c := uintptr(cc.Chan())
		if c == 0 {
			continue
		}
		r = append(r, access{obj: c, side: side, tag: tagCase + j})
		if cc.Cap() == 0 {
			r = queueAccess(r, c, !cc.IsSend(), false, side, tagPartner+j)
		}
		r = queueAccess(r, c, cc.IsSend(), true, side, tagJoin+j)
	}
	return r
}

func choiceKey(g *engine.G, k engine.OpKind, c int) string {
	if k == engine.OpSelect && c >= 0 {
		return g.ID + "#" + strconv.Itoa(c)
	}
	return g.ID
}

// timerEvent is the event of a timer firing, or of a late wake; ch is the
// address of the timer's channel, 0 if it has none. A firing sends on its
// channel: it hands the value to the oldest receive or select that
// arrived there (it reads the queue of receivers, which an arrival
// joins), or puts it in the buffer (which an arrival reads: had the value
// been there, the operation would not have arrived). It writes the world,
// which every step but an arrival reads: without the channel, a firing
// and an arrival on its channel were independent, and DPOR did not
// explore the firing before the arrival (TestDifferentialTimers).
func timerEvent(key, timer string, ch uintptr) *event {
	if timer == engine.LateWakeID {
		return &event{key: key, timer: timer, kinds: []engine.OpKind{engine.OpTimerFire}, acc: []access{{obj: clock, write: true}}}
	}
	acc := accesses(engine.OpTimerFire, 0, -1, nil, 0, false)
	if ch != 0 {
		acc = append(acc, access{obj: ch, write: true})
		acc = queueAccess(acc, ch, false, false, 0, tagPartner)
	}
	return &event{key: key, timer: timer, kinds: []engine.OpKind{engine.OpTimerFire}, acc: acc}
}

// readsClock adds to e the read of the clock by its side s.
func (e *event) readsClock(s int) {
	e.acc = append(e.acc, access{obj: clock, side: s})
}

// addSide adds goroutine g's side to e: its operation of kind k on obj,
// select case cs, channel cases, whether it has a default and whether it
// had arrived.
func (e *event) addSide(g *engine.G, k engine.OpKind, obj, group uintptr, cs int, cases []engine.ChanCase, dflt, arrived bool) {
	if k != engine.OpSelect {
		cs = -1
	}
	if cap(e.gs) == 0 {
		e.gs = e.gs1[:0]
	}
	if cap(e.cases) == 0 {
		e.cases = e.cases1[:0]
	}
	if cap(e.kinds) == 0 {
		e.kinds = e.kinds1[:0]
	}
	if cap(e.chans) == 0 {
		e.chans = e.chans1[:0]
	}
	if cap(e.dflt) == 0 {
		e.dflt = e.dflt1[:0]
	}
	if cap(e.acc) == 0 {
		e.acc = e.acc1[:0]
	}
	var woken []engine.ChanCase
	if k == engine.OpClose {
		// A close's cases are those of the goroutines it wakes, on
		// their other channels, not its own (engine.Exec.CloseWakes).
		woken, cases = cases, nil
	}
	s := len(e.gs)
	e.gs = append(e.gs, g)
	e.cases = append(e.cases, cs)
	e.kinds = append(e.kinds, k)
	e.chans = append(e.chans, cases)
	e.dflt = append(e.dflt, dflt)
	if k == engine.OpCondBlocked {
		obj = wakeOf(g)
	}
	e.acc = appendAccesses(e.acc, k, obj, cs, cases, s, arrived)
	for j, c := range woken {
		// The woken goroutine leaves the queues of its other channels:
		// a partner there that came before the close completed with it.
		e.acc = queueAccess(e.acc, uintptr(c.Chan()), c.IsSend(), true, s, tagWake+j)
	}
	if group != 0 && (k == engine.OpRacyRead || k == engine.OpRacyWrite || k == engine.OpRacyWriteEnd) {
		// A racy map access standing for its statement's group
		// (engine.Exec.MapIn): it reads the group, or writes it.
		e.acc = append(e.acc, access{obj: group, write: k != engine.OpRacyRead, side: s, tag: tagGroup})
	}
	if k == engine.OpRacyCommit {
		e.acc = append(e.acc, access{obj: group, write: true, side: s, tag: tagGroup},
			access{obj: uintptr(g.Buf()), write: true, side: s, tag: tagBuf})
	}
}

// closedRecv makes e, a receive of one goroutine that found its channel
// closed and empty (Step.ClosedRecv), a read of the channel: it received
// the zero value, which any other such receive, or a len, also reads in
// either order. The close, a send (which panics) and a receive of a value
// still write it. It neither pairs with a partner nor leaves a queue: the
// close emptied the queues of the channel's waiters. (A select's closed
// case keeps its write: the reversals of selects woken by a close
// (alternatives, closesCase) assume it, and optimal DPOR explored classes
// twice without it, on TestOptimalDPOROneRunPerClass's programs.)
func (e *event) closedRecv() {
	if len(e.gs) != 1 || e.kinds[0] != engine.OpRecv {
		return
	}
	acc := e.acc[:0]
	for _, a := range e.acc {
		if a.tag == tagLeave || a.tag == tagPartner {
			continue
		}
		if a.tag == tagOp && a.obj != world {
			a.write = false
		}
		acc = append(acc, a)
	}
	e.acc = acc
}

// reset empties e for reuse, keeping the room of its slices. It clears
// the fields one by one, and of the slices only the entries in use (those
// past their length were cleared by an earlier reset, or never written):
// POS resets an event per step, and zeroing the whole event (400 bytes,
// most of it the room of addSide) was a twelfth of a POS run of conc's
// iter tests. TestEventReset checks that no field is left out.
func (e *event) reset() {
	clear(e.gs)
	clear(e.chans)
	clear(e.acc)
	if cap(e.gs) > 1 || cap(e.chans) > 1 || cap(e.acc) > len(e.acc1) {
		// Grown out of the inline room, which still holds the first entries.
		e.gs1, e.chans1, e.acc1 = [1]*engine.G{}, [1][]engine.ChanCase{}, [3]access{}
	}
	e.gs, e.cases, e.kinds, e.chans, e.dflt, e.acc = e.gs[:0], e.cases[:0], e.kinds[:0], e.chans[:0], e.dflt[:0], e.acc[:0]
	e.key, e.n, e.pc, e.timer = "", 0, 0, ""
	e.proc, e.idx, e.vc, e.lvc = 0, 0, nil, nil
}

// pendingEvent is the event choice c would make at p (for an unbuffered
// rendezvous, with the partner that would complete it, which had
// arrived).
func pendingEvent(p *engine.Point, c engine.Choice) *event {
	if c.G == nil {
		return timerEvent(c.Key(), c.Timer.ID(), c.Timer.ChanAddr())
	}
	return pendingEventInto(new(event), p, c)
}

// pendingEventInto is pendingEvent for a goroutine choice, built in e
// (empty, or reset).
func pendingEventInto(e *event, p *engine.Point, c engine.Choice) *event {
	op := c.G.Pending()
	e.key, e.pc = c.Key(), op.PC
	k := op.Kind
	if c.Arrive {
		k = engine.OpArrive
	}
	cases := op.Cases
	if k == engine.OpClose {
		cases = p.Exec.CloseWakes(op.Obj)
	}
	e.addSide(c.G, k, opObj(op), opGroup(op), c.Case, cases, op.Dflt, c.G.Arrived())
	if k != engine.OpArrive {
		e.readsClock(0) // its step may read the clock: not known before it runs
	}
	if h, hc := p.Exec.ChoicePartner(c); h != nil {
		hop := h.Pending()
		e.addSide(h, hop.Kind, opObj(hop), opGroup(hop), hc, hop.Cases, hop.Dflt, true)
		e.readsClock(len(e.gs) - 1)
	}
	return e
}

// opObj is the object of op as the trace records it.
func opObj(op engine.Op) uintptr {
	if op.Kind == engine.OpSleep && op.Timer != nil {
		return uintptr(unsafe.Pointer(op.Timer))
	}
	return uintptr(op.Obj)
}

// opGroup is the group of racy statements a commit op writes (Step.Group).
func opGroup(op engine.Op) uintptr {
	switch op.Kind {
	case engine.OpRacyCommit:
		return uintptr(engine.RacyCommitGroup(op.Obj))
	case engine.OpRacyRead, engine.OpRacyWrite, engine.OpRacyWriteEnd:
		return uintptr(op.Group) // a map access's group (engine.Exec.MapIn)
	}
	return 0
}

// dependent reports whether a and b are dependent: they share a goroutine,
// or touch a common object and one of them writes it. lazy drops the
// conflicts between mutex transitions of different goroutines (seed-004
// §5.3, Def. 4).
func dependent(a, b *event, lazy bool) bool {
	for _, g := range a.gs {
		for _, h := range b.gs {
			if g == h {
				return true
			}
		}
	}
	if a.timer != "" && b.timer != "" {
		return true
	}
	for _, x := range a.acc {
		for _, y := range b.acc {
			if x.obj == y.obj && (x.write || y.write) && !(lazy && x.mutex && y.mutex) {
				return true
			}
		}
	}
	return false
}

// sameStep reports whether a and b are the same step of the same
// goroutines (for a rendezvous, whichever side initiated it).
func sameStep(a, b *event) bool { return a.matchesEvent(b) }

// runEvents builds the events of a trace incrementally and records the
// goroutine-creation edges (a go statement is not a step: the goroutine is
// created during the step of its parent that precedes the first
// scheduling point after it; observe is called at every Choose to catch
// that point, and End catches the rest).
type runEvents struct {
	ev      []*event
	pos     int               // trace entries consumed
	created map[*engine.G]int // creating event index, -1: before every event
	seenGs  int
	// free holds events that their user is done with (recycle), for
	// consume to reuse.
	free []*event
	// The wait list of each Cond (by address) in ticket order, and each
	// goroutine's OpCondWait steps in a row, to find the waiters a Signal
	// or Broadcast wakes (condWakes).
	condQueue map[uintptr][]*engine.G
	condWaits map[*engine.G]int
}

// maxFree bounds the events kept for reuse.
const maxFree = 4096

// newEvent returns an empty event, reused when one is free.
func (r *runEvents) newEvent() *event {
	if n := len(r.free); n > 0 {
		e := r.free[n-1]
		r.free[n-1] = nil
		r.free = r.free[:n-1]
		e.reset()
		return e
	}
	return new(event)
}

// recycle drops the events before the last one, which the caller will
// not look at again, and keeps them for reuse. (The last one stays: the
// partner of a rendezvous may still be added to it.)
func (r *runEvents) recycle() {
	n := len(r.ev)
	if n <= 1 {
		return
	}
	if room := maxFree - len(r.free); room > 0 {
		r.free = append(r.free, r.ev[:min(n-1, room)]...)
	}
	last := r.ev[n-1]
	clear(r.ev)
	r.ev = append(r.ev[:0], last)
}

func newRunEvents() *runEvents {
	return &runEvents{created: map[*engine.G]int{}}
}

// consume adds the trace entries not seen yet.
func (r *runEvents) consume(tr []engine.Step) {
	for ; r.pos < len(tr); r.pos++ {
		r.take(tr, r.pos)
	}
}

// take adds trace entry i.
func (r *runEvents) take(tr []engine.Step, i int) {
	st := &tr[i]
	if st.Kind == engine.OpExit || st.N == 0 {
		return
	}
	if st.G == nil {
		e := timerEvent("@"+st.Timer, st.Timer, st.Obj)
		e.n = st.N
		r.ev = append(r.ev, e)
		return
	}
	if n := len(r.ev); n > 0 && i > 0 && sameN(tr, i) {
		// The partner of an unbuffered rendezvous: same step.
		e := r.ev[n-1]
		e.addSide(st.G, st.Kind, st.Obj, st.Group, st.Case, st.Cases, st.Dflt, st.Arrived)
		if st.ReadsClock {
			e.readsClock(len(e.gs) - 1)
		}
		return
	}
	e := r.newEvent()
	e.fill(st)
	if st.ClosedRecv {
		e.closedRecv()
	}
	r.condWakes(e, st)
	r.ev = append(r.ev, e)
}

// condWakes follows the wait list of st's Cond, if st is a Cond step,
// replaying it in ticket order (engine.CondWait, CondSignal): a Signal
// wakes the oldest waiter, a Broadcast all of them. A Signal or
// Broadcast, event e, writes the wake of each waiter it woke (wakeOf).
// A waiter in a bubble takes a second OpCondWait, the window before it
// joins the notify list, which is no new wait; then OpCondBlocked, or,
// signalled in the window, its next wait.
func (r *runEvents) condWakes(e *event, st *engine.Step) {
	switch st.Kind {
	case engine.OpCondWait:
		if r.condWaits == nil {
			r.condWaits, r.condQueue = map[*engine.G]int{}, map[uintptr][]*engine.G{}
		}
		r.condWaits[st.G]++
		if r.condWaits[st.G]%2 == 1 {
			r.condQueue[st.Obj] = append(r.condQueue[st.Obj], st.G)
		}
	case engine.OpCondBlocked:
		delete(r.condWaits, st.G)
	case engine.OpCondSignal, engine.OpCondBroadcast:
		q := r.condQueue[st.Obj]
		n := 1
		if st.Kind == engine.OpCondBroadcast {
			n = len(q)
		}
		n = min(n, len(q))
		for j, g := range q[:n] {
			e.acc = append(e.acc, access{obj: wakeOf(g), write: true, tag: tagWoke + j})
		}
		if n > 0 {
			r.condQueue[st.Obj] = q[n:]
		}
	}
}

// fill makes empty event e the event of trace entry st, a goroutine's step.
func (e *event) fill(st *engine.Step) {
	e.key, e.pc, e.n = choiceKey(st.G, st.Kind, st.Case), st.PC, st.N
	e.addSide(st.G, st.Kind, st.Obj, st.Group, st.Case, st.Cases, st.Dflt, st.Arrived)
	if st.ReadsClock {
		e.readsClock(0)
	}
}

// partnered reports whether the next non-exit entry after i is a second
// entry of the step of entry i.
func partnered(tr []engine.Step, i int) bool {
	for j := i + 1; j < len(tr); j++ {
		if tr[j].Kind == engine.OpExit {
			continue
		}
		return tr[j].N == tr[i].N && tr[i].N != 0
	}
	return false
}

// sameN reports whether trace entry i is a second entry of the step of the
// previous non-exit entry.
func sameN(tr []engine.Step, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if tr[j].Kind == engine.OpExit {
			continue
		}
		return tr[j].N == tr[i].N && tr[j].N != 0
	}
	return false
}

// observe is called at each Choose: goroutines that appeared since the last
// call were created by the last step (a timer firing's AfterFunc), or by
// their parent's last step.
func (r *runEvents) observe(x *engine.Exec) {
	r.consume(x.Trace())
	gs := x.Gs()
	for ; r.seenGs < len(gs); r.seenGs++ {
		g := gs[r.seenGs]
		if _, ok := r.created[g]; ok || g.Parent == nil {
			continue
		}
		r.created[g] = r.creator(g, len(r.ev))
	}
}

func (r *runEvents) creator(g *engine.G, before int) int {
	if before > 0 && r.ev[before-1].timer != "" {
		return before - 1
	}
	for i := before - 1; i >= 0; i-- {
		for _, h := range r.ev[i].gs {
			if h == g.Parent {
				return i
			}
		}
	}
	return -1
}

// finish consumes the rest of the trace and the creation edges of the
// goroutines no Choose saw before they started: their first step followed
// their creation directly.
func (r *runEvents) finish(res *engine.Result) {
	r.consume(res.Trace)
	first := map[*engine.G]int{}
	for i, e := range r.ev {
		for _, g := range e.gs {
			if _, ok := first[g]; !ok {
				first[g] = i
			}
		}
	}
	for _, g := range res.Gs {
		if _, ok := r.created[g]; ok || g.Parent == nil {
			continue
		}
		if f, ok := first[g]; ok {
			r.created[g] = r.creator(g, f)
		} else {
			r.created[g] = r.creator(g, len(r.ev))
		}
	}
}

// hb computes the vector clocks of the events (and, if lazy, those of the
// lazy HBR). Clock entries count events per process: e → f iff
// f.vc[e.proc] >= e.idx.
func hb(ev []*event, created map[*engine.G]int, nprocs int, lazy bool) {
	type objClock struct{ w, r []int }
	objs := map[uintptr]*objClock{}
	procVC := map[int][]int{}
	count := make([]int, nprocs+1)
	join := func(a, b []int) []int {
		for i, x := range b {
			if x > a[i] {
				a[i] = x
			}
		}
		return a
	}
	for i, e := range ev {
		v := make([]int, nprocs+1)
		var procs []int
		if e.timer != "" {
			procs = []int{nprocs}
		} else {
			for _, g := range e.gs {
				procs = append(procs, g.Index)
			}
		}
		for _, pr := range procs {
			if pv, ok := procVC[pr]; ok {
				join(v, pv)
			} else if pr < nprocs {
				// The goroutine's first step: after the step that made it.
				for _, g := range e.gs {
					if g.Index == pr {
						if c, ok := created[g]; ok && c >= 0 && c < i {
							join(v, ev[c].vcOf(lazy))
						}
					}
				}
			}
		}
		for _, a := range e.acc {
			if lazy && a.mutex {
				continue
			}
			oc := objs[a.obj]
			if oc == nil {
				oc = &objClock{w: make([]int, nprocs+1), r: make([]int, nprocs+1)}
				objs[a.obj] = oc
			}
			join(v, oc.w)
			if a.write {
				join(v, oc.r)
			}
		}
		for _, pr := range procs {
			count[pr]++
			v[pr] = count[pr]
		}
		e.proc = procs[0]
		e.idx = count[procs[0]]
		for _, pr := range procs {
			procVC[pr] = v
		}
		for _, a := range e.acc {
			if lazy && a.mutex {
				continue
			}
			oc := objs[a.obj]
			if a.write {
				copy(oc.w, v)
				for k := range oc.r {
					oc.r[k] = 0
				}
			} else {
				join(oc.r, v)
			}
		}
		if lazy {
			e.lvc = v
		} else {
			e.vc = v
		}
	}
}

func (e *event) vcOf(lazy bool) []int {
	if lazy {
		return e.lvc
	}
	return e.vc
}

// before reports whether a happens before b (a ≠ b) in the computed HBR.
func before(a, b *event, lazy bool) bool {
	v := b.vcOf(lazy)
	return a != b && v[a.proc] >= a.idx
}

// classKey is a canonical form of the happens-before relation of ev: the
// set of events, each named by its goroutines, cases and kinds, with its
// vector clock over stable goroutine ids. Two traces have the same key iff
// they are linearizations of the same Mazurkiewicz trace.
func classKey(ev []*event, procName []string, lazy bool) string {
	parts := make([]string, len(ev))
	for i, e := range ev {
		var b strings.Builder
		if e.timer != "" {
			b.WriteString("@" + e.timer)
		}
		ids := make([]string, len(e.gs))
		for j, g := range e.gs {
			ids[j] = g.ID + "#" + strconv.Itoa(e.cases[j]) + ":" + e.kinds[j].String()
		}
		sort.Strings(ids)
		b.WriteString(strings.Join(ids, "+"))
		b.WriteString("|")
		v := e.vcOf(lazy)
		// By name: a process's index depends on the order the run made
		// it in (a store buffer's flusher, made at its goroutine's first
		// store, comes before or after another goroutine).
		var es []string
		for p, c := range v {
			if c > 0 {
				es = append(es, procName[p]+"="+strconv.Itoa(c)+",")
			}
		}
		sort.Strings(es)
		for _, x := range es {
			b.WriteString(x)
		}
		parts[i] = b.String()
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// Analysis of one finished run: its events with their happens-before.
type analysis struct {
	ev       []*event
	created  map[*engine.G]int
	procName []string
	idx      *depIndex // the race analysis's index of ev (DPOR.races)
}

func analyze(r *runEvents, res *engine.Result, lazy bool) *analysis {
	r.finish(res)
	n := len(res.Gs)
	hb(r.ev, r.created, n, false)
	if lazy {
		hb(r.ev, r.created, n, true)
	}
	names := make([]string, n+1)
	for _, g := range res.Gs {
		names[g.Index] = g.ID
	}
	names[n] = "@timers"
	return &analysis{ev: r.ev, created: r.created, procName: names}
}

// ClassCounter wraps a strategy and computes the canonical happens-before
// class of every run (the runs need engine.Config.Trace): two runs have the
// same class iff they are equivalent up to reordering independent steps,
// under the dependence relation of heddle.md §4 — that is, the same
// Mazurkiewicz trace. The lazy class uses the lazy HBR of seed-004 §5
// (mutex transitions of different goroutines independent). It must see
// every Choose, to place goroutine creations.
type ClassCounter struct {
	engine.Strategy
	re *runEvents
	// Last and LastLazy are the classes of the last run.
	Last, LastLazy string
	// HB and Lazy count the runs of each class.
	HB, Lazy map[string]int
}

// NewClassCounter wraps s.
func NewClassCounter(s engine.Strategy) *ClassCounter {
	return &ClassCounter{Strategy: s, HB: map[string]int{}, Lazy: map[string]int{}}
}

// NeedsTrace implements TraceNeeder.
func (c *ClassCounter) NeedsTrace() bool { return true }

// Begin implements engine.Strategy.
func (c *ClassCounter) Begin(run int) bool {
	c.re = newRunEvents()
	return c.Strategy.Begin(run)
}

// Choose implements engine.Strategy.
func (c *ClassCounter) Choose(p *engine.Point) int {
	c.re.observe(p.Exec)
	return c.Strategy.Choose(p)
}

// End implements engine.Strategy.
func (c *ClassCounter) End(r *engine.Result) {
	a := analyze(c.re, r, true)
	c.Last = classKey(a.ev, a.procName, false)
	c.LastLazy = classKey(a.ev, a.procName, true)
	c.HB[c.Last]++
	c.Lazy[c.LastLazy]++
	c.Strategy.End(r)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// depIndex indexes the events of a run for the race analysis, so that the
// steps a step depends on are found without scanning the run. Events are
// indexed by process (a goroutine's Index, or nprocs for the timers: a
// rendezvous is in both of its goroutines' processes) and, for every
// object, by the processes whose events access it, with the kind of
// access. The events of a process are totally ordered by happens-before
// (program order), so of the steps of a process that a step x depends on,
// only the latest can fail to happen before a later one: the latest
// dependent event of each process, found by binary search, stands for all
// the others (their vector clocks are below its).
type depIndex struct {
	ev     []*event
	nprocs int
	byProc [][]int32 // the events of each process, ascending
	objs   map[uintptr]*objIndex
	lazy   *lazyIndex // for lazy DPOR
	// buffers
	best  []int32
	clock []int
	met   []bool
	cands []int
}

// Kinds of access lists: the accesses a step x depends on through one of
// its accesses, by whether x's access writes and whether it is a mutex
// transition under the lazy HBR (dependent only on non-mutex accesses).
const (
	accAll = iota
	accWrite
	accNonMutex
	accNonMutexWrite
	accKinds
)

// objIndex is the events of each process that access one object.
type objIndex struct {
	procs [accKinds][]int      // the processes with accesses of each kind
	by    []*[accKinds]accList // by process
	// mutex: the object has mutex accesses. Until it has, the lists of
	// non-mutex accesses are not kept: they are those of all accesses.
	mutex bool
}

// kind is the list that stands for kind k.
func (oi *objIndex) kind(k int) int {
	if !oi.mutex {
		switch k {
		case accNonMutex:
			return accAll
		case accNonMutexWrite:
			return accWrite
		}
	}
	return k
}

// addMutex records that the object has mutex accesses: the lists of its
// non-mutex accesses so far are copied from those of all accesses.
func (oi *objIndex) addMutex() {
	oi.mutex = true
	for _, k := range [][2]int{{accAll, accNonMutex}, {accWrite, accNonMutexWrite}} {
		oi.procs[k[1]] = append([]int(nil), oi.procs[k[0]]...)
		for _, ls := range oi.by {
			if ls != nil {
				l := ls[k[0]]
				ls[k[1]] = accList{ev: append([]int32(nil), l.ev...), partner: append([]int32(nil), l.partner...), runStart: append([]int32(nil), l.runStart...)}
			}
		}
	}
}

// add appends event i of process p (with partner, see accList) to the
// list of kind.
func (oi *objIndex) add(p, kind int, i, partner int32) {
	ls := oi.by[p]
	if ls == nil {
		ls = &[accKinds]accList{}
		oi.by[p] = ls
	}
	if len(ls[kind].ev) == 0 {
		oi.procs[kind] = append(oi.procs[kind], p)
	}
	ls[kind].add(i, partner)
}

// accList is an ascending list of event indices, each with the other
// goroutine of its event if it is a rendezvous (-1 otherwise), and the
// position of the first entry of the run of entries with the same
// partner, to skip the rendezvous of a process with one goroutine at once.
type accList struct {
	ev, partner, runStart []int32
}

func (l *accList) add(i, partner int32) {
	n := len(l.ev)
	if n > 0 && l.ev[n-1] == i {
		return
	}
	start := int32(n)
	if n > 0 && l.partner[n-1] == partner {
		start = l.runStart[n-1]
	}
	l.ev = append(l.ev, i)
	l.partner = append(l.partner, partner)
	l.runStart = append(l.runStart, start)
}

// lastBefore returns the position of the last entry below j, or -1.
func lastBefore(l []int32, j int) int {
	lo, hi := 0, len(l) // first position with l[pos] >= j
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(l[m]) < j {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// procsOf returns the processes of e: its goroutines' indices, or nprocs
// for a timer firing.
func procsOf(e *event, nprocs int, buf []int) []int {
	buf = buf[:0]
	if e.timer != "" {
		return append(buf, nprocs)
	}
	for _, g := range e.gs {
		buf = append(buf, g.Index)
	}
	return buf
}

func newDepIndex(ev []*event, nprocs int) *depIndex {
	x := &depIndex{ev: ev, nprocs: nprocs, byProc: make([][]int32, nprocs+1), objs: map[uintptr]*objIndex{}}
	x.best = make([]int32, nprocs+1)
	x.clock = make([]int, nprocs+1)
	x.met = make([]bool, nprocs+1)
	var procs []int
	for i, e := range ev {
		procs = procsOf(e, nprocs, procs)
		for _, p := range procs {
			x.byProc[p] = append(x.byProc[p], int32(i))
		}
		for _, a := range e.acc {
			oi := x.objs[a.obj]
			if oi == nil {
				oi = &objIndex{by: make([]*[accKinds]accList, nprocs+1)}
				x.objs[a.obj] = oi
			}
			for _, p := range procs {
				partner := int32(-1)
				if len(e.gs) == 2 {
					for _, g := range e.gs {
						if g.Index != p {
							partner = int32(g.Index)
						}
					}
				}
				if a.mutex && !oi.mutex {
					oi.addMutex()
				}
				oi.add(p, accAll, int32(i), partner)
				if a.write {
					oi.add(p, accWrite, int32(i), partner)
				}
				if !a.mutex && oi.mutex {
					oi.add(p, accNonMutex, int32(i), partner)
					if a.write {
						oi.add(p, accNonMutexWrite, int32(i), partner)
					}
				}
			}
		}
	}
	return x
}

// depKind is the list of the accesses that conflict with the access a of
// a step (dependent, with lazy: under the lazy HBR).
func depKind(a access, lazy bool) int {
	switch {
	case lazy && a.mutex && a.write:
		return accNonMutex
	case lazy && a.mutex:
		return accNonMutexWrite
	case a.write:
		return accAll
	}
	return accWrite
}

// latestDeps returns, for every process, the latest event before j that x
// depends on (with lazy: under the lazy HBR), in descending order without
// repetitions. Every event before j that x depends on is one of them or
// happens before one of them.
func (x *depIndex) latestDeps(j int, s *event, lazy bool, out []int) []int {
	best := x.best
	for p := range best {
		best[p] = -1
	}
	for _, a := range s.acc {
		oi := x.objs[a.obj]
		if oi == nil {
			continue
		}
		kind := oi.kind(depKind(a, lazy))
		for _, p := range oi.procs[kind] {
			l := oi.by[p][kind].ev
			if pos := lastBefore(l, j); pos >= 0 && l[pos] > best[p] {
				best[p] = l[pos]
			}
		}
	}
	self := func(p int) {
		l := x.byProc[p]
		if pos := lastBefore(l, j); pos >= 0 && l[pos] > best[p] {
			best[p] = l[pos]
		}
	}
	if s.timer != "" {
		self(x.nprocs)
	}
	for _, g := range s.gs {
		self(g.Index)
	}
	out = out[:0]
	for _, b := range best {
		if b >= 0 {
			out = append(out, int(b))
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(out)))
	return x.dependentOf(out, s, lazy)
}

// dependentOf keeps, in out (sorted, possibly with repeats), each event
// once, and only those s depends on (with lazy: under the lazy HBR).
func (x *depIndex) dependentOf(out []int, s *event, lazy bool) []int {
	n := 0
	for i, k := range out {
		if i > 0 && k == out[n-1] {
			continue
		}
		if dependent(x.ev[k], s, lazy) {
			out[n] = k
			n++
		}
	}
	return out[:n]
}

// depsIn returns the events in [lo, hi) that s depends on (with lazy:
// under the lazy HBR), ascending.
func (x *depIndex) depsIn(lo, hi int, s *event, lazy bool) []int {
	var out []int
	add := func(l []int32) {
		for pos := lastBefore(l, lo) + 1; pos < len(l) && int(l[pos]) < hi; pos++ {
			out = append(out, int(l[pos]))
		}
	}
	for _, a := range s.acc {
		oi := x.objs[a.obj]
		if oi == nil {
			continue
		}
		kind := oi.kind(depKind(a, lazy))
		for _, p := range oi.procs[kind] {
			add(oi.by[p][kind].ev)
		}
	}
	if s.timer != "" {
		add(x.byProc[x.nprocs])
	}
	for _, g := range s.gs {
		add(x.byProc[g.Index])
	}
	sort.Ints(out)
	return x.dependentOf(out, s, lazy)
}

// count returns the number of events of process p before j.
func (x *depIndex) count(p, j int) int { return lastBefore(x.byProc[p], j) + 1 }

// extendHB is the package's extendHB (the vector clocks of x as if it ran
// right after ev[:j]), from the latest dependent event of each process.
func (x *depIndex) extendHB(j int, s *event, created map[*engine.G]int) {
	nprocs := x.nprocs
	v := make([]int, nprocs+1)
	lv := make([]int, nprocs+1)
	x.cands = x.latestDeps(j, s, false, x.cands)
	for _, k := range x.cands {
		joinInto(v, x.ev[k].vc)
	}
	if j > 0 && x.ev[0].lvc != nil {
		x.cands = x.latestDeps(j, s, true, x.cands)
		for _, k := range x.cands {
			joinInto(lv, x.ev[k].lvc)
		}
	}
	procs := []int{nprocs}
	if s.timer == "" {
		procs = procs[:0]
		for _, g := range s.gs {
			procs = append(procs, g.Index)
		}
	}
	for _, g := range s.gs {
		if x.count(g.Index, j) == 0 {
			if c, ok := created[g]; ok && c >= 0 && c < j {
				joinInto(v, x.ev[c].vc)
				if x.ev[c].lvc != nil {
					joinInto(lv, x.ev[c].lvc)
				}
			}
		}
	}
	for _, pr := range procs {
		n := x.count(pr, j)
		v[pr] = n + 1
		lv[pr] = n + 1
	}
	s.vc = v
	s.lvc = lv
	s.proc = procs[0]
	s.idx = v[procs[0]]
}

// races is raceScan (dpor.go) from the index: the events of ev[:j] whose
// race with s is to be reversed, in descending order. The candidates are
// the latest event s depends on of each process (an event that is not
// one of them happens before one, so it is no direct race) and, with
// alone, the latest event of each goroutine that conflicts with s on its
// own channel; raceScan's loop then runs on them alone, with the join of
// the vector clocks of the later candidates standing for its test
// "happens before a later dependent event".
func (x *depIndex) races(j int, s *event, alone, lazy bool, out []int) []int {
	cands := x.latestDeps(j, s, lazy, x.cands)
	if alone && s.timer == "" && len(s.gs) == 1 {
		h := s.gs[0].Index
		k := s.cases[0]
		if k < 0 {
			k = 0
		}
		n := len(cands)
		for _, ax := range s.acc {
			if ax.tag != tagOp && ax.tag != tagCase+k && ax.tag != tagPartner+k || pseudo(ax.obj) {
				continue
			}
			oi := x.objs[ax.obj]
			if oi == nil {
				continue
			}
			kind := accWrite
			if ax.write {
				kind = accAll
			}
			for _, p := range oi.procs[kind] {
				if p == h || p == x.nprocs {
					continue
				}
				l := &oi.by[p][kind]
				for pos := lastBefore(l.ev, j); pos >= 0; {
					if int(l.partner[pos]) == h {
						// A rendezvous with s's goroutine: not a race.
						pos = int(l.runStart[pos]) - 1
						continue
					}
					if dependent(x.ev[l.ev[pos]], s, lazy) {
						cands = append(cands, int(l.ev[pos]))
						break
					}
					pos--
				}
			}
		}
		if len(cands) > n {
			sort.Sort(sort.Reverse(sort.IntSlice(cands)))
			m := 0
			for i, k := range cands {
				if i == 0 || k != cands[m-1] {
					cands[m] = k
					m++
				}
			}
			cands = cands[:m]
		}
	}
	x.cands = cands
	c := x.clock
	for i := range c {
		c[i] = 0
	}
	for _, k := range cands {
		e := x.ev[k]
		v := e.vcOf(lazy)
		if shareG(e, s) && !competing(e, s) {
			joinInto(c, v)
			continue
		}
		direct := c[e.proc] < e.idx
		if alone && ownConflict(e, s) {
			fresh := false
			for _, g := range e.gs {
				if !x.met[g.Index] {
					fresh = true
					x.met[g.Index] = true
				}
			}
			direct = direct || fresh
		}
		joinInto(c, v)
		if direct {
			out = append(out, k)
		}
	}
	for _, k := range cands {
		for _, g := range x.ev[k].gs {
			x.met[g.Index] = false
		}
	}
	return out
}
