package engine

import "unsafe"

// Store buffers (heddle test -racy): x86-TSO for the racy writes the
// rewriter captures (rt.RacySet).
//
// A captured racy write does not reach memory when its goroutine performs
// it: it goes into the goroutine's FIFO store buffer (a step of kind
// OpRacyStore). Committing the oldest buffered store to memory is a step of
// its own (OpRacyCommit), taken by the buffer's flusher: a pseudo-goroutine
// (G.flushes) that the scheduler offers as a choice whenever the buffer
// holds a store, and whose step runs no goroutine but writes the value.
// It is a System goroutine: never a leak, never counted by NumGoroutine,
// left out of reports.
//
// Memory shows every goroutine its own view: memory as committed, with
// its own buffered stores on top (store forwarding), and the others'
// buffered stores not. A goroutine's buffered stores are applied to memory
// while it runs its own code, between its scheduling points, and taken off
// (the committed values restored) when it yields, so that no other
// goroutine, and no flusher, sees them: reads need no capture at all.
//
// A synchronization operation is a fence: before any operation other than
// a racy read or a buffered store, a goroutine that buffered stores since
// its last fence takes a step of kind OpRacyFence, enabled only once its
// buffer is empty. A buffer holds at most MaxBuffered stores; a store into
// a full buffer waits for it to drain the same way. A goroutine that ends
// leaves its buffer to its flusher (a thread's end is no fence in TSO:
// whatever observes it is a synchronization operation of the goroutine,
// which fences). A run that ends commits what the buffers still hold.
//
// For DPOR (internal/strategy, events.go), a buffered store is an object
// (storeTok) that its store and its commit write, and a buffer is one that
// its commits write and its owner's fences read; a commit also writes
// the group of the store (the racy statements it raced with). So a commit
// is ordered after the store it commits (a race DPOR does not reverse:
// the commit waited for it) and the commits before it, a fence after the
// commits it waited for, a store is independent of the commits of the
// stores before it (they commute), and a commit races with the other
// goroutines' accesses of its group.

// MaxBuffered bounds the stores a goroutine's store buffer holds: x86's
// buffer is finite; a store into a full buffer waits for it to drain.
const MaxBuffered = 8

// Cell is a buffered store, implemented by package rt for the stored
// value's type: Apply puts the value in memory, saving what was there for
// Undo; Commit puts it in memory for good. Changed reports whether memory
// no longer holds the value Apply put there (code that was not captured
// wrote the location); Refresh makes the value memory's.
type Cell interface {
	Apply()
	Undo()
	Commit()
	Changed() bool
	Refresh()
	Addr() unsafe.Pointer
}

type sbEntry struct {
	cell Cell
	tok  *storeTok
}

// storeTok is the object of a buffered store's two steps, its store and
// its commit, which orders the commit after the store.
type storeTok struct {
	group unsafe.Pointer
}

// RacyCommitGroup returns the group of the racy statements whose store
// the commit step of object obj (engine.OpRacyCommit's Obj) commits: the
// commit writes it.
//
//go:norace
func RacyCommitGroup(obj unsafe.Pointer) unsafe.Pointer {
	if obj == nil {
		return nil
	}
	return (*storeTok)(obj).group
}

// storeBuf is a goroutine's store buffer.
type storeBuf struct {
	owner   *G
	fl      *G // the flusher
	q       []sbEntry
	applied int  // entries of q applied to memory (the owner runs its own code)
	since   bool // stores buffered since the owner's last fence
}

// Buf is the object that stands for a goroutine's store buffer in the
// dependences of its steps: for a flusher, its owner's; nil for a
// goroutine that never buffered a store.
//
//go:norace
func (g *G) Buf() unsafe.Pointer {
	if g.flushes != nil {
		return unsafe.Pointer(g.flushes)
	}
	if g.sb != nil {
		return unsafe.Pointer(g.sb)
	}
	return nil
}

// Flusher reports whether g is the flusher pseudo-goroutine of a store
// buffer.
//
//go:norace
func (g *G) Flusher() bool { return g.flushes != nil }

