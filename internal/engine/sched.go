package engine

import (
	"fmt"
	"math"
	"os"
	"sort"
	"time"
	"unsafe"
)

// Choice is one thing the scheduler may do next: run a goroutine (for a
// select, with one of its ready cases) or fire a timer.
type Choice struct {
	G    *G  // the goroutine to run; nil for a timer firing
	Case int // the select case, or -1
	// Select is set when the goroutine's operation is a select, whose case
	// is part of the choice.
	Select bool
	// Arrive is set when the goroutine's operation is a blocking channel
	// operation that cannot complete now: the step makes it arrive, that
	// is, wait on its channels, where partners find it (chan.go). Its key
	// is the goroutine's id, as for a completion: the two are never
	// enabled together.
	Arrive bool
	// spin is what dropSpinners needs to know of the goroutine, set when
	// the choice is computed (addChoice, merge): spinUnknown, spinNo or spinSure.
	// It stays right while the choice is kept: a goroutine's spins,
	// select streak and operation change only when it runs, and then its
	// choices are computed again (HEDDLE_CHECKSET compares them).
	spin uint8
	// kind and gi are, on a goroutine's choice computed by the enabled
	// set, its pending operation's kind and its index plus one (0: not
	// known, as on a sleeper's choice or a Choice made elsewhere; every
	// choice kept in Exec.gch has its index, by which choicePos and
	// gallop search it without a load from each goroutine). They
	// stay right while the choice is kept, as spin does; with them a
	// strategy's passes over hundreds of choices at every point (POS)
	// need not load each goroutine's cache lines (PendingKind, GoIndex).
	// They fill the padding after spin: a Choice is no larger.
	kind  OpKind
	gi    int32
	Timer *Timer // the timer to fire; nil for a goroutine
	// Early is set on a timer firing (or a sleeping goroutine waking) while
	// other goroutines could run: it starves them for the given virtual
	// duration, which strategies treat as a costly choice.
	Early time.Duration
}

// Optional reports whether c is a firing that need not come at all before
// the others run on: a timer a synctest bubble's first timer pass may fire
// before the bubble blocks, when that pass may as well have come before
// (bubble.go, addFirstPass), or a late wake (latewake.go). A goroutine
// spinning beside it is not dropped for it: a lone goroutine polling the
// clock with runtime.Gosched was made to run late at every poll, and never
// saw its deadline on time.
//
//go:norace
func (c Choice) Optional() bool {
	return c.G == nil && c.Timer != nil && (c.Timer.bubble != nil && !c.Timer.bubble.passed || c.Timer.Late())
}

// Key names the choice in a schedule: g0.1, g0.1#2 (select case 2) or
// @g0/t1 (a timer).
//
//go:norace
func (c Choice) Key() string {
	if c.Timer != nil {
		return "@" + c.Timer.ID()
	}
	if c.Select && c.Case >= 0 {
		return c.G.ID + "#" + itoa(c.Case)
	}
	return c.G.ID
}

// HasKey reports whether c.Key() == k, without making the key: strategies
// that follow a schedule compare it with every choice at every step.
func (c Choice) HasKey(k string) bool {
	if c.Timer != nil {
		id := c.Timer.ID()
		return len(k) == 1+len(id) && k[0] == '@' && k[1:] == id
	}
	id := c.G.ID
	if len(k) < len(id) || k[:len(id)] != id {
		return false
	}
	if !c.Select || c.Case < 0 {
		return len(k) == len(id)
	}
	rest := k[len(id):]
	if len(rest) < 2 || rest[0] != '#' {
		return false
	}
	n := 0
	for _, d := range rest[1:] {
		if d < '0' || d > '9' || n > 1<<20 {
			return false
		}
		n = 10*n + int(d-'0')
	}
	return n == c.Case && (rest[1] != '0' || len(rest) == 2)
}

// PendingKind is c.G.PendingKind() for a goroutine's choice at the point
// it is offered, from the choice itself when the enabled set computed it
// (no load from the goroutine).
//
//go:norace
func (c *Choice) PendingKind() OpKind {
	if c.kind != OpNone {
		return c.kind
	}
	return c.G.PendingKind()
}

// GoIndex is c.G.Index for a goroutine's choice, from the choice itself
// when the enabled set computed it.
//
//go:norace
func (c *Choice) GoIndex() int {
	if c.gi != 0 {
		return int(c.gi) - 1
	}
	return c.G.Index
}

// PendingObj is c.G.PendingObj() for a goroutine's choice at the point it
// is offered; for a Gosched's choice the enabled set computed, without a
// load from the goroutine (its operation has no object, case or timer).
//
//go:norace
func (c *Choice) PendingObj() (OpKind, unsafe.Pointer, bool) {
	if c.kind == OpYield {
		return OpYield, nil, true
	}
	return c.G.PendingObj()
}

// Op is the operation the choice performs.
//
//go:norace
func (c Choice) Op() Op {
	if c.Timer != nil {
		return Op{Kind: OpTimerFire, Timer: c.Timer}
	}
	if c.Arrive {
		op := c.G.op
		op.Kind = OpArrive
		return op
	}
	return c.G.op
}

// Point is a scheduling point with at least two enabled choices, as a
// strategy sees it.
type Point struct {
	Exec *Exec
	Step int // number of steps taken so far in this run
	// Choices are the enabled choices, goroutines in creation order, then
	// timers; only the timer choices (at most one, last) can be Early.
	Choices []Choice
	// Prev is the index in Choices of the goroutine that ran the previous
	// step, or -1 when it cannot continue.
	Prev int
}

// Gs returns the run's goroutines in creation order.
//
//go:norace
func (e *Exec) Gs() []*G { return e.gs }

// Steps returns the number of steps taken so far.
//
//go:norace
func (e *Exec) Steps() int { return e.steps }

// Now returns the virtual time. The running step is marked as reading the
// clock, which makes it dependent with late wakes (markClock).
//
//go:norace
func (e *Exec) Now() time.Time {
	e.markClock(e.cur)
	var b *Bubble
	if e.cur != nil {
		b = e.cur.bubble
	}
	t := e.clockAt(b)
	e.readClock() // time passes: the next read is later
	return t
}

