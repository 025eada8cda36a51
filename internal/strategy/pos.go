package strategy

import (
	"unsafe"

	"heddle.dev/internal/engine"
)

// POS is partial order sampling (Yuan, Yang and Gu, CAV 2018): every
// pending event gets a random priority; the enabled event of highest
// priority runs; after an event runs, the events that race with it (the
// pending events of other goroutines that are dependent with it) get
// fresh random priorities. Unlike random walk, POS samples partial orders
// nearly uniformly instead of favouring those with many linearizations.
//
// Events are identified by choice key and the goroutine's pending
// operation; dependence is that of heddle.md §4. Timers firing early get
// a quarter of the priority range, as in Random.
type POS struct {
	seed int64
	rng  *rng
	// prio holds the priorities of goroutine events, by goroutine index:
	// one slot per select case of a choice key; the slot of key -1 (no
	// select case, most choices) is in main, in one array (a Choose
	// looks at the slot of every choice: a thousand waiters on a mutex).
	prio [][]posSlot
	main []posSlot
	// tprio holds those of timer events, by choice key.
	tprio map[string]posSlot
	re    *runEvents
	seen  int
	objs  []uintptr // scratch: the objects of a step (mayShare), as addresses
	// Scratch of Choose: the pending events of its choices, built when
	// needed (pend[i] nil otherwise), in events reused from pool.
	pend []*event
	pool []*event
	// at[i] is the slot of goroutine choice i of the current Choose
	// (nil for a timer's), each looked up once per call, not once per
	// step looked at and again for the priorities. Pointers are taken
	// once every slot of the call exists: creating one may move others.
	at []*posSlot
	// idx is scratch of Choose: the index in prio[g] of the slot of
	// each select choice, -1 for the others.
	idx []int
	// used is the number of events of pool in use in pend.
	used int
	// step is the scratch event of a simple step (takeSimple), full that
	// of its complete event (completeStep); simpleN is the number of the
	// last simple step taken.
	step, full event
	simpleN    int
	stepSt     *engine.Step // the trace entry of step
	// Tests: noMemo makes resetRacing decide every choice without its
	// memo; memoHits counts the choices the memo decided, memoLooks the
	// plain choices it was asked about (with the memo on).
	noMemo    bool
	memoHits  int
	memoLooks int
	// Tests: noBare makes resetRacing decide a plain choice from its
	// goroutine's pending Op, as for any other; bareHits counts the
	// choices decided from their kind and object alone.
	noBare   bool
	bareHits int
	// Tests: with trackDraws, drawn is the indices of the goroutine
	// choices the last Choose drew a new priority for.
	trackDraws bool
	drawn      []int
}

// posSlot is the priority of one event, and the operation it was drawn
// for; ok is false when there is none.
type posSlot struct {
	kc int // the choice key's select case, or -1
	pr float64
	op engine.OpKind
	ok bool
}

// NewPOS returns a partial order sampling strategy.
func NewPOS(seed int64) *POS { return &POS{seed: seed} }

// NeedsTrace implements TraceNeeder: POS reads the steps taken between
// its choices to reset the priorities of racing events.
func (s *POS) NeedsTrace() bool { return true }

// Begin implements engine.Strategy.
func (s *POS) Begin(run int) bool {
	s.rng = runRNG(s.seed, run)
	for i := range s.prio {
		s.prio[i] = s.prio[i][:0]
	}
	s.main = s.main[:0]
	s.tprio = map[string]posSlot{}
	var free []*event
	if s.re != nil {
		s.re.recycle()
		free = s.re.free
	}
	s.re = newRunEvents()
	s.re.free = free
	s.seen = 0
	s.simpleN = 0
	return true
}

// keyCase is the part of a goroutine choice's key after the goroutine id:
// the select case, or -1.
func keyCase(c engine.Choice) int {
	if c.Select && c.Case >= 0 {
		return c.Case
	}
	return -1
}

