package engine

import (
	"runtime"
	"unsafe"
)

// Regions of allocation counting.
//
// A test that counts its heap allocations (testing.AllocsPerRun, or its
// own pair of runtime.ReadMemStats calls around the code it measures)
// counted heddle's too: every Lock, Unlock or atomic operation of the
// measured code is a scheduling point, whose choice, trace step and
// enabled set allocate. jellydator/ttlcache's Test_Cache_Get expects one
// Get to allocate 0 or 1 times and saw 26 to 43.
//
// The rewritten runtime.ReadMemStats (rt) calls Exec.ReadMemStats: the first
// call by a goroutine opens a region, its next one closes it. In a region
// the goroutine's mutex and atomic operations that can proceed at once
// (a Lock or RLock of a lock nobody holds or waits for, an Unlock, an
// atomic load or write, a sync.Map method, a context's Err, a channel's
// len) are performed without a scheduling point: no
// choice, no trace step, the state change only (quietStep), which does not
// allocate once the object is known. The goroutine keeps the processor
// through the region, as it may natively (testing.AllocsPerRun sets
// GOMAXPROCS to 1): the region is one schedule among the native ones, and
// the operations in it are not explored (Result.Quiet; an exhaustive
// strategy then claims nothing). Any other operation (a channel
// operation, a go statement, a lock someone holds) is a scheduling point
// as usual, and its allocations are counted. A region that goes on for
// quietBudget operations (a spin loop on an atomic load) schedules
// normally from then on. The run's monitor does not look at a goroutine
// in a region (a look allocates): one that waits outside heddle's control
// there is found by the watchdog only (RunTimeout).

// quietBudget is how many operations a region performs without a
// scheduling point.
const quietBudget = 1 << 20

// quietOff marks a region whose budget is spent.
const quietOff = -1

// quietMem is the run's accounting of heddle's own allocations in regions
// of allocation counting.
type quietMem struct {
	// before and after bracket an allocation of heddle's in a region
	// (allocated when the region opens, before its first reading).
	before, after runtime.MemStats
	// mallocs and bytes are heddle's allocations in regions so far: the
	// readings of the run leave them out.
	mallocs, bytes uint64
}

// ReadMemStats is runtime.ReadMemStats for the running goroutine, which
// opens a region of allocation counting, or closes the one it opened. The
// statistics leave out the allocations heddle made in regions: Mallocs
// and TotalAlloc count the program's (the others are the runtime's).
//
//go:norace
func (e *Exec) ReadMemStats(m *runtime.MemStats) {
	g := e.cur
	if g.quiet != 0 {
		g.quiet = 0
	} else {
		g.quiet = quietBudget
		if e.quietMem == nil {
			e.quietMem = new(quietMem)
		}
	}
	runtime.ReadMemStats(m)
	if q := e.quietMem; q != nil {
		m.Mallocs -= q.mallocs
		m.TotalAlloc -= q.bytes
	}
}

// quietStep performs g's operation op without a scheduling point if g is
// in a region of allocation counting and op can proceed at once without
// another goroutine's turn; it reports whether it did. The caller then
// performs the operation's state change as after a step.
//
//go:norace
func (e *Exec) quietStep(g *G, op *Op) bool {
	if e.aborting || e.ended || g.sb != nil {
		return false
	}
	p := op.Obj
	switch op.Kind {
	case OpLock:
		e.quietRegister(p, syncMutex)
		if mutexLocked(p) || e.lockQueued(p) {
			return false
		}
	case OpRLock, OpWLock:
		e.quietRegister(p, syncRW)
		if rwClaimed(p) || e.lockQueued(p) || (op.Kind == OpWLock && rwReaders(p) > 0) {
			return false
		}
	case OpUnlock:
		e.quietRegister(p, syncMutex)
	case OpWUnlock, OpRUnlock:
		e.quietRegister(p, syncRW)
	case OpAtomicWrite, OpMapWrite:
		e.quietRegister(p, syncNone)
	case OpAtomicLoad, OpMapRead, OpCtxErr, OpChanLen:
		e.quietRefresh(p)
	default:
		return false
	}
	g.quiet--
	if g.quiet == 0 {
		g.quiet = quietOff
	}
	g.op = *op
	// What a step of op changes for the other goroutines' choices.
	e.noteStep(g, op, false)
	e.addMove() // progress, for the watchdog
	e.res.Quiet++
	return true
}

// quietRegister makes heddle's state of the object at p, if it has none
// yet, as the operation would after its step (a sync object of kind k, or
// an atomic's version if k is syncNone), and counts what that allocated as
// heddle's: natively, the first use of a Mutex or an atomic allocates
// nothing. A state the table still holds for a collected object at the
// same address is replaced (objTable.get), which allocates too. Reading
// the statistics stops the world: it is done once per object and run,
// only in a region.
//
//go:norace
func (e *Exec) quietRegister(p unsafe.Pointer, k syncKind) {
	e.quietBracket(p, k, true)
}

// quietRefresh is quietRegister for an operation that makes no state
// (a load): only a collected object's state is replaced.
//
//go:norace
func (e *Exec) quietRefresh(p unsafe.Pointer) {
	e.quietBracket(p, syncNone, false)
}

//go:norace
func (e *Exec) quietBracket(p unsafe.Pointer, k syncKind, make bool) {
	o := e.objs.at(uintptr(p))
	stale := o != nil && o.ref.collected()
	switch {
	case stale:
	case o == nil && !make:
		return
	case o != nil && (k == syncNone || o.saved != syncNone):
		return
	}
	q := e.quietMem
	runtime.ReadMemStats(&q.before)
	switch {
	case !make:
		e.objs.get(p)
	case k == syncNone:
		e.objs.obtain(p)
	default:
		e.syncObj(p, k)
	}
	runtime.ReadMemStats(&q.after)
	q.mallocs += q.after.Mallocs - q.before.Mallocs
	q.bytes += q.after.TotalAlloc - q.before.TotalAlloc
}

// lockQueued reports whether goroutines are queued on the Mutex or
// RWMutex at p.
//
//go:norace
func (e *Exec) lockQueued(p unsafe.Pointer) bool {
	o := e.objs.get(p)
	return o != nil && len(o.rw.queue) > 0
}