// pick chooses the next step and returns the goroutine that runs it, firing
// the timers the strategy picks on the way. It returns nil when the run is
// over.
//
//go:norace
func (e *Exec) pick() *G {
	for {
		if e.res.Bug != nil {
			return nil
		}
		e.foreignRecv = false
		e.enabled()
		n := len(e.choices)
		if e.nNativeCancels.Load() != e.appliedCancels && e.applyNativeNow(n) {
			e.applyNativeCancels()
			e.enabled()
			n = len(e.choices)
		}
		if n == 0 && e.waitForeign() {
			continue
		}
		if n > 0 && e.nDetached.Load() > 0 && e.waitChild() {
			continue
		}
		if e.res.Interrupted || e.res.Unfinished {
			return nil // cut while waiting for a detached goroutine (waitCut)
		}
		if n == 0 {
			if e.endOfRun() {
				continue
			}
			return nil
		}
		if e.mainDone && (e.overtime || e.afterMain()) {
			e.endAfterMain()
			return nil
		}
		idx := 0
		if n > 1 && (e.steps >= e.cfg.FairAfter || e.postFair > 0 || e.overtime) {
			// Long runs, and the last part of the time goroutines get
			// after the test returned, are scheduled fairly: every
			// goroutine that can run does, so one that does not is blocked.
			idx = e.fairChoice()
			e.res.Truncated = true
		} else if n > 1 {
			// Field by field: Exec is set at the run's start (a write
			// barrier fewer per point while the collector runs).
			e.point.Step, e.point.Choices, e.point.Prev = e.steps, e.choices, e.prevIndex()
			idx = e.strat.Choose(&e.point)
			if idx < 0 || idx >= n {
				if idx == Diverged {
					e.res.Bug = e.divergence()
					return nil
				}
				idx = 0
			}
			e.res.Choices = appendChoice(growTo(e.res.Choices), &e.choices[idx])
		}
		c := e.choices[idx]
		e.noteSelect(&c)
		e.steps++
		e.addMove() // Config.Progress, if set
		if e.steps%deadlineCheckEvery == 0 {
			if e.cfg.Stop != nil && e.cfg.Stop.Load() {
				e.res.Truncated = true
				e.res.OverTime = true
				e.res.Interrupted = true
				return nil
			}
			if !e.cfg.Deadline.IsZero() && !e.cfg.DeadlineAway {
				if now := time.Now(); now.After(e.cfg.Deadline) {
					e.res.Truncated = true
					e.res.OverTime = true
					e.overtime = true
					if !now.Before(e.cfg.Deadline.Add(e.cfg.Grace)) {
						e.res.Unfinished = true
						return nil
					}
				}
			}
		}
		if e.steps%memoryCheckEvery == 0 && e.cfg.MaxHeap > 0 {
			if msg := e.overMemory(); msg != "" {
				e.res.Truncated = true
				e.res.OverMemory = msg
				return nil
			}
		}
		if e.steps == e.cfg.StepLimit/2 {
			e.waitsAtHalf = e.waits
			e.progressAt, e.progressGap = e.steps, 0
		}
		if e.steps > e.cfg.StepLimit {
			e.res.Truncated = true
			long, waits, gap := e.long()
			e.res.Bug = &Bug{Kind: KindStepLimit, Message: StepLimitMessage(e.cfg.StepLimit, e.cfg.FairAfter, e.cfg.FairSteps), G: c.G, Long: long, Waits: waits, Gap: gap}
			return nil
		}
		if lim := e.cfg.TimeLimit; lim > 0 && !e.mainDone && e.now-e.polled-e.lateMoved > lim {
			e.res.Truncated = true
			e.res.Bug = &Bug{Kind: KindStepLimit, Message: TimeLimitMessage(lim, e.steps), G: c.G, Clock: true}
			return nil
		}
		if c.Timer != nil {
			if c.Early == 0 && !e.overdue && c.Timer.bubble == nil && c.Timer.when > e.idleAt {
				e.idleAt = c.Timer.when // no goroutine could run: none is starved
			}
			op := c.Op()
			e.record(nil, &op, e.choices, c.Early)
			if c.Timer == e.late {
				e.lateFired() // it changes no goroutine's choices
				before, waits := e.now, e.waits
				e.fire(c.Timer)
				// Not a deadline: a long computation that reads the
				// clock often must not reach the time bound on late
				// wakes alone (bigcache's TestCacheDelRandomly did, 6,074
				// of them in 113,711 steps), nor look as if it waited
				// (Bug.Long).
				e.lateMoved += e.now - before
				e.waits = waits
				e.arrivedLast = false
				continue
			}
			e.noteFire(c.Timer)
			e.fire(c.Timer)
			e.arrivedLast = false
			continue
		}
		e.noteStep(c.G, &c.G.op, c.Arrive)
		if c.G.flushes != nil {
			// A store buffer's commit: a step that runs no goroutine
			// (storebuf.go).
			c.G.lastStep = e.steps
			e.record(c.G, &c.G.op, e.choices, 0)
			e.commit(c.G)
			e.arrivedLast = false
			continue
		}
		if c.Arrive {
			// The goroutine reaches its channel operation and waits there:
			// a step of its own, which runs no user code.
			c.G.lastStep = e.steps
			e.lastRun = e.now
			op := c.Op()
			e.record(c.G, &op, e.choices, 0)
			e.arrive(c.G)
			e.arrivedLast = true
			continue
		}
		e.arrivedLast = false
		c.G.sel = c.Case
		c.G.lastStep = e.steps
		if c.Early == 0 {
			e.lastRun = e.now
			c.G.ranAt = e.now
			c.G.couldRun = false
			if t := c.G.op.Timer; c.G.op.Kind == OpSleep && t != nil && !e.overdue && t.bubble == nil && t.when > e.idleAt {
				// A sleeper woke when no goroutine could run.
				e.idleAt = t.when
				c.G.ranAt = t.when
			}
		}
		e.record(c.G, &c.G.op, e.choices, c.Early)
		if c.Early > 0 && c.G.op.Kind == OpSleep {
			// A sleeper woke early, relative to runnable goroutines.
			c.G.op.Timer.early = c.Early
		}
		if len(e.cfg.Detached) != 0 {
			e.armDetach(c.G) // a replay detaches c.G where the recorded run did
		}
		return c.G
	}
}

