package engine

import (
	"fmt"
	"unsafe"
)

// Lock groups: the waiters of one sync.Mutex, kept together in the enabled
// set (enabledset.go).
//
// A goroutine blocked in Lock on a Mutex, and not in the mutex's queue,
// has one choice when the mutex is free and a goroutine that is not queued
// may take it, and none otherwise: its choices depend on the mutex's state
// alone, the same for all such waiters. golang-lru's expirable
// TestLRUConcurrency has a thousand goroutines waiting on one mutex: every
// Lock and Unlock made each of them dirty (touchDirs, markDirty) and merge
// computed each one's choices again (waiterEnabled), two thirds of a
// random run.
//
// Such a waiter joins its mutex's group instead of its watchers, when its
// choices are first computed for the operation (watchOp). A step on the
// mutex marks the group (touchDirs), not each member. At the next pass,
// flipGroups computes the mutex's state once and, if it changed, splices
// the members' choices in or out of e.gch in one pass, from the group's
// own list (each member's choice is known: its goroutine and its spin
// class, fixed while it waits), without computing any member's choices.
// The list the strategies see is the same, choice for choice:
// HEDDLE_CHECKSET compares it with a full pass at every step.
//
// What the per-waiter pass did besides the choices is done as it was:
// a waiter found blocked on the held mutex is listed for the next idle
// advance (blocked), in creation order among the other goroutines listed
// in the same pass (listMerge); the goroutines whose choice appears are
// noted for starvation's next weighing (e.starveNew, as noteStarveDirty
// notes the dirty ones). A member that runs, or moves on, or is dirty for
// another reason, is recomputed by the usual path (it is dirty), and a
// member that moved on leaves the group when it is next looked at. When
// the idle advance queues a goroutine on the mutex (mutex.go), the
// waiters' choices depend on their places in the queue: the group is
// taken apart, its members become watchers again, dirty.
//
// Groups are not used when the run records its enabled sets
// (Config.Record: logChoices per goroutine).

// The states of a mutex, as its plain waiters see them.
const (
	lockHeld    = iota // held: no choice, and listed as blocked
	lockNoBarge        // free, but in starvation mode with a queue: no choice
	lockBarge          // free, and a waiter that is not queued may take it: one choice
)

// lockGroup is the plain waiters of one Mutex, in creation order.
type lockGroup struct {
	members []groupMember
	state   uint8 // the mutex's state the members' choices in e.gch are for
	pending bool  // the mutex was touched since the last pass (in e.flipped)
	// dead counts the members marked dead: they ran (leaveGroup). The
	// others still wait in the Lock they joined for, and a flip does not
	// load each member's goroutine to see whether it does.
	dead int
}

// groupMember is a goroutine of a lockGroup, for its operation of opSeq
// seq.
type groupMember struct {
	g      *G
	seq    uint64
	idx    int    // g.Index
	spin   uint8  // its choice's spin class (spinClass), fixed while it waits
	kind   OpKind // its operation's kind, fixed while it waits
	listed bool   // it is in e.lockers for this operation
	dead   bool   // it ran: the entry stands for nothing (leaveGroup)
}

// grouping reports whether plain Mutex waiters join groups in this run.
//
//go:norace
func (e *Exec) grouping() bool { return e.incr && !e.cfg.Record }

// groupable reports whether g, parked with its choices just computed,
// waits in Lock on a Mutex as a plain waiter.
//
//go:norace
func groupable(g *G) bool {
	op := &g.op
	return op.Kind == OpLock && op.Obj != nil && len(op.Cases) == 0 && !g.sq.on(g, op.Obj)
}

// lockState is the state of the Mutex at p, as lockEnabled decides it for
// a waiter not queued on it (and with its side effects: queueHead).
//
//go:norace
func (e *Exec) lockState(p unsafe.Pointer) uint8 {
	if lookHook != nil {
		lookHook(p)
	}
	if e.mutexLocked(p) {
		return lockHeld
	}
	if e.queueHead(p) == nil || !e.objs.get(p).rw.starving {
		return lockBarge
	}
	return lockNoBarge
}