// slot returns the priority slot of goroutine choice c, creating it.
func (s *POS) slot(c engine.Choice) *posSlot {
	return s.slotOf(c, s.slotAt(c))
}

// slotOf returns the priority slot of goroutine choice c at index j
// (slotAt).
func (s *POS) slotOf(c engine.Choice, j int) *posSlot {
	if j < 0 {
		return &s.main[c.G.Index]
	}
	return &s.prio[c.G.Index][j]
}

// slots returns the priority slot of each choice of cs (nil for a timer's),
// creating them: first every slot (main grown once, to the largest
// goroutine index), then the pointers, which no creation moves after.
func (s *POS) slots(cs []engine.Choice) []*posSlot {
	// Most points have no select case among their choices, and no
	// goroutine without a slot: then one pass takes every pointer, as no
	// slot is created.
	at := s.at[:0]
	for i := range cs {
		c := &cs[i]
		if c.G == nil {
			at = append(at, nil)
			continue
		}
		// GoIndex, PendingKind and PendingObj below: no load from
		// each goroutine (ants' pools offer hundreds at every point).
		gi := c.GoIndex()
		if (c.Select && c.Case >= 0) || gi >= len(s.main) {
			s.at = at
			return s.slotsNew(cs)
		}
		at = append(at, &s.main[gi])
	}
	s.at = at
	return at
}

// slotsNew is slots when a slot may have to be created.
func (s *POS) slotsNew(cs []engine.Choice) []*posSlot {
	idx := s.idx[:0]
	top := -1
	for i := range cs {
		c := &cs[i]
		j := -1
		if c.G != nil {
			if c.Select && c.Case >= 0 {
				j = s.slotAt(*c)
			} else {
				top = max(top, c.G.Index)
			}
		}
		idx = append(idx, j)
	}
	s.idx = idx
	if top >= len(s.main) {
		s.main = append(s.main, make([]posSlot, top+1-len(s.main))...)
	}
	at := s.at[:0]
	for i := range cs {
		c := &cs[i]
		switch {
		case c.G == nil:
			at = append(at, nil)
		case idx[i] < 0:
			at = append(at, &s.main[c.G.Index])
		default:
			at = append(at, &s.prio[c.G.Index][idx[i]])
		}
	}
	s.at = at
	return at
}

// slotAt returns the index in s.prio[c.G.Index] of the priority slot of
// goroutine choice c, or -1 for its slot in s.main, creating it. (An
// index, not a pointer: creating another slot may move them.)
func (s *POS) slotAt(c engine.Choice) int {
	i := c.G.Index
	kc := keyCase(c)
	if kc < 0 {
		for len(s.main) <= i {
			s.main = append(s.main, posSlot{})
		}
		return -1
	}
	for len(s.prio) <= i {
		s.prio = append(s.prio, nil)
	}
	sl := s.prio[i]
	for j := range sl {
		if sl[j].kc == kc {
			return j
		}
	}
	s.prio[i] = append(sl, posSlot{kc: kc})
	return len(sl)
}

// forget drops the priority of choice c.
func (s *POS) forget(c engine.Choice) {
	if c.G == nil {
		delete(s.tprio, c.Key())
		return
	}
	s.slot(c).ok = false
}