// RacySet is a racy write captured with its address and value: it is
// buffered (see above). group is the racy statements' group.
//
//go:norace
func (e *Exec) RacySet(group unsafe.Pointer, c Cell) {
	g := e.cur
	if g.sb != nil && len(g.sb.q) >= MaxBuffered {
		e.fence(g)
	}
	if g.sb == nil {
		g.sb = &storeBuf{owner: g}
	}
	sb := g.sb
	tok := &storeTok{group: group}
	e.yield(Op{Kind: OpRacyStore, Obj: unsafe.Pointer(tok)})
	if e.aborting || e.ended {
		c.Commit()
		return
	}
	sb.q = append(sb.q, sbEntry{cell: c, tok: tok})
	c.Apply()
	sb.applied = len(sb.q)
	sb.since = true
	if sb.fl == nil {
		sb.fl = e.newFlusher(sb)
	}
	if len(sb.q) == 1 {
		sb.fl.op = Op{Kind: OpRacyCommit, Obj: unsafe.Pointer(tok)}
		e.markDirty(sb.fl)
	}
}

// newFlusher makes the flusher pseudo-goroutine of sb.
//
//go:norace
func (e *Exec) newFlusher(sb *storeBuf) *G {
	g := sb.owner
	f := &G{
		Index:     len(e.gs),
		CreatedAt: e.steps,
		Parent:    g,
		System:    true,
		ID:        g.ID + "/sb",
		exec:      e,
		state:     gParked,
		committed: -1,
		ranAt:     e.now,
		flushes:   sb,
	}
	e.seq++
	f.opSeq = e.seq
	e.gs = append(e.gs, f)
	e.markDirty(f)
	return f
}

// fence makes g wait until its store buffer is empty: a step of its own,
// before a synchronization operation.
//
//go:norace
func (e *Exec) fence(g *G) {
	sb := g.sb
	e.yield(Op{Kind: OpRacyFence, Obj: unsafe.Pointer(sb)})
	sb.since = false
}

// fences reports whether an operation of kind k waits for its goroutine's
// store buffer to drain first: every operation but a racy read and a
// buffered store (a racy write that is not captured too: it writes memory
// at once).
//
//go:norace
func fences(k OpKind) bool {
	switch k {
	case OpRacyRead, OpRacyStore, OpRacyFence, OpExit:
		return false
	}
	return true
}

// sbLeave takes g's buffered stores off memory, when g yields.
//
//go:norace
func (e *Exec) sbLeave(g *G) {
	sb := g.sb
	if sb.applied == 0 {
		return
	}
	// Code that was not captured may have written a buffered location
	// after the store: the newest store of the location takes its value,
	// as if the two stores left the buffer one right after the other.
	for i := sb.applied - 1; i >= 0; i-- {
		c := sb.q[i].cell
		newest := true
		for j := i + 1; j < sb.applied; j++ {
			if sb.q[j].cell.Addr() == c.Addr() {
				newest = false
				break
			}
		}
		if newest && c.Changed() {
			c.Refresh()
		}
	}
	for i := sb.applied - 1; i >= 0; i-- {
		sb.q[i].cell.Undo()
	}
	sb.applied = 0
}

// sbEnter puts g's buffered stores back in memory, when g resumes.
//
//go:norace
func (e *Exec) sbEnter(g *G) {
	sb := g.sb
	if sb.applied != 0 || e.ended {
		return
	}
	for _, en := range sb.q {
		en.cell.Apply()
	}
	sb.applied = len(sb.q)
}

// commit performs the step of flusher f: the oldest store of its buffer
// reaches memory. No goroutine's stores are applied then (the one that
// yielded took its own off).
//
//go:norace
func (e *Exec) commit(f *G) {
	sb := f.flushes
	en := sb.q[0]
	en.cell.Commit()
	e.objs.obtain(en.tok.group).writes++
	sb.q[0] = sbEntry{}
	sb.q = sb.q[1:]
	if len(sb.q) > 0 {
		f.op = Op{Kind: OpRacyCommit, Obj: unsafe.Pointer(sb.q[0].tok)}
	} else {
		sb.q = nil
		f.op = Op{Kind: OpRacyCommit}
		e.markDirty(sb.owner)
	}
	e.markDirty(f)
}

// sbDrainAll commits what every store buffer holds, at the end of a run.
//
//go:norace
func (e *Exec) sbDrainAll() {
	for _, g := range e.gs {
		sb := g.flushes
		if sb == nil {
			continue
		}
		if sb.applied > 0 {
			for i := sb.applied - 1; i >= 0; i-- {
				sb.q[i].cell.Undo()
			}
			sb.applied = 0
		}
		for _, en := range sb.q {
			en.cell.Commit()
		}
		sb.q = nil
	}
}

// goFence fences the running goroutine before a go statement: the new
// goroutine must see what its creator wrote before it.
//
//go:norace
func (e *Exec) goFence() {
	if g := e.cur; g != nil && g.sb != nil && g.sb.since && !e.ended {
		e.fence(g)
	}
}