// join makes g, whose choices for its pending Lock on the Mutex at p were
// just computed, a member of p's group, or reports false when it cannot
// be one (its choices are not those of the group's state): it is then
// registered as a watcher.
//
//go:norace
func (e *Exec) join(p unsafe.Pointer, g *G) bool {
	st := e.lockState(p)
	want := 0
	if st == lockBarge {
		want = 1
	}
	if g.nch != want {
		return false
	}
	o := e.objs.obtain(p)
	grp := o.grp
	if grp == nil {
		grp = &lockGroup{}
		o.grp = grp
		e.groups = append(e.groups, o)
	}
	if grp.pending {
		// Touched since the last pass and not flipped yet: cannot be
		// (a pass flips before it computes), but safe.
		return false
	}
	if len(grp.members) == 0 {
		grp.state = st
	} else if grp.state != st {
		return false
	}
	m := groupMember{g: g, seq: g.opSeq, idx: g.Index, spin: spinClass(g, false), kind: g.op.Kind, listed: g.sq.listed == g.opSeq}
	g.grpSeq = g.opSeq
	// In creation order: goroutines mostly arrive in it.
	ms := grp.members
	i := len(ms)
	for i > 0 && ms[i-1].idx > g.Index {
		i--
	}
	if i > 0 && ms[i-1].g == g {
		// The same goroutine at a new operation.
		if ms[i-1].dead {
			grp.dead--
		}
		ms[i-1] = m
		return true
	}
	ms = append(ms, groupMember{})
	for j := len(ms) - 1; j > i; j-- {
		ms[j] = ms[j-1]
	}
	ms[i] = m
	grp.members = ms
	return true
}

// leaveGroup marks g's entry in its Mutex's group dead: g runs, and the
// entry no longer stands for it. It is called at g's step (noteStep).
//
//go:norace
func (e *Exec) leaveGroup(g *G) {
	seq := g.grpSeq
	g.grpSeq = 0
	if seq != g.opSeq {
		return
	}
	o := e.objs.get(g.op.Obj)
	if o == nil || o.grp == nil {
		return
	}
	grp := o.grp
	ms := grp.members
	lo, hi := 0, len(ms)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ms[m].idx < g.Index {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ms) && ms[lo].g == g && ms[lo].seq == seq && !ms[lo].dead {
		ms[lo].dead = true
		grp.dead++
	}
}

// compact drops the dead members of grp, and with all those that moved
// on (looking at each) when all is set.
//
//go:norace
func (e *Exec) compact(grp *lockGroup, all bool) {
	ms := grp.members
	k := 0
	for i := range ms {
		if !ms[i].dead && (!all || ms[i].live()) {
			ms[k] = ms[i]
			k++
		}
	}
	clear(ms[k:])
	grp.members = ms[:k]
	grp.dead = 0
}

// touchGroup marks o's group for the next pass.
//
//go:norace
func (e *Exec) touchGroup(o *object) {
	if grp := o.grp; grp != nil && !grp.pending && len(grp.members) > 0 {
		grp.pending = true
		e.flipped = append(e.flipped, o)
	}
}

// live reports whether m still stands for its goroutine's pending Lock.
//
//go:norace
func (m *groupMember) live() bool {
	return m.g.state == gParked && m.g.opSeq == m.seq
}

// isDirty reports whether the goroutine of creation index idx is marked
// dirty (markDirty's bitset).
//
//go:norace
func (e *Exec) isDirty(idx int) bool {
	w := idx >> 6
	return w < len(e.dirtyBits) && e.dirtyBits[w]&(1<<(idx&63)) != 0
}