// Choose implements engine.Strategy.
func (s *POS) Choose(p *engine.Point) int {
	at := s.slots(p.Choices)
	s.pend = s.pend[:0]
	s.used = 0
	s.consume(p, at)
	// Reset the priorities of the pending events that race with the
	// steps taken since the last choice.
	for ; s.seen < len(s.re.ev); s.seen++ {
		s.resetRacing(p, at, s.re.ev[s.seen], false)
	}
	// The events before the last one are not looked at again (the last
	// one may still gain the partner of a rendezvous): drop them, so that
	// a long run does not keep one event per step.
	if len(s.re.ev) > 1 {
		s.re.recycle()
		s.seen = 1
	}
	if s.trackDraws {
		s.drawn = s.drawn[:0]
	}
	best, bestP := 0, -1.0
	for i := range p.Choices {
		c := &p.Choices[i] // not a copy of every choice
		var pr float64
		if c.G == nil {
			k := c.Key()
			op := engine.OpTimerFire
			sl, ok := s.tprio[k]
			if !ok || sl.op != op {
				pr = s.draw(c)
				s.tprio[k] = posSlot{pr: pr, op: op, ok: true}
			} else {
				pr = sl.pr
			}
		} else {
			sl := at[i]
			op := c.PendingKind()
			if !sl.ok || sl.op != op {
				// A new event: a goroutine's next operation.
				sl.pr, sl.op, sl.ok = s.draw(c), op, true
				if s.trackDraws {
					s.drawn = append(s.drawn, i)
				}
			}
			pr = sl.pr
		}
		if pr > bestP {
			best, bestP = i, pr
		}
	}
	// The event taken is done: its goroutine's next event is new.
	if c := &p.Choices[best]; c.G != nil {
		at[best].ok = false
	} else {
		s.forget(*c)
	}
	return best
}

// draw is a new random priority for c.
func (s *POS) draw(c *engine.Choice) float64 {
	pr := s.rng.Float64()
	if c.Early > 0 {
		pr /= 4
	}
	return pr
}

// racesWithAll reports whether step e is dependent with the pending event
// of every goroutine choice that does not share a goroutine with it:
// every pending event reads virtual time, and the clock (a step not yet
// run may read it), so a step that writes either races with all of them.
func racesWithAll(e *event) bool {
	for _, a := range e.acc {
		if (a.obj == world || a.obj == clock) && a.write {
			return true
		}
	}
	return false
}

// writesWorld reports whether an operation of kind k writes virtual time
// (accesses), which every step reads.
func writesWorld(k engine.OpKind) bool {
	switch k {
	case engine.OpSleep, engine.OpTimerFire, engine.OpTimerStop, engine.OpCancel:
		return true
	}
	return false
}

// stepObjects appends the objects e accesses, other than pseudo-objects,
// with the channels of its queues.
func stepObjects(objs []uintptr, e *event) []uintptr {
	for _, a := range e.acc {
		if pseudo(a.obj) {
			continue
		}
		// A queue's object is its channel's address plus 1 or 2
		// (queueOf); both candidates are kept, a false match only costs
		// an exact test. (Addresses, not pointers: a.obj-1 may point
		// outside any object, which the garbage collector rejects.)
		o := uintptr(a.obj)
		objs = append(objs, o, o-1, o-2)
	}
	return objs
}

// mayShare reports whether an operation may access an object of the step
// whose objects are s.objs: its object, or one of its channels. It has no
// false negatives: every object of a pending event is one of these, or a
// queue of one of its channels, or a pseudo-object.
func (s *POS) mayShare(op engine.Op) bool {
	switch op.Kind {
	case engine.OpRacyCommit:
		return true // its group and buffer are not its Obj (engine/storebuf.go)
	case engine.OpFSRead, engine.OpFSWrite:
		return true // the file tree's names are not its Obj (fsNames)
	}
	if op.Group != nil {
		return true // a map access standing for its racy group (engine.Exec.MapIn)
	}
	for _, o := range s.objs {
		if o == uintptr(op.Obj) || (op.Timer != nil && o == uintptr(unsafe.Pointer(op.Timer))) {
			return true
		}
		for _, c := range op.Cases {
			if o == uintptr(c.Chan()) {
				return true
			}
		}
	}
	return false
}

// mayShareObj is mayShare for an operation of kind k on obj with no
// timer, channel cases or group (engine.Choice.PendingObj's plain ones).
func (s *POS) mayShareObj(k engine.OpKind, obj unsafe.Pointer) bool {
	switch k {
	case engine.OpRacyCommit, engine.OpFSRead, engine.OpFSWrite:
		return true
	}
	for _, o := range s.objs {
		if o == uintptr(obj) {
			return true
		}
	}
	return false
}