// newSlot returns cs one longer and its new last slot, whose every field
// the caller writes: the choice is written field by field into the slot,
// never made on the stack and copied (appendChoice).
//
//go:norace
func newSlot(cs []Choice) ([]Choice, *Choice) {
	n := len(cs)
	if n < cap(cs) {
		cs = cs[:n+1]
	} else {
		cs = append(cs, Choice{})
	}
	return cs, &cs[n]
}

// appendChoice appends *c to cs. append(cs, *c) copied *c through a
// temporary on the stack, written and read back in overlapping 16-byte
// moves that the processor cannot forward from its store buffer (a stall
// at every point with a choice, perf annotate); this copies from *c.
//
//go:norace
func appendChoice(cs []Choice, c *Choice) []Choice {
	cs, d := newSlot(cs)
	d.G, d.Case, d.Select, d.Arrive, d.Timer, d.Early = c.G, c.Case, c.Select, c.Arrive, c.Timer, c.Early
	d.spin, d.kind, d.gi = c.spin, c.kind, c.gi
	return cs
}

// appendTimerChoice appends to cs the choice of timer t's firing (g nil)
// or of sleeper g's waking (its kind OpSleep), early by early, field by field as appendChoice
// does: a Choice literal appended was made on the stack and read back in
// 16-byte loads the processor cannot forward from its narrower stores
// (perf annotate: 38% of addTimerChoice on x/sync errgroup TestGoLimit).
//
//go:norace
func appendTimerChoice(cs []Choice, g *G, t *Timer, early time.Duration) []Choice {
	cs, d := newSlot(cs)
	d.G, d.Case, d.Select, d.Arrive, d.Timer, d.Early = g, -1, false, false, t, early
	d.spin, d.kind, d.gi = 0, OpNone, 0
	if g != nil {
		// A sleeper: its operation is its Sleep while its timer is
		// pending (PendingKind without a load from each sleeper).
		d.kind = OpSleep
	}
	return cs
}