// flipGroups brings the groups touched since the last pass up to date:
// for each, the mutex's state now, and if it changed, the members' choices
// spliced in or out of e.gch. Members that are dirty are left to the usual
// path. Those that the held mutex blocks and were not listed go to
// e.toList, listed after the pass (listMerge).
//
//go:norace
func (e *Exec) flipGroups() {
	for i, o := range e.flipped {
		e.flipped[i] = nil
		grp := o.grp
		grp.pending = false
		e.flip(grp)
	}
	e.flipped = e.flipped[:0]
}

//go:norace
func (e *Exec) flip(grp *lockGroup) {
	if checkSet.Load() && !e.aborting {
		for i := range grp.members {
			if m := &grp.members[i]; !m.dead && !m.live() {
				panic(fmt.Sprintf("engine: at step %d, goroutine %s left its Mutex's waiter group without a step (leaveGroup)", e.steps, m.g.ID))
			}
		}
	}
	if e.aborting {
		e.compact(grp, true)
	} else if grp.dead > len(grp.members)/8 {
		// Not at half: each flip walks the dead members too, and a
		// death comes with a flip (the Lock touched the mutex). At half,
		// 27% of the members a run of lockerShape(1000) walked in flipIn
		// were dead; at an eighth, 6%, for a copy of the group per eighth
		// of it that died (3.4% fewer instructions a run, callgrind).
		e.compact(grp, false)
	}
	ms := grp.members
	first := -1
	for i := range ms {
		if !ms[i].dead {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	st := e.lockState(ms[first].g.op.Obj)
	old := grp.state
	if st == old {
		return
	}
	grp.state = st
	insert, remove, list := st == lockBarge, old == lockBarge, st == lockHeld
	if !insert && !remove {
		if list {
			for i := range ms {
				m := &ms[i]
				if m.dead {
					continue
				}
				if !m.listed && !e.isDirty(m.idx) {
					e.toList = append(e.toList, m.g)
				}
				m.listed = true
			}
		}
		return
	}
	e.es.flips++
	// Two loops, one per direction, each with as little state as it
	// can: one loop for both cost 90 instructions a member (golang-lru
	// TestLRUConcurrency, where flips were two thirds of a run's
	// instructions).
	if insert {
		e.flipIn(ms)
	} else {
		e.flipOut(ms, list)
	}
}

// flipIn splices the choice of each member of ms not dirty nor dead into
// e.gch, in creation order: the mutex has become free to take.
//
//go:norace
func (e *Exec) flipIn(ms []groupMember) {
	gch := e.gch
	buf := e.scratch[:0]
	from := 0
	for i := range ms {
		m := &ms[i]
		// A dead member's choices are the usual path's: it is dirty. A
		// dirty one's are recomputed by the usual path in this pass.
		if m.dead || e.isDirty(m.idx) {
			continue
		}
		at := from
		end := min(from+8, len(gch))
		for at < end && gch[at].G.Index < m.idx {
			at++
		}
		if at == end && end < len(gch) {
			at, _ = gallop(gch, at, m.idx)
		}
		if at > from {
			buf = appendChoices(buf, gch[from:at])
			from = at
		}
		g := m.g
		// Field by field into the slot, as addChoice: append of a Choice
		// literal made it on the stack and read it back in 16-byte moves
		// the processor cannot forward from its narrower stores (perf
		// annotate: 58% of flipIn on golang-lru TestLRUConcurrency).
		var c *Choice
		buf, c = newSlot(buf)
		c.G, c.Case, c.Select, c.Arrive, c.Timer, c.Early = g, -1, false, false, nil, 0
		c.spin, c.kind, c.gi = m.spin, m.kind, int32(m.idx+1)
		g.nch = 1
		e.noteChoiceChanged(g)
		if !e.starveFull {
			// As noteStarveDirty does for the dirty ones.
			if len(e.starveNew) > len(gch)+64 {
				e.starveFull = true
			} else {
				e.starveNew = append(e.starveNew, g)
			}
		}
	}
	buf = appendChoices(buf, gch[from:])
	e.gch, e.scratch = buf, gch[:0]
}

// flipOut takes the choice of each member of ms not dirty nor dead out of
// e.gch: the mutex is no longer free to take. If it is held (list), the
// members not listed yet go to e.toList.
//
//go:norace
func (e *Exec) flipOut(ms []groupMember, list bool) {
	gch := e.gch
	buf := e.scratch[:0]
	from := 0
	for i := range ms {
		m := &ms[i]
		if m.dead {
			continue // its choices are the usual path's: it is dirty
		}
		if e.isDirty(m.idx) {
			// Recomputed by the usual path in this pass, which lists it
			// if the mutex is held.
			m.listed = m.listed || list
			continue
		}
		g := m.g
		if list && !m.listed {
			e.toList = append(e.toList, g)
			m.listed = true
		}
		// Its one choice: found by its goroutine, not by loading the
		// goroutines of the choices before it.
		at := from
		for at < len(gch) && gch[at].G != g {
			at++
		}
		if at == len(gch) {
			panic(fmt.Sprintf("engine: at step %d, goroutine %s of a Mutex's waiter group has no choice in the enabled set", e.steps, g.ID))
		}
		if at > from {
			buf = appendChoices(buf, gch[from:at])
		}
		from = at + 1
		g.nch = 0
		e.noteChoiceChanged(g)
	}
	buf = appendChoices(buf, gch[from:])
	e.gch, e.scratch = buf, gch[:0]
}

// listMerge lists the goroutines of e.toList (in creation order) as
// blocked, merged in creation order with those the pass listed
// (e.lockers[mark:], in creation order): where a pass computing each
// member's choices would have listed them.
//
//go:norace
func (e *Exec) listMerge(mark int) {
	tail := e.lockers[mark:]
	buf := e.listBuf[:0]
	i, j := 0, 0
	for i < len(tail) || j < len(e.toList) {
		if j == len(e.toList) || i < len(tail) && tail[i].Index < e.toList[j].Index {
			buf = append(buf, tail[i])
			i++
			continue
		}
		g := e.toList[j]
		j++
		if g.sq.listed == g.opSeq {
			continue
		}
		g.sq.listed = g.opSeq
		buf = append(buf, g)
	}
	e.lockers = e.lockers[:mark]
	// One by one, not append(lockers, buf...): the runtime's copy reports
	// its writes to the race detector even from norace code.
	//lint:ignore S1011 one by one on purpose (above)
	for _, g := range buf {
		e.lockers = append(e.lockers, g)
	}
	clear(buf)
	e.listBuf = buf[:0]
	clear(e.toList)
	e.toList = e.toList[:0]
}

// dissolve takes the group of the Mutex at p apart: its members become
// watchers of the mutex, dirty (their choices now depend on the mutex's
// queue).
//
//go:norace
func (e *Exec) dissolve(p unsafe.Pointer) {
	o := e.objs.get(p)
	if o == nil || o.grp == nil {
		return
	}
	grp := o.grp
	for _, m := range grp.members {
		if m.dead || !m.live() {
			continue
		}
		o.watchers = append(o.watchers, watch{g: m.g, seq: m.seq, dirs: watchAll})
		m.g.grpSeq = 0
		e.markDirty(m.g)
	}
	clear(grp.members)
	grp.members = grp.members[:0]
	grp.dead = 0
	// A pending flip finds no member.
}

// syncGroups sets each group's state before a full pass (rebuild), which
// computes every member's choices for the mutex's state now, and lists
// those the held mutex blocks.
//
//go:norace
func (e *Exec) syncGroups() {
	for i, o := range e.flipped {
		e.flipped[i] = nil
		o.grp.pending = false
	}
	e.flipped = e.flipped[:0]
	for _, o := range e.groups {
		grp := o.grp
		e.compact(grp, true)
		kept := grp.members
		if len(kept) > 0 {
			grp.state = e.lockState(kept[0].g.op.Obj)
			if grp.state == lockHeld {
				for i := range kept {
					kept[i].listed = true // rebuild's pass lists them
				}
			}
		}
	}
}