// inEvent reports whether g is a goroutine of e.
func inEvent(e *event, g *engine.G) bool {
	for _, h := range e.gs {
		if h == g {
			return true
		}
	}
	return false
}

// End implements engine.Strategy.
func (s *POS) End(*engine.Result) {}

// resetRacing's verdicts on a plain operation (its memo).
const (
	posNoRace = 1 + iota
	posRace
)

// posMemoSize is how many verdicts resetRacing's memo keeps.
const posMemoSize = 4

// posMemo is resetRacing's memo of its verdicts on plain operations, for
// one step: the kind and object of each, replaced in turn.
type posMemo struct {
	kind [posMemoSize]engine.OpKind
	obj  [posMemoSize]unsafe.Pointer
	v    [posMemoSize]uint8 // 0: none; posNoRace; posRace
	next int
}

// get returns the verdict kept on an operation of kind k on obj, or 0.
func (m *posMemo) get(k engine.OpKind, obj unsafe.Pointer) uint8 {
	for i := range m.v {
		if m.v[i] != 0 && m.kind[i] == k && m.obj[i] == obj {
			return m.v[i]
		}
	}
	return 0
}

// put keeps verdict v on an operation of kind k on obj, in place of the
// oldest.
func (m *posMemo) put(k engine.OpKind, obj unsafe.Pointer, v uint8) {
	i := m.next
	m.kind[i], m.obj[i], m.v[i] = k, obj, v
	m.next = (i + 1) % posMemoSize
}

// What the pending event of a goroutine's operation accesses besides
// virtual time, for the operations whose accesses do not depend on their
// channel cases (simpleAcc): nothing, or its object, read or written.
const (
	posWorld = 1 + iota
	posRead
	posWrite
)

// simpleAcc classifies each kind of operation by the accesses of its
// pending event (accesses, with no channel cases): 0 when they are not
// one of the simple shapes above.
var simpleAcc = func() (t [256]uint8) {
	var x int
	obj := uintptr(unsafe.Pointer(&x))
	for k := 0; k < 256; k++ {
		switch engine.OpKind(k) {
		case engine.OpSend, engine.OpRecv, engine.OpSelect, engine.OpArrive:
			continue // their accesses depend on their cases
		case engine.OpRacyCommit, engine.OpCondBlocked:
			continue // and on the goroutine (addSide; wakeOf)
		}
		acc := accesses(engine.OpKind(k), obj, -1, nil, 0, false)
		switch {
		case len(acc) == 0 || acc[0].obj != world || acc[0].write:
		case len(acc) == 1:
			t[k] = posWorld
		case len(acc) == 2 && acc[1].obj == obj && acc[1].tag == 0:
			t[k] = posRead
			if acc[1].write {
				t[k] = posWrite
			}
		}
	}
	return t
}()

// simpleObj is, for each kind simpleAcc classifies posRead or posWrite,
// the access of its pending event (and of its step) to its object, with
// obj unset; simpleWorld is the access to virtual time every simple kind
// starts with. takeSimple builds a simple step's accesses from them, as
// appendAccesses would (TestSimpleAccessesAsAppendAccesses).
var simpleObj, simpleWorld = func() (t [256]access, w access) {
	var x int
	obj := uintptr(unsafe.Pointer(&x))
	for k := 0; k < 256; k++ {
		if simpleAcc[k] == 0 {
			continue
		}
		acc := accesses(engine.OpKind(k), obj, -1, nil, 0, false)
		w = acc[0]
		if len(acc) == 2 {
			t[k] = acc[1]
			t[k].obj = 0
		}
	}
	return t, w
}()

