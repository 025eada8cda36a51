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
// last among the choices, with Early set to the starvation it implies,
// never by the fair scheduler, and by -max-starve at most. It is offered
// only where something can observe it (design.md, "Late wakes"):
//
//   - the run has read the clock (time.Now, Since, Until; not the reads
//     that arm a context's timeout, TimerNow) since the start or since
//     the last late wake: a clock moved
//     twice with no read in between is seen as moved once, and a run that
//     never reads the clock can tell a late wake from none only by the
//     order of its timers, which early firings already explore;
//   - a goroutine waits to run: a sleeper due on time, a goroutine
//     choice whose goroutine did not take the last step, or one that
//     yields (runtime.Gosched);
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
//go:norace
func (e *Exec) addLateWake() {
	if !e.cfg.LateWake || !e.clockSeen || e.lateSinceRead || e.mainDone || e.cfg.MaxStarve <= 0 || len(e.choices) == 0 {
		return
	}
	// w: the goroutine that would run late. A sleeper due on time first
	// (its wake is a timer choice); else the first goroutine that did not
	// take the last step.
	var w *G
	var own *Timer
	base := e.now
	for i := len(e.gch); i < len(e.choices); i++ {
		c := &e.choices[i]
		if c.G != nil && c.Early == 0 && c.G.op.Kind == OpSleep && c.G.op.Timer != nil && c.G.op.Timer.bubble == nil {
			w, own = c.G, c.G.op.Timer
			base = max(base, own.when)
			break
		}
	}
	if w == nil {
		for i := range e.gch {
			if g := e.gch[i].G; (g.lastStep < e.steps || g.op.Kind == OpYield) && g.bubble == nil && g.flushes == nil {
				// A goroutine that yields (runtime.Gosched) lets
				// others run, and on a loaded machine comes back late
				// even if it took the last step: a lone goroutine
				// polling time.Since with a Gosched in its loop.
				w = g
				break
			}
		}
	}
	if w == nil {
		return
	}
	lw := e.late
	if lw == nil {
		lw = &Timer{id: LateWakeID, n: -1}
		e.late = lw
	}
	lw.when = later(base, e.cfg.MaxStarve)
	if t := e.firstTimerBut(own); t != nil && t.when <= lw.when && !tickDropped(t) {
		// Its early firings move the clock there, one step at a time;
		// looked at first, as it costs nothing (a ticker beside the
		// goroutines keeps the weighing below from every step). A
		// ticker whose channel is full has no early firing
		// (addTimerChoice): a goroutine woken by its tick, with the next
		// tick due within -max-starve, never ran late (TestClock_Tick
		// of github.com/benbjohnson/clock).
		return
	}
	// The goroutines that could run are starved too: by -max-starve at
	// most, as for an early firing.
	starve := time.Duration(0)
	if len(e.gch) > 0 {
		lw.sleeper = w // not counted for its own lateness (starvation)
		starve = e.starvation(lw)
		lw.sleeper = nil
		if starve > e.cfg.MaxStarve {
			lw.when -= starve - e.cfg.MaxStarve
			starve = e.cfg.MaxStarve
		}
	}
	if lw.when <= base || lw.when <= e.now {
		return
	}
	early := max(lw.when-base, starve, 1)
	e.choices = append(e.choices, Choice{Timer: lw, Case: -1, Early: early})
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
