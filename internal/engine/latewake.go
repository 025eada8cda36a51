package engine

import "time"

// A late wake is the clock moving on while a goroutine that could run
// waits for a processor, with no timer firing: natively a goroutine woken
// by its only timer, or by another goroutine, can run late on a loaded
// machine, and the time.Since it reads then is larger than the wait. Virtual
// time moves only when a timer fires, and an early firing (sched.go) needs
// another timer: without one, the clock read after a wake always saw the
// exact wait, and code such as
//
//	start := time.Now()
//	<-done
//	if time.Since(start) > d { return errTimeout }
//
// never took its timeout path under heddle.
//
// The late wake is a choice of its own, a phantom timer ("@late") whose
// firing does nothing but move the clock, offered as an early firing is:
// last among the choices, with Early set to how far it moves the clock,
// never by the fair scheduler, and by -max-starve. It is offered
// only where something can observe it (design.md, "Late wakes"):
//
//   - the run has read the clock (time.Now, Since, Until; not the reads
//     that arm a context's timeout, TimerNow) since the start or since
//     the last late wake: a clock moved
//     twice with no read in between is seen as moved once, and a run that
//     never reads the clock can tell a late wake from none only by the
//     order of its timers, which early firings already explore;
//   - a goroutine waits to run: there is a choice (a sleeper due on
//     time, whose wake is then late, or any goroutine, the one that ran
//     last included: natively it can be preempted too);
//   - no other timer is due within -max-starve of the wake: its early
//     firings already move the clock there (a ticker whose channel is
//     full has none);
//   - the test function has not returned (no bubble's clock moves).
//
// Config.LateWake turns it on; explore sets it, and a schedule written
// before late wakes existed (format v1) is replayed without them.

// LateWakeID is the timer id of a late wake: its choice key is "@late".
const LateWakeID = "late"

// Late reports whether t is the phantom timer of a late wake.
func (t *Timer) Late() bool { return t != nil && t.id == LateWakeID && t.creator == nil }

// addLateWake appends the late-wake choice to e.choices, if one is due
// (see above). It is called at the end of a pass of enabled, when no
// timer is overdue and no spinner was dropped.
//
// Whether it is offered, and how far it moves the clock, depend only on
// the clock's readers (clockSeen, lateSinceRead, the test's end) and the
// timers, not on which goroutine took which step: the DPORs order a late
// wake with those steps alone (internal/strategy, the clock
// pseudo-object), which is sound only if the others can neither enable
// nor disable it, nor change where it takes the clock. So any choice
// counts as a goroutine waiting to run (the one that took the last step
// too: natively it can be preempted as well), and the target is the
// wake plus -max-starve, not lowered by the starvation of the goroutines
// that could run (which depends on when each last ran).
//
//go:norace
func (e *Exec) addLateWake() {
	if !e.cfg.LateWake || !e.clockSeen || e.lateSinceRead || e.mainDone || e.cfg.MaxStarve <= 0 || len(e.choices) == 0 {
		return
	}
	// A sleeper due on time: its wake is a timer choice, and the clock
	// moves on from its due time (it runs late). Else the clock moves on
	// from now while the goroutines that could run wait.
	var own *Timer
	base := e.now
	for i := len(e.gch); i < len(e.choices); i++ {
		c := &e.choices[i]
		if c.G != nil && c.Early == 0 && c.G.op.Kind == OpSleep && c.G.op.Timer != nil && c.G.op.Timer.bubble == nil {
			own = c.G.op.Timer
			base = max(base, own.when)
			break
		}
	}
	lw := e.late
	if lw == nil {
		lw = &Timer{id: LateWakeID, n: -1}
		e.late = lw
	}
	lw.when = later(base, e.cfg.MaxStarve)
	if t := e.firstTimerBut(own); t != nil && t.when <= lw.when && !tickDropped(t) {
		// Its early firings move the clock there, one step at a time. A
		// ticker whose channel is full has no early firing
		// (addTimerChoice): a goroutine woken by its tick, with the next
		// tick due within -max-starve, never ran late (TestClock_Tick
		// of github.com/benbjohnson/clock). The receive that empties a
		// timer's channel, and so takes this late wake away, reads the
		// clock for the DPORs (Select: markClock).
		return
	}
	if lw.when <= base || lw.when <= e.now || e.awayStarved(lw.when) {
		return
	}
	e.choices = appendTimerChoice(e.choices, nil, lw, lw.when-base)
}

// tickDropped reports whether t is a ticker whose channel is full: a tick
// would be dropped, and addTimerChoice offers no early firing of it.
//
//go:norace
func tickDropped(t *Timer) bool { return t.ch != nil && len(t.ch) == cap(t.ch) }

// firstTimerBut returns the active timer that fires first, other than
// own, or nil.
//
//go:norace
func (e *Exec) firstTimerBut(own *Timer) *Timer {
	h := e.timers
	if len(h) == 0 {
		return nil
	}
	if h[0] != own {
		return h[0]
	}
	var best *Timer
	for _, i := range [2]int{1, 2} {
		if i < len(h) && (best == nil || timerBefore(h[i], best)) {
			best = h[i]
		}
	}
	return best
}

// lateFired notes that the late wake was chosen: no other is offered until
// the clock is read again.
//
//go:norace
func (e *Exec) lateFired() { e.lateSinceRead = true }

// TimerNow is Now for a read that only arms a timer (a context's deadline,
// context.WithTimeout's start): it does not make late wakes observable.
// The deadline it derives is seen through its timer, whose early firings
// explore it, or compared with a read of the program's own, which does.
// A test whose only reads were those of its timeouts was offered a late
// wake at every step (conform's context programs: 24 runs became 164).
//
//go:norace
func (e *Exec) TimerNow() time.Time {
	seen, late := e.clockSeen, e.lateSinceRead
	t := e.Now()
	e.clockSeen, e.lateSinceRead = seen, late
	return t
}

// markClock marks g's running step, in a traced run, as reading the
// clock: time.Now and the like, arming a timer (its due time is the clock
// plus its duration), a mutex's starvation mode (the time a waiter
// queued), the test's end (no late wake after it). The DPORs order such
// a step with the late wakes, and with no other step on the clock's
// account (internal/strategy, the clock pseudo-object).
//
//go:norace
func (e *Exec) markClock(g *G) {
	if g != nil && (e.cfg.Trace || e.cfg.Record) && g.stepIdx < len(e.res.Trace) && e.res.Trace[g.stepIdx].G == g {
		e.res.Trace[g.stepIdx].ReadsClock = true
	}
}