// appendSimple appends the accesses of a step of simple kind k (simpleAcc
// not 0) on obj: appendAccesses(dst, k, obj, -1, nil, 0, false), without
// its switch.
func appendSimple(dst []access, k engine.OpKind, obj uintptr) []access {
	dst = append(dst, simpleWorld)
	if simpleAcc[k] != posWorld {
		a := simpleObj[k]
		a.obj = obj
		dst = append(dst, a)
	}
	return dst
}

// touches reports whether step e accesses obj in a way that conflicts
// with an access to it (a write, or any access if write).
func touches(e *event, obj uintptr, write bool) bool {
	for _, a := range e.acc {
		if a.obj == obj && (a.write || write) {
			return true
		}
	}
	return false
}

// resetRacing resets the priorities of the pending events of p's choices
// (their slots at) that race with step e. Building a choice's pending
// event costs allocations, and there may be thousands of choices: a cheap
// test on the step first tells the choices that cannot race with it. The
// pending events built are kept in s.pend for the rest of the Choose.
// simple is set when e is POS's scratch event of a simple step
// (takeSimple), which has its goroutine and its accesses only: its
// complete event is built before dependent looks at it.
func (s *POS) resetRacing(p *engine.Point, at []*posSlot, e *event, simple bool) {
	all := racesWithAll(e)
	if !all {
		s.objs = stepObjects(s.objs[:0], e)
	}
	// The verdicts on the last plain operations (no channel cases, no
	// timer) decided without building their pending events: for one
	// without a partner, it depends only on its kind and object, the same
	// for a thousand waiters on one mutex. A few are kept, not one: ants'
	// pools offer their spin lock's goroutines in Gosched, at its
	// compare-and-swap and at loads, in turn, and a memo of the last one
	// was replaced at almost every choice.
	var memo posMemo
	for i := range p.Choices {
		// Not a copy of the choice: a range copy of each was a stall
		// (its overlapping stores), 11% of resetRacing's samples.
		c := &p.Choices[i]
		if c.G == nil {
			// A timer's firing writes virtual time, which every
			// step reads.
			s.forget(*c)
			continue
		}
		sl := at[i]
		if !sl.ok {
			continue // nothing to reset
		}
		var h *engine.G
		if c.Case >= 0 {
			// A choice without a case has no partner (ChoicePartner).
			h, _ = p.Exec.ChoicePartner(choiceFields(c))
		}
		if inEvent(e, c.G) || (h != nil && inEvent(e, h)) {
			continue // program order, not a race
		}
		// plain: the verdict below depends on kind and obj only.
		kind, obj, bare := c.PendingObj()
		plain := bare && !all && h == nil && !c.Arrive && !s.noMemo
		if plain {
			s.memoLooks++
			if v := memo.get(kind, obj); v != 0 {
				s.memoHits++
				if v == posRace {
					sl.ok = false
				}
				continue
			}
		}
		if !all && !writesWorld(kind) && (h == nil || !writesWorld(h.PendingKind())) {
			if bare && h == nil && !c.Arrive && !s.noBare {
				s.bareHits++
				// The verdicts below from kind and obj alone: an
				// operation with no timer, case or group is its kind
				// and object to mayShare, simpleAcc and opObj. No copy
				// of the goroutine's pending Op (a load of its cache
				// lines and 80 bytes passed to mayShare): a tenth of
				// resetRacing on conc's iter tests, whose every step
				// looks at the other worker's atomic add.
				if !s.mayShareObj(kind, obj) {
					if plain {
						memo.put(kind, obj, posNoRace)
					}
					continue
				}
				if a := simpleAcc[kind]; a != 0 {
					if a == posWorld || !touches(e, uintptr(obj), a == posWrite) {
						if plain {
							memo.put(kind, obj, posNoRace)
						}
						continue
					}
					if plain {
						memo.put(kind, obj, posRace)
					}
					sl.ok = false
					continue
				}
			}
			op := c.G.Pending()
			if !s.mayShare(op) && (h == nil || !s.mayShare(h.Pending())) {
				if plain {
					memo.put(kind, obj, posNoRace)
				}
				continue
			}
			if a := simpleAcc[op.Kind]; h == nil && !c.Arrive && a != 0 {
				// The pending event reads virtual time, which e
				// does not write (!all), and reads or writes its
				// object: no need to build it.
				if a == posWorld || !touches(e, opObj(op), a == posWrite) {
					if plain {
						memo.put(kind, obj, posNoRace)
					}
					continue
				}
				if plain {
					memo.put(kind, obj, posRace)
				}
				sl.ok = false
				continue
			}
			if len(s.pend) == 0 {
				if cap(s.pend) < len(p.Choices) {
					s.pend = make([]*event, len(p.Choices))
				}
				s.pend = s.pend[:len(p.Choices)]
				clear(s.pend)
			}
			if s.pend[i] == nil {
				if s.used == len(s.pool) {
					s.pool = append(s.pool, new(event))
				}
				pe := s.pool[s.used]
				s.used++
				pe.reset()
				s.pend[i] = pendingEventInto(pe, p, *c)
			}
			if simple {
				e = s.completeStep()
				simple = false
			}
			if !dependent(e, s.pend[i], false) {
				continue
			}
		}
		sl.ok = false
	}
}