// fairChoice is the choice of the fair scheduler that takes over from the
// strategy once a run is long: the goroutine that ran least recently, and a
// timer only when no goroutine can run (a synctest bubble's, at once: its
// clock is its own). A strategy such as PCT starves
// low-priority goroutines on purpose, so a spin loop that waits for one of
// them would otherwise look like a livelock. With the fair scheduler, "step
// bound exceeded" means the program does not terminate even when every
// goroutine gets its turn.
//
//go:norace
func (e *Exec) fairChoice() int {
	best := -1
	for i, c := range e.choices {
		if c.G == nil && c.Timer != nil && c.Timer.bubble != nil && !c.Optional() {
			// A synctest bubble's timer: natively it fires as soon as
			// its bubble's goroutines are all blocked (bubble.go); not
			// one its first timer pass may fire before (addFirstPass).
			return i
		}
		if c.G == nil || c.Early > 0 {
			continue
		}
		if best < 0 || c.G.lastStep < e.choices[best].G.lastStep {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	return best
}

// Diverged is what a replaying strategy's Choose returns when the recorded
// choice is not enabled: the program did not behave as when it was recorded.
const Diverged = -2

// enabled fills e.choices: the goroutine choices in creation order (e.gch,
// kept from step to step in large runs, see enabledset.go), then the timer
// choice, if any.
//
//go:norace
func (e *Exec) enabled() {
	e.gen++ // invalidates the per-channel caches of partner
	e.starve.last = nil
	if !e.incr && e.cfg.DormantFrom >= 0 && len(e.gs) >= e.cfg.DormantFrom {
		e.incr = true
		e.rebuildAll = true
	}
	if e.bubbleWaits > 0 {
		e.bubbleDirty() // bubble.go: their choices depend on every goroutine of the bubble
	}
	if !e.incr || e.rebuildAll {
		e.rebuilds++
		e.rebuild()
	} else {
		e.update()
	}
	e.choices = e.gch
	e.overdue = false
	e.addTimerChoices()
	if !e.overdue && len(e.choices) > len(e.gch) && unsafe.SliceData(e.choices) != unsafe.SliceData(e.gch) {
		// The timer choices outgrew e.gch's array: append made a larger
		// one, which holds e.gch's choices first. e.gch keeps it, so
		// that the next steps append their timer choices in place: a
		// hundred sleepers due together (conc's pool tests) allocated
		// and copied an array of every choice at every step.
		e.gch = e.choices[:len(e.gch)]
	}
	e.dropSpinners()
	if !e.overdue && e.clockSeen {
		e.addLateWake()
	}
	if checkSet.Load() {
		e.checkKinds()
	}
}

// prevIndex is the index in e.choices of the goroutine that ran the
// previous step, or -1.
//
//go:norace
func (e *Exec) prevIndex() int {
	g := e.cur
	if e.arrivedLast {
		// The previous step was a goroutine's arrival at an operation
		// it waits on: it cannot continue.
		return -1
	}
	if g == nil || e.overdue {
		for i, c := range e.choices {
			if g != nil && c.G == g {
				return i
			}
		}
		return -1
	}
	if i := e.gchPos(g.Index); i < len(e.gch) && e.gch[i].G == g {
		return i
	}
	for i := len(e.gch); i < len(e.choices); i++ {
		if e.choices[i].G == g {
			return i
		}
	}
	return -1
}

// addChoices appends g's enabled choices to buf.
//
//go:norace
func (e *Exec) addChoices(buf []Choice, g *G) []Choice {
	op := &g.op
	switch op.Kind {
	case OpSend, OpRecv, OpSelect:
		sel := op.Kind == OpSelect
		if g.committed >= 0 {
			return addChoice(buf, g, g.committed, sel, false)
		}
		if g.woken > 0 {
			// A close woke it: it completes with the closed case (wakeClosed).
			return addChoice(buf, g, g.woken-1, sel, false)
		}
		n := len(buf)
		for i, c := range op.Cases {
			if e.caseReady(g, c) {
				if g.committed >= 0 {
					// A probe performed case i: no later case is a choice.
					return addChoice(buf, g, g.committed, sel, false)
				}
				buf = addChoice(buf, g, i, sel, false)
			}
		}
		if len(buf) == n {
			if op.Dflt {
				buf = addChoice(buf, g, -1, sel, false)
			} else if !g.arrived && e.mustArrive(op) {
				buf = addChoice(buf, g, -1, sel, true)
			}
		}
	case OpSleep:
		// Handled with the timers.
	default:
		if e.opEnabled(g) {
			buf = addChoice(buf, g, -1, false, false)
		}
	}
	return buf
}

// addChoice appends a goroutine's choice to buf, field by field: a
// Choice literal appended was built on the stack and copied in 16-byte
// loads of fields just stored one by one, which the processor cannot
// forward from its store buffer (perf annotate: two thirds of addChoices).
//
//go:norace
func addChoice(buf []Choice, g *G, c int, sel, arrive bool) []Choice {
	buf, d := newSlot(buf)
	d.G, d.Case, d.Select, d.Arrive, d.Timer, d.Early = g, c, sel, arrive, nil, 0
	d.spin = spinClass(g, sel)
	d.kind, d.gi = g.op.Kind, int32(g.Index+1)
	return buf
}

// opEnabled reports whether a non-channel operation can proceed.
//
//go:norace
func (e *Exec) opEnabled(g *G) bool {
	op := &g.op
	switch op.Kind {
	case OpLock, OpRLock, OpWLock:
		return e.lockEnabled(g)
	case OpWLockWait:
		e.rw(op.Obj)
		return rwReaders(op.Obj) == 0
	case OpWGWait:
		return e.wgCount(op.Obj) == 0
	case OpOnce:
		return !e.once(op.Obj).running
	case OpCondBlocked:
		return g.signalled
	case OpBlock:
		return false
	case OpNative:
		return e.nativeBack(g)
	case OpRacyFence:
		return len(g.sb.q) == 0
	case OpRacyCommit:
		return len(g.flushes.q) > 0
	case OpBubbleWait, OpBubbleEnd:
		return e.bubbleOpEnabled(g)
	}
	return true
}

// addTimerChoices adds the firings of timers: the synctest bubbles', on
// their own clocks (bubble.go), then the run's (runTimerChoices), idle if
// no goroutine can run. None of the bubbles' is early: the early choices
// stay last.
//
//go:norace
func (e *Exec) addTimerChoices() {
	idle := len(e.choices) == 0
	if len(e.bubbles) > 0 {
		e.addBubbleTimerChoices()
	}
	e.runTimerChoices(idle)
}

// runTimerChoices adds the firing of the run's earliest timer, when time
// may advance to it: always when no goroutine can run (idle), and while
// goroutines can run only if it starves them for at most MaxStarve. Timers
// due at the same instant are each a choice: Go keeps timers per P, and at
// GOMAXPROCS 2 or more two timers due together fire in either order (the
// conformance harness's TestTimerStop and TestTickerPoll show both natively).
//
//go:norace
func (e *Exec) runTimerChoices(idle bool) {
	t := e.nextTimer(idle)
	if t == nil {
		return
	}
	if e.mainDone && t.when > e.mainDoneAt+e.cfg.Horizon {
		return
	}
	if t.when < e.now && !t.cascade {
		// Overdue (time passed while goroutines polled): it fires now, as
		// the Go runtime fires a due timer at its next opportunity.
		// e.choices shares its array with e.gch: the choice goes in one
		// of its own.
		e.overdue = true
		if t.sleeper != nil {
			e.one[0] = Choice{G: t.sleeper, Case: -1}
		} else {
			e.one[0] = Choice{Timer: t, Case: -1}
		}
		e.choices = e.one[:]
		return
	}
	// The timers due with t starve the same goroutines: one look at them
	// for all (a sleeper's own goroutine aside), not one per timer.
	shared := time.Duration(-1)
	e.addTimerChoice(t, idle, &shared)
	for _, u := range e.timersAt(t.when) {
		if u != t && !(idle && u.period > 0 && u.ch != nil && len(u.ch) == cap(u.ch)) {
			e.addTimerChoice(u, idle, &shared)
		}
	}
}

// addTimerChoice adds the firing of t, due first (with any others due at
// the same instant), if time may advance to it; idle says whether no
// goroutine could run. *shared, if not negative, is the starvation of
// the timers due at t's instant that have no sleeper.
//
//go:norace
func (e *Exec) addTimerChoice(t *Timer, idle bool, shared *time.Duration) {
	starve := time.Duration(0)
	if !idle {
		// No runnable goroutine ran after lastRun (nor before the last
		// idle firing): a cheap bound below the starvation, then the
		// starvation itself.
		if t.when-max(e.lastRun, e.idleAt) > e.cfg.MaxStarve {
			return
		}
		if t.sleeper != nil {
			starve = e.starvation(t)
		} else {
			if *shared < 0 {
				*shared = e.starvation(t)
			}
			starve = *shared
		}
		if starve > e.cfg.MaxStarve || e.awayStarved(t.when) {
			return
		}
	}
	if !idle && tickDropped(t) {
		// The tick would be dropped: firing early changes nothing but the
		// clock.
		return
	}
	early := time.Duration(0)
	if !idle && t.when > e.now {
		early = starve
		if early == 0 {
			early = 1 // firing now is still a choice against runnable goroutines
		}
	}
	// A timer due now (t.when == e.now: it came due with a goroutine
	// that woke at the same instant) fires on time, not early: it is an
	// ordinary choice beside the runnable goroutines.
	if t.sleeper != nil {
		e.choices = appendTimerChoice(e.choices, t.sleeper, nil, early)
		*shared = -1 // the starvation looks at e.choices, which grew
		e.starve.last = t
		return
	}
	e.choices = appendTimerChoice(e.choices, nil, t, early)
}

// starvation is how long firing t starves the goroutine that can run and
// has waited longest: since its last step, or since no goroutine could
// run, whichever is later. Consecutive early firings add up.
//
// A goroutine that could run when an earlier firing was weighed, and has
// not run since, is starved even if it cannot run now: it may have been
// blocked meanwhile by a goroutine the strategy ran instead (a lock taken
// again by a goroutine that loops on a ticker, while the goroutine waiting
// for it, runnable between two of those critical sections, never ran).
// Otherwise timers could fire early without bound, each at an instant the
// starved goroutine was blocked (go-cache's TestCacheTimes: 250 s of a
// 1 ms janitor's ticks while the test waited for the cache's lock).
//
// Those goroutines, the set of starvation, are kept from weighing to
// weighing in a heap by the time of their last step (starveHeap): a
// goroutine joins it when it is a choice at a weighing, and leaves it when
// it runs or ends. The choices of a pass join it, but for the timer's own
// sleeper: with the enabled set kept from step to step, only those of the
// goroutines whose choices may have changed since the last weighing (the
// dirty ones, noteStarveDirty) can be new, and the others are not looked
// at; a full pass (rebuild) makes the next weighing look at every choice.
// ants' pool tests, with hundreds of goroutines enabled and a timer
// weighed at every step, spent an eighth of their time adding every
// choice to the set again. The choices a pass adds after the goroutines'
// (the early wakings of sleepers) are added timer by timer: each timer
// costs only the choices added since the last one.
//
//go:norace
func (e *Exec) starvation(t *Timer) time.Duration {
	s := &e.starve
	if s.gen != e.gen || s.seen > len(e.choices) {
		// The first timer of this pass.
		s.gen = e.gen
		s.topOK = false
		if e.starveFull || len(e.choices) < len(e.gch) {
			for i := range e.gch {
				e.couldRunAdd(e.gch[i].G)
			}
		} else {
			for _, g := range e.starveNew {
				if g.state == gParked && g.nch > 0 {
					e.couldRunAdd(g)
				}
			}
		}
		// Not cleared past the length: e.gs keeps those goroutines anyway.
		e.starveNew = e.starveNew[:0]
		e.starveFull = false
		s.seen = min(len(e.gch), len(e.choices))
		s.last = nil
	}
	seen := len(e.choices)
	for i := s.seen; i < len(e.choices); i++ {
		g := e.choices[i].G
		if g == nil {
			continue
		}
		if g == t.sleeper {
			// Not added for its own timer; the next timer adds it.
			seen = min(seen, i)
			continue
		}
		if l := s.last; l != nil && g == l.sleeper {
			// The previous timer's sleeper: once in the set, it stays
			// there while it sleeps on l. Thousands of sleepers due at
			// one instant (pond's TestPoolSubmitWhileStoppingHasNoRace)
			// are not loaded again at every point.
			if l.inSet {
				if checkSet.Load() && !g.couldRun {
					panic(fmt.Sprintf("engine: at step %d, sleeper %s of a timer marked in the set of starvation is not in it", e.steps, g.ID))
				}
				continue
			}
			e.couldRunAdd(g)
			l.inSet = true
			continue
		}
		e.couldRunAdd(g)
	}
	s.seen = seen
	// The earliest last step in the set, and the earliest of the others
	// when the timer's sleeper is the one: kept while the pass adds no
	// entry (a goroutine's entry dies only when it runs or ends, not
	// during a pass), so that the sleepers due with t (ants' pools: 30 at
	// every point) do not each look at the heap, nor the one that ran
	// longest ago pop and push its top.
	if !s.topOK || s.topVer != s.ver {
		s.topG, s.topAt, s.secondOK = e.starveTop(), noRun, false
		if s.topG != nil {
			s.topAt = e.starveHeap[0].at
		}
		s.topOK, s.topVer = true, s.ver
	}
	m := s.topAt
	if s.topG != nil && s.topG == t.sleeper {
		if !s.secondOK {
			s.second, s.secondOK = e.starveSecond(), true
		}
		m = s.second
	}
	if checkSet.Load() {
		e.checkStarveTop(t, m)
	}
	since := min(t.when, max(m, e.idleAt))
	d := max(t.when-since, 0)
	if starvationHook != nil {
		starvationHook(e, t, d)
	}
	return d
}

// starvationHook, set by tests, sees every starvation computed.
var starvationHook func(e *Exec, t *Timer, d time.Duration)

// noRun is the ranAt of no goroutine: later than any instant.
const noRun = time.Duration(math.MaxInt64)

// starveSet is what starvation keeps of a pass of enabled (e.gen): the
// choices e.choices[:seen] are in the set of starvation.
//
// ver counts the changes of starveHeap (starvePush, starvePop, couldRunAdd's
// sweep). While it stays at topVer in the pass (topOK), topG is the
// goroutine of the earliest last step in the set, topAt that last step,
// and second, if secondOK, the earliest of the others (starveSecond): the
// set changes during a pass only as entries are added. stack is
// starveSecond's scratch.
type starveSet struct {
	gen  uint64
	seen int
	// last is the timer of the last sleeper's choice addTimerChoice
	// added in the pass, whose sleeper the next timer's weighing adds to
	// the set. Once added, the sleeper is marked on that timer (inSet):
	// it stays in the set (couldRun) until it runs, and it runs only when
	// the timer fires, after which the timer is never due again. Reset at
	// every pass (enabled).
	last *Timer

	ver, topVer     uint64
	topOK, secondOK bool
	topG            *G
	topAt, second   time.Duration
	stack           []int
}

// starveEntry is an entry of Exec.starveHeap: goroutine g, which joined
// the set of starvation for the seq-th time when its last step was at at.
// It stands for g while g.couldRun and g.starveSeq == seq; entries that
// do not (g ran, or ended, since) are dropped when they come to the top,
// or when they outnumber the others (couldRunAdd).
type starveEntry struct {
	at  time.Duration
	g   *G
	seq uint32
}

//go:norace
func (s *starveEntry) live() bool {
	return s.g.couldRun && s.g.starveSeq == s.seq && s.g.state != gDone
}

// noteStarveDirty notes, before a pass of enabled recomputes them, the
// goroutines whose choices the pass may change, for the next weighing of
// starvation; rebuild sets e.starveFull instead. They are listed as they
// come, a goroutine dirty at several passes several times (couldRunAdd
// takes it once): a mark on each would load every one of them again, all
// the waiters of a mutex at each of its Lock and Unlock.
//
//go:norace
func (e *Exec) noteStarveDirty() {
	if e.choiceLog.on {
		e.noteChoiceChanges()
	}
	if e.starveFull {
		return
	}
	if len(e.starveNew)+len(e.dirty) > len(e.gch)+64 {
		// As many as a look at every choice: the next weighing does that.
		e.starveFull = true
		return
	}
	// One by one, not append(starveNew, dirty...): the runtime's copy
	// reports its writes to the race detector even from norace code.
	//lint:ignore S1011 one by one on purpose (above)
	for _, g := range e.dirty {
		e.starveNew = append(e.starveNew, g)
	}
}

// couldRunAdd puts g, a choice at a weighing of starvation, in the set of
// starvation, if it is not in it.
//
//go:norace
func (e *Exec) couldRunAdd(g *G) {
	e.starveLooks++
	if g.couldRun {
		return
	}
	g.couldRun = true
	g.starveSeq++
	if h := e.starveHeap; len(h) > 64 && len(h) > 2*e.live {
		// Mostly entries of goroutines that ran since: keep the others.
		kept := h[:0]
		for _, s := range h {
			if s.live() {
				kept = append(kept, s)
			}
		}
		for i := len(kept); i < len(h); i++ {
			h[i] = starveEntry{}
		}
		e.starveHeap = kept
		e.starve.ver++
		for i := len(kept)/2 - 1; i >= 0; i-- {
			e.starveDown(i)
		}
	}
	e.starvePush(starveEntry{at: g.ranAt, g: g, seq: g.starveSeq})
}

// starveTop drops the entries of starveHeap that stand for no goroutine
// from its top, and returns the goroutine of the earliest last step in
// the set of starvation, or nil if it is empty.
//
//go:norace
func (e *Exec) starveTop() *G {
	for len(e.starveHeap) > 0 {
		if s := &e.starveHeap[0]; s.live() {
			return s.g
		}
		e.starvePop()
	}
	return nil
}

// starveSecond returns the earliest last step among the live entries of
// starveHeap but its top (live: starveTop), or noRun, without changing the
// heap: below a live entry no entry is earlier, so only the entries under
// dead ones are looked at further. The order is total on live entries
// (starveLess: a goroutine has one live entry), so the earliest does not
// depend on the heap's layout.
//
//go:norace
func (e *Exec) starveSecond() time.Duration {
	h := e.starveHeap
	m := noRun
	st := append(e.starve.stack[:0], 1, 2)
	for len(st) > 0 {
		i := st[len(st)-1]
		st = st[:len(st)-1]
		if i >= len(h) || h[i].at >= m {
			continue // an entry below is no earlier than h[i]
		}
		if h[i].live() {
			m = h[i].at
			continue
		}
		st = append(st, 2*i+1, 2*i+2)
	}
	e.starve.stack = st
	return m
}

// checkStarveTop checks (HEDDLE_CHECKSET) the earliest last step m that
// starvation used for t against the heap's: its top, or, if that is t's
// sleeper, the top once it is popped.
//
//go:norace
func (e *Exec) checkStarveTop(t *Timer, m time.Duration) {
	// The pops and pushes below leave the same live entries: the kept
	// values stay valid, and the next calls use them as without the check
	// (not a deferred closure: it would not be norace).
	ver := e.starve.ver
	want := noRun
	if g1 := e.starveTop(); g1 != nil {
		want = e.starveHeap[0].at
		if g1 == t.sleeper {
			top := e.starveHeap[0]
			e.starvePop()
			want = noRun
			if e.starveTop() != nil {
				want = e.starveHeap[0].at
			}
			e.starvePush(top)
		}
	}
	e.starve.ver = ver
	if m != want {
		msg := fmt.Sprintf("engine: at step %d, starvation of a timer due at %v kept the earliest last step %v, the heap says %v", e.steps, t.when, m, want)
		fmt.Fprintln(os.Stderr, msg)
		panic(msg)
	}
}

//go:norace
func (e *Exec) starvePush(s starveEntry) {
	e.starve.ver++
	e.starveHeap = append(e.starveHeap, s)
	h := e.starveHeap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !starveLess(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

//go:norace
func (e *Exec) starvePop() {
	e.starve.ver++
	h := e.starveHeap
	n := len(h) - 1
	h[0] = h[n]
	h[n] = starveEntry{}
	e.starveHeap = h[:n]
	if n > 0 {
		e.starveDown(0)
	}
}

//go:norace
func (e *Exec) starveDown(i int) {
	h := e.starveHeap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && starveLess(&h[r], &h[l]) {
			m = r
		}
		if !starveLess(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// starveLess orders the heap by last step, then by creation: the
// goroutine at the top is one that ran least recently (which one among
// several does not change the starvation).
//
//go:norace
func starveLess(a, b *starveEntry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.g.Index < b.g.Index
}

// ForeignWait is how long, in real time, heddle waits for a channel it did
// not see being made (a foreign channel, such as the Done channel of a
// context made by code that is not rewritten) when nothing else can run:
// code outside heddle's control may still close it or send on it.
const ForeignWait = 100 * time.Millisecond

// waitForeign is called when nothing can run. If a goroutine waits on a
// foreign channel, or, when goroutines heddle does not control took part
// in the run, on a channel or a held Mutex they may release
// (syncstate.go), it sleeps a little, for up to ForeignWait in all, and
// reports true so that the probes are tried again.
//
//go:norace
func (e *Exec) waitForeign() bool {
	if away, child := e.away(); away && e.detachWaited < e.detachWait(child) {
		// A goroutine waits in code heddle does not control: I/O, or a
		// goroutine heddle does not control, may still end the wait
		// (detach.go). Waiting is progress, for the watchdog.
		return e.sleepProgress(&e.detachWaited)
	}
	if e.foreignWaited >= ForeignWait {
		return false
	}
	for _, g := range e.gs {
		if g.state != gParked {
			continue
		}
		if g.op.Kind == OpLock && e.nativeSeen() && mutexLocked(g.op.Obj) {
			// A goroutine heddle does not control may hold the
			// mutex, and unlock it natively (syncstate.go).
			d := time.Millisecond
			time.Sleep(d)
			e.foreignWaited += d
			e.rebuildAll = true
			return true
		}
		for _, c := range g.op.Cases {
			if p := c.Chan(); p != nil && (!e.chanOf(p).owned || e.nativeSeen()) {
				d := time.Millisecond
				time.Sleep(d)
				e.foreignWaited += d
				e.rebuildAll = e.rebuildAll || e.nativeSeen()
				return true
			}
		}
	}
	return false
}

// afterMain is called at every step after the test returned, and reports
// whether the run should end there. The goroutines left first run freely,
// for at least half of postMain steps and until PostTime of virtual time
// has passed (or PostMainMax steps, whichever comes first): a finite loop
// that never touches the clock, such as a goroutine sending a hundred
// thousand signals, runs to its end, while a ticker loop or a poller moves
// the clock and is cut short. Then half of postMain steps are scheduled
// fairly. If goroutines still run after that (the run is not over, or
// afterMain would not be called) and the clock moves fast enough to reach
// the horizon (Horizon of virtual time after the test returned) within
// PostMainMax steps after the test returned, at the pace it kept since,
// they are run on, fairly, to the horizon: those that end before are no
// leak, those still running there are (endAfterMain). A busy loop, a
// poller or a ticker of microseconds would not reach it, and is cut short
// as before, unreported: heddle cannot tell whether it would end. With
// leaks off, runs are never extended.
//
// The phase ends early when the goroutines left can only poll: see
// onlyPolls.
//
//go:norace
func (e *Exec) afterMain() bool {
	if e.onlyPolls(spinOutPolls) {
		e.spinEnd = true
		return true
	}
	if e.postFair == 0 && e.onlyPolls(spinDrop) {
		// Nothing but polls is left to explore, and a strategy may keep
		// one spinner from running (POS's lowest priority) until the
		// fair phase: it starts now, and each gets its polls.
		e.postFair = e.steps
		return false
	}
	since := e.steps - e.mainDoneStep
	if e.postFair == 0 {
		if since >= e.postMain()/2 && (e.now-e.mainDoneAt >= e.cfg.PostTime || since >= e.cfg.PostMainMax) {
			e.postFair = e.steps
		}
		return false
	}
	if e.steps-e.postFair < e.postMain()/2 {
		return false
	}
	elapsed := e.waitedSinceMain()
	if e.cfg.NoLeaks || elapsed <= 0 || elapsed >= e.cfg.Horizon || since >= e.cfg.PostMainMax {
		return true
	}
	// Steps still needed to reach the horizon, at the pace so far.
	need := int64(e.cfg.Horizon-elapsed) / int64(elapsed) * int64(since)
	return need > int64(e.cfg.PostMainMax-since)
}

// spinOutPolls is how many operations in a row without progress every
// goroutine left after the test returned must have made (when none can do
// anything else) before the run ends: see onlyPolls.
const spinOutPolls = 64

// onlyPolls reports whether every goroutine that can run has polled n
// times in a row without progress and would poll again (a Gosched, a load
// of a value nobody wrote since, a select's default, a failed TryLock), no
// timer is left to fire, and no goroutine waits outside heddle's control.
// Nothing can then change what they poll: a poll writes nothing, so none
// of them, and no goroutine they could wake, will ever do anything else
// (ants' longRunningFunc, left by TestNonblockingSubmit to spin on
// Gosched until a flag that no one will set is set). The goroutines would
// spin on until the process exits, as they do natively after the test
// returned; once each polled spinOutPolls times, the run ends there
// instead of after the post-test phase's 10,000 steps (afterMain). Only
// a loop whose end depends on state heddle does not see (a counter in a
// local variable: for i := 0; i < 1000; i++ { runtime.Gosched() }) is
// cut short where it used to run on. Those that stay blocked are leaks,
// as after the fair phase; the spinning ones are not reported, as a busy
// loop that cannot reach the horizon is not.
//
//go:norace
func (e *Exec) onlyPolls(n int) bool {
	if len(e.choices) == 0 {
		return false
	}
	for i := range e.choices {
		c := &e.choices[i]
		if c.G == nil || c.G.spins < n || !e.spinning(c) {
			return false
		}
	}
	return e.nextTimer(true) == nil && e.nDetached.Load() == 0 && e.nNativeCancels.Load() == e.appliedCancels
}

// waitedSinceMain is the virtual time timers and sleeps made pass since
// the test returned: the clock's move less what polls added to it.
//
//go:norace
func (e *Exec) waitedSinceMain() time.Duration {
	return e.now - e.mainDoneAt - (e.polled - e.mainPolled)
}

// endAfterMain ends a run whose goroutines keep running long after the
// test returned (a ticker loop, a poller): the goroutines that stayed
// blocked through the last half of postMain steps of fair scheduling, while
// others ran, are leaks, and so are those still running if the run reached
// the horizon.
//
//go:norace
func (e *Exec) endAfterMain() {
	e.res.Truncated = true
	if e.spinEnd {
		e.endSpunOut()
		return
	}
	since := e.steps - e.postMain()/2
	horizon := e.waitedSinceMain() >= e.cfg.Horizon
	var blocked, running []*G
	for _, g := range e.gs {
		if g.state != gParked || g.System {
			continue
		}
		if g.lastStep < since && !e.canRun(g) {
			if g.SignalWait() {
				continue // a daemon waiting for an OS signal (signalwait.go)
			}
			blocked = append(blocked, g)
		} else if horizon {
			running = append(running, g)
		}
	}
	if len(blocked) == 0 && len(running) == 0 {
		return
	}
	msg := ""
	if len(blocked) > 0 {
		msg = itoa(len(blocked)) + " goroutine(s) still blocked " + itoa(e.steps-e.mainDoneStep) + " steps after the test returned, through " + itoa(e.steps-since) + " steps of fair scheduling, while others kept running"
	}
	e.res.Bug = e.leak(blocked, running, msg, "looping", "")
}

// endSpunOut ends a run whose goroutines left after the test only poll
// (onlyPolls): every goroutine that cannot run is blocked for good, a leak.
//
//go:norace
func (e *Exec) endSpunOut() {
	var blocked []*G
	for _, g := range e.gs {
		if g.state != gParked || g.System || e.canRun(g) || g.SignalWait() {
			continue
		}
		blocked = append(blocked, g)
	}
	if len(blocked) == 0 {
		return
	}
	msg := itoa(len(blocked)) + " goroutine(s) still blocked " + itoa(e.steps-e.mainDoneStep) + " steps after the test returned, while every goroutine that could run polled without progress (" + itoa(spinOutPolls) + " times in a row or more, with no timer left)"
	e.res.Bug = e.leak(blocked, nil, msg, "", "")
}

// leak is the leak bug of blocked and running goroutines; msg describes
// the blocked ones, doing what the first running one does (looping, or
// waiting) and why why.
//
//go:norace
func (e *Exec) leak(blocked, running []*G, msg, doing, why string) *Bug {
	if len(running) > 0 {
		if msg != "" {
			msg += "; "
		}
		msg += itoa(len(running)) + " goroutine(s) still running " + itoa(e.steps-e.mainDoneStep) + " steps / " + DurationText(e.now-e.mainDoneAt) + " of virtual time after the test returned"
		if p := PositionOf(running[0].op.PC); p.File != "" {
			msg += ", " + doing + " at " + baseName(p.File) + ":" + itoa(p.Line)
			if len(running) > 1 {
				msg += " (" + running[0].ID + ")"
			}
		}
		msg += why
	}
	b := &Bug{Kind: KindLeak, Message: msg, Blocked: blocked, Running: running}
	if len(blocked) > 0 {
		b.G = blocked[0]
	} else {
		b.G = running[0]
	}
	return b
}

//go:norace
func baseName(file string) string {
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' || file[i] == '\\' {
			return file[i+1:]
		}
	}
	return file
}

// timerOf returns the active timer g's pending operation waits for (a
// sleep, or a receive from a timer's or ticker's channel), or nil. At the
// end of a run after the test returned, such a goroutine is not blocked
// forever: it waits for a timer past the horizon.
//
//go:norace
func (e *Exec) timerOf(g *G) *Timer {
	if g.op.Kind == OpSleep {
		return g.op.Timer
	}
	for _, c := range g.op.Cases {
		if p := c.Chan(); p != nil {
			if t := e.chanTimer(p); t != nil {
				return t
			}
		}
	}
	return nil
}

// postMain is how many steps the goroutines get after the test returned:
// PostMain, and more with many goroutines, so that each gets its turns.
//
//go:norace
func (e *Exec) postMain() int {
	return max(e.cfg.PostMain, 50*len(e.gs))
}

// canRun reports whether g's pending operation could proceed now.
//
//go:norace
func (e *Exec) canRun(g *G) bool {
	switch g.op.Kind {
	case OpSend, OpRecv, OpSelect:
		if g.committed >= 0 || g.woken > 0 || g.op.Dflt {
			return true
		}
		for _, c := range g.op.Cases {
			if e.caseReady(g, c) {
				return true
			}
		}
		return false
	case OpSleep:
		return false
	}
	return e.opEnabled(g)
}

// endOfRun is reached when nothing can run: the run ended normally, or it
// deadlocked, or goroutines leaked.
//
//go:norace
func (e *Exec) endOfRun() (cameBack bool) {
	var blocked []*G
	for _, g := range e.gs {
		if g.state != gDone && !g.System {
			blocked = append(blocked, g)
		}
	}
	if len(blocked) == 0 {
		return false
	}
	sort.Slice(blocked, func(i, j int) bool { return blocked[i].Index < blocked[j].Index })
	if e.blockedAway() {
		return false
	}
	if e.cameBack() {
		// A detached goroutine came back after the pass that made the
		// choices found none, and before the looks at what was away
		// (waitForeign, blockedAway) found none: it can run, and the
		// choices are made again. rt's
		// TestPipesBetweenControlledGoroutines under -race: a pipe's
		// reader came back in between, and the run was reported
		// deadlocked.
		e.rebuildAll = true
		return true
	}
	if !e.mainDone {
		e.res.Bug = &Bug{Kind: KindDeadlock, Message: DeadlockMessage, Blocked: blocked, G: e.gs[0]}
		return false
	}
	var forever, running []*G
	doing, why := "", ""
	for _, g := range blocked {
		if g.SignalWait() {
			continue // a daemon waiting for an OS signal (signalwait.go)
		}
		t := e.timerOf(g)
		if t == nil {
			forever = append(forever, g)
			continue
		}
		if len(running) == 0 {
			doing, why = "waiting", " (for a timer past the "+DurationText(e.cfg.Horizon)+" horizon)"
			if t.period > 0 {
				doing, why = "looping", " (its ticker's next tick is past the "+DurationText(e.cfg.Horizon)+" horizon)"
			}
		}
		running = append(running, g)
	}
	msg := ""
	if len(forever) > 0 {
		msg = itoa(len(forever)) + " goroutine(s) blocked forever after the test returned"
	}
	if len(forever) == 0 && len(running) == 0 {
		return false // only goroutines waiting for signals
	}
	e.res.Bug = e.leak(forever, running, msg, doing, why)
	return false
}

//go:norace
func itoa(i int) string {
	if i >= 0 && i < 10 {
		return string(rune('0' + i))
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