// choiceFields returns *c built field by field: a copy of *c as a whole
// goes through a stack temporary with overlapping 16-byte moves, whose
// fields' loads then wait for the stores (resetRacing, per choice).
func choiceFields(c *engine.Choice) engine.Choice {
	return engine.Choice{G: c.G, Case: c.Case, Select: c.Select, Arrive: c.Arrive, Timer: c.Timer, Early: c.Early}
}

// posFast turns POS's look at simple steps without their event on
// (consume); tests turn it off to compare.
var posFast = true

// consume takes the trace entries added since the last Choose. A simple
// step (one goroutine's operation whose accesses are those simpleAcc
// classifies, and no rendezvous partner) is looked at at once, in a
// scratch event that holds only what resetRacing reads, instead of an
// event of s.re built, kept until the next Choose and recycled (most steps
// of a run of atomics or locks: a sixth of a POS run of conc's iter
// tests). The others become events of s.re, looked at by Choose. The order
// in which the steps are looked at does not matter: each only resets
// slots.
func (s *POS) consume(p *engine.Point, at []*posSlot) {
	tr := p.Exec.Trace()
	r := s.re
	for ; r.pos < len(tr); r.pos++ {
		st := &tr[r.pos]
		if st.Kind == engine.OpExit || st.N == 0 {
			continue
		}
		if st.N == s.simpleN && sameN(tr, r.pos) {
			// A second entry of a simple step already looked at (none
			// is expected): runEvents.consume adds it to that step's
			// event, looked at already, which changes nothing.
			continue
		}
		if posFast && st.G != nil && simpleAcc[st.Kind] != 0 && !partnered(tr, r.pos) && !(r.pos > 0 && sameN(tr, r.pos)) {
			s.simpleN = st.N
			s.resetRacing(p, at, s.takeSimple(tr, r.pos), true)
			continue
		}
		r.take(tr, r.pos)
	}
}

// takeSimple returns the scratch event of simple step i: its goroutine
// and its accesses, as the event runEvents builds has them.
func (s *POS) takeSimple(tr []engine.Step, i int) *event {
	st := &tr[i]
	e := &s.step
	e.gs = append(e.gs1[:0], st.G)
	e.acc = appendSimple(e.acc1[:0], st.Kind, st.Obj)
	s.stepSt = st
	return e
}

// completeStep returns the complete event of the simple step whose
// scratch event is s.step.
func (s *POS) completeStep() *event {
	f := &s.full
	f.reset()
	f.fill(s.stepSt)
	return f
}
