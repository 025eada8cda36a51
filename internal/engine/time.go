package engine

import (
	"math"
	"sync"
	"time"
	"unsafe"
)

// Timer is a pending event on the virtual clock: a sleeping goroutine's
// wake-up, a time.Timer or time.Ticker, an AfterFunc, or a context deadline.
type Timer struct {
	// n numbers the timer among those of its creator (ID).
	n       int
	id      string        // ID, once made
	when    time.Duration // deadline, virtual time since the epoch
	period  time.Duration // for tickers
	seq     uint64        // creation order, to break ties
	active  bool
	inSet   bool           // the sleeper joined the set of starvation while it sleeps on this timer (starveSet.last)
	sleeper *G             // time.Sleep: the goroutine to wake
	ch      chan time.Time // time.Timer and time.Ticker: the channel
	goFn    func()         // AfterFunc: run in a new goroutine
	fireFn  func()         // context deadline (start its cancel's goroutine), or the cancel of a context's children: run inline
	cascade bool           // the cancel of a context's children: never forced as overdue (cancelKidsLater)
	waited  bool           // a blocking receive or select waited on its channel (fireDue)
	creator *G             // parent of AfterFunc goroutines
	bubble  *Bubble        // the synctest bubble of the goroutine that made it (bubble.go)
	early   time.Duration  // the last firing starved runnable goroutines this long
	hi      int            // index in Exec.timers, the heap of active timers
	act     uint64         // activation order: when it last joined the heap
	// PC is the call site that armed the timer (time.Sleep, time.After,
	// context.WithTimeout, ...), when the run records positions.
	PC uintptr
	// zombie: Stop found the timer, of a bubble, in Go's timer heap
	// (inGoHeap), where Go leaves it marked stopped until the bubble's
	// timers next run (its release zombieRel).
	zombie    bool
	zombieRel uint64
}

// ID names the timer in schedules: the creating goroutine's id and a
// counter, as in g0.1/t2. It is made at its first use: most timers (a
// time.Sleep's) are never named, and making the name of each was an
// allocation per Sleep.
//
//go:norace
func (t *Timer) ID() string {
	if t.id == "" {
		t.id = t.creator.ID + "/t" + itoa(t.n)
	}
	return t.id
}

// Sleep reports whether t is the timer of a time.Sleep.
func (t *Timer) Sleep() bool { return t.sleeper != nil }

// ChanAddr is the address of the channel of t (a time.Timer's or
// time.Ticker's), 0 if it has none (a Sleep, an AfterFunc, a deadline): a
// firing sends on it, as the trace records (Step.Obj).
//
//go:norace
func (t *Timer) ChanAddr() uintptr {
	if t == nil || t.ch == nil {
		return 0
	}
	return uintptr(chanAddr(t.ch))
}

//go:norace
func (e *Exec) newTimer(d time.Duration) *Timer {
	g := e.cur
	g.nTmr++
	e.nTimers++
	t := &Timer{n: g.nTmr, when: e.after(d), seq: e.nTimers, active: true, creator: g, bubble: g.bubble}
	if e.cfg.Record {
		t.PC = userPC()
	}
	e.pushTimer(t)
	raceRelease(unsafe.Pointer(t))
	return t
}

// after is the virtual instant d from now, on the clock of the running
// goroutine's bubble if it is in one (bubble.go). A duration that would
// take it past the largest instant (a timer Reset to
// time.Duration(1<<63-1) to mean never, as go-quartz's scheduler does)
// gives the largest instant, as Go's runtime does, not one in the past:
// such a timer fired at once, again and again.
//
//go:norace
func (e *Exec) after(d time.Duration) time.Duration {
	var b *Bubble
	if e.cur != nil {
		b = e.cur.bubble
	}
	e.markClock(e.cur)
	return later(e.nowIn(b), max(d, 0))
}

// later is when+d (d >= 0), or the largest instant if that overflows.
func later(when, d time.Duration) time.Duration {
	if w := when + d; w >= when {
		return w
	}
	return math.MaxInt64
}

//go:norace
func (e *Exec) stopTimer(t *Timer) bool {
	was := t.active
	if t.active {
		e.removeTimer(t)
	}
	t.active = false
	return was
}

//go:norace
func (e *Exec) startTimer(t *Timer, d time.Duration) {
	e.nTimers++
	e.markClock(e.cur)
	t.when = later(e.nowIn(t.bubble), max(d, 0)) // on the clock of its bubble, if it has one
	t.seq = e.nTimers
	raceRelease(unsafe.Pointer(t))
	if !t.active {
		t.active = true
		e.pushTimer(t)
	} else {
		e.retime(t)
	}
}

// nextTimer returns the active timer that fires first. When idle (no
// goroutine can run), a ticker whose channel is full is left out: its tick
// would be dropped and wake no one, and firing it forever would keep a
// deadlocked run from ending.
//
//go:norace
func (e *Exec) nextTimer(idle bool) *Timer {
	if len(e.timers) == 0 {
		return nil
	}
	if t := e.timers[0]; t.when == math.MaxInt64 {
		return nil // they all fire never
	} else if !idle || t.period == 0 || t.ch == nil || len(t.ch) < cap(t.ch) {
		return t // the heap's first: the first of all
	}
	var best *Timer
	for _, t := range e.timers {
		e.timerLooks++
		if idle && t.period > 0 && t.ch != nil && len(t.ch) == cap(t.ch) {
			continue
		}
		if t.when == math.MaxInt64 {
			continue // never: 292 years from the epoch or more (after)
		}
		if best == nil || t.when < best.when || (t.when == best.when && t.seq < best.seq) {
			best = t
		}
	}
	return best
}

// fire runs a timer's effect, as a step of its own.
//
// Under the race detector the effect runs on a goroutine of the engine's
// (timerWorker), as the Go runtime runs timers on its own context: that
// goroutine acquires what the timer's creator released when it set the
// timer, so the effect is ordered after the timer was set and after nothing
// else, whichever controlled goroutine holds the processor now.
//
//go:norace
func (e *Exec) fire(t *Timer) {
	e.waits++
	if b := t.bubble; b != nil {
		b.now = max(b.now, t.when) // the bubble's clock advances to it (bubble.go)
		if !b.passed {
			e.firstPass(b) // before the bubble blocked (addFirstPass)
		}
	} else if t.when > e.now {
		if e.idleAt == t.when {
			e.idleAdvance() // no goroutine could run (mutex.go)
		}
		e.now = t.when
	}
	if RaceEnabled {
		if e.tw == nil {
			e.tw = make(chan *Timer)
			e.twDone = make(chan struct{})
			go e.timerWorker()
		}
		raceDisable()
		e.tw <- t
		<-e.twDone
		raceEnable()
		return
	}
	e.fireEffect(t)
}

//go:norace
func (e *Exec) timerWorker() {
	for t := range e.tw {
		if t == nil {
			return
		}
		raceAcquire(unsafe.Pointer(t))
		e.fireEffect(t)
		e.twDone <- struct{}{}
	}
}

//go:norace
func (e *Exec) fireEffect(t *Timer) {
	switch {
	case t.ch != nil:
		select {
		case t.ch <- e.clockAt(t.bubble):
			e.fireWakes(t)
		default: // a ticker whose last tick was not received drops this one
		}
		if t.period > 0 {
			// The next tick; a ticker that fell behind (the clock moved
			// on while goroutines polled) skips the ticks it missed, as
			// Go's tickers do.
			t.when = later(t.when, t.period)
			if now := e.nowIn(t.bubble); t.when <= now {
				t.when = later(t.when, ((now-t.when)/t.period+1)*t.period)
			}
			e.nTimers++
			t.seq = e.nTimers
			e.retime(t)
		} else {
			e.stopTimer(t)
		}
	case t.goFn != nil:
		e.stopTimer(t)
		cur := e.cur
		e.cur = t.creator
		e.Go(t.goFn)
		e.cur = cur
	case t.fireFn != nil:
		e.stopTimer(t)
		t.fireFn()
	}
}

// Sleep models time.Sleep: the goroutine waits for its own timer.
//
//go:norace
func (e *Exec) Sleep(d time.Duration) {
	if d <= 0 {
		e.yield(Op{Kind: OpYield})
		return
	}
	t := e.newTimer(d)
	t.sleeper = e.cur
	e.yield(Op{Kind: OpSleep, Timer: t, Obj: unsafe.Pointer(t)})
	if b := t.bubble; b != nil {
		b.now = max(b.now, t.when) // the bubble's clock advances to it (bubble.go)
	} else if t.when > e.now {
		if e.idleAt == t.when {
			e.idleAdvance() // no goroutine could run (mutex.go)
		}
		e.now = t.when
	}
	e.stopTimer(t)
	e.cur.spins++ // sleeping in a loop is polling
	e.waits++     // and time passed: no long computation (Bug.Long)
}

// NewTimer models time.NewTimer with a *time.Timer whose channel heddle
// feeds on the virtual clock.
//
//go:norace
func (e *Exec) NewTimer(d time.Duration) *time.Timer {
	t := e.newTimer(d)
	t.ch = make(chan time.Time, 1)
	e.registerTimerChan(t.ch)
	tm := &time.Timer{C: t.ch}
	e.own(unsafe.Pointer(tm), t)
	e.bubbleFireNow(t, false)
	return tm
}

// registerTimerChan records ch, made by the run, as a timer's channel.
//
//go:norace
func (e *Exec) registerTimerChan(ch chan time.Time) {
	cs := e.chanOf(chanAddr(ch))
	cs.owned = true
	cs.timer = true
	e.bubbleChan(cs)
}

// TimerChan reports whether the channel at p is the channel of a Timer or
// Ticker made by the run, which len and cap must report as unbuffered under
// synchronous timer channels (see SyncTimerChans). heddle's timer channels
// have a buffer of one, as Go's own do: Go too reports len and cap 0 for
// them ("timer channels have a buffered implementation but present to
// users as unbuffered", runtime/chan.go), and Stop and Reset drain the
// buffer (discard).
//
//go:norace
func (e *Exec) TimerChan(p unsafe.Pointer) bool {
	o := e.objs.get(p)
	return o != nil && o.ch.timer && SyncTimerChans()
}

//go:norace
func (e *Exec) own(p unsafe.Pointer, t *Timer) {
	e.objs.obtain(p).timer = t
	if t.ch != nil {
		e.objs.obtain(chanAddr(t.ch)).timer = t // for fireDue
	}
}

// fireDue fires the timers behind the timer channels cases receive from
// that are due and have not fired yet, before a select with a default
// case (or a non-blocking receive) looks at its cases. Since Go 1.23 a
// receive from a timer's channel runs the timer if it is due and not in
// the runtime's timer heap (runtime.maybeRunChan, called by chanrecv and
// selectgo), so a poll of such a timer finds its value; here the firing
// is a step of its own that the poll could come before, and `select {
// case <-time.After(0): default: }` took its default, which Go cannot do.
// A channel timer joins the heap only when a goroutine blocks on its
// channel, and is then fired by the heap, which a poll may come before
// (TestTickerPoll shows it natively): a timer a blocking receive or
// select waited on (waited, never cleared) keeps its firing as a step of
// its own. A timer of a synctest bubble is left alone (its clock is the
// bubble's).
//
//go:norace
func (e *Exec) fireDue(cases []ChanCase, hasDefault bool) {
	if !SyncTimerChans() {
		return
	}
	for _, c := range cases {
		if c.IsSend() || c.Cap() != 1 { // a timer's channel has a buffer of one
			continue
		}
		p := c.Chan()
		if p == nil {
			continue
		}
		o := e.objs.get(p)
		if o == nil || !o.ch.timer || o.timer == nil {
			continue
		}
		t := o.timer
		if !hasDefault {
			t.waited = true
			continue
		}
		if t.waited || !t.active || t.when > e.now || t.bubble != nil || t.ch == nil || len(t.ch) > 0 {
			continue
		}
		e.noteFire(t)
		e.fire(t)
	}
}

// ownedTimer returns the timer behind a *time.Timer or *time.Ticker made by
// the run, or nil.
//
//go:norace
func (e *Exec) ownedTimer(p unsafe.Pointer) *Timer {
	if o := e.objs.get(p); o != nil {
		return o.timer
	}
	return nil
}

// AfterFunc models time.AfterFunc.
//
//go:norace
func (e *Exec) AfterFunc(d time.Duration, f func()) *time.Timer {
	e.goFence() // f's goroutine sees what the caller wrote before
	t := e.newTimer(d)
	t.goFn = f
	ft := &afterFuncTimer{f: f}
	rememberAfterFunc(ft)
	tm := &ft.tm
	e.own(unsafe.Pointer(tm), t)
	e.bubbleFireNow(t, false)
	return tm
}

// NewTicker models time.NewTicker.
//
//go:norace
func (e *Exec) NewTicker(d time.Duration) *time.Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	t := e.newTimer(d)
	t.period = d
	t.ch = make(chan time.Time, 1)
	e.registerTimerChan(t.ch)
	tk := &time.Ticker{C: t.ch}
	e.own(unsafe.Pointer(tk), t)
	return tk
}

// OwnsTimer reports whether tm was made by this run, or by an earlier
// one, which this run then adopts (staletimer.go).
//
//go:norace
func (e *Exec) OwnsTimer(tm *time.Timer) bool {
	return e.ownedTimer(unsafe.Pointer(tm)) != nil || e.adoptTimer(tm)
}

// OwnsTicker reports whether tk was made by this run, or by an earlier
// one, which this run then adopts.
//
//go:norace
func (e *Exec) OwnsTicker(tk *time.Ticker) bool {
	return e.ownedTimer(unsafe.Pointer(tk)) != nil || e.adoptTicker(tk)
}

// SyncTimerChans reports whether the program's timer channels are
// synchronous, as they are since Go 1.23 (the asynctimerchan setting,
// whose default follows the go line of the main module's go.mod, here the
// module under test): Stop and Reset of a Timer or a Ticker discard a
// value not yet received, and a Timer whose value was not received counts
// as active. Before Go 1.23, the value stays in the channel. It is read
// once, from what the Go runtime itself does: the cap of a real timer's
// channel is 0 only with synchronous channels.
var SyncTimerChans = sync.OnceValue(func() bool {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	return cap(t.C) == 0
})

// TimerStop models Timer.Stop, under the program's timer semantics (see
// SyncTimerChans).
//
//go:norace
func (e *Exec) TimerStop(tm *time.Timer) bool {
	t := e.ownedTimer(unsafe.Pointer(tm))
	if e.timerOutsideBubble(t, "stop") {
		return false
	}
	e.yield(Op{Kind: OpTimerStop, Obj: unsafe.Pointer(t)})
	pending := e.discard(t)
	t.markZombie()
	return e.stopTimer(t) || pending
}

// TimerReset models Timer.Reset.
//
//go:norace
func (e *Exec) TimerReset(tm *time.Timer, d time.Duration) bool {
	t := e.ownedTimer(unsafe.Pointer(tm))
	if e.timerOutsideBubble(t, "reset") {
		return false
	}
	e.yield(Op{Kind: OpTimerStop, Obj: unsafe.Pointer(t)})
	pending := e.discard(t)
	heaped := t.inGoHeap()
	was := e.stopTimer(t) || pending
	e.startTimer(t, d)
	e.bubbleFireNow(t, heaped)
	if heaped {
		t.bubble.noteHeapedDue(t)
	}
	return was
}

// inGoHeap reports whether t, a timer of a synctest bubble, is in Go's
// timer heap of the bubble: an active AfterFunc (or context deadline), an
// active timer whose channel a goroutine waited on (Go adds a channel
// timer to the heap only then), or one stopped there (a zombie) since the
// bubble's timers last ran. Reset(0) runs a timer at once only if it is
// not in the heap (runtime's timer.modify); one in the heap fires when
// the bubble next blocks: `AfterFunc(time.Hour, f); Stop(); Reset(0)`
// does not start f before, in every native run.
//
//go:norace
func (t *Timer) inGoHeap() bool {
	if t.bubble == nil {
		return false
	}
	if t.active && (t.ch == nil || t.waited) {
		return true
	}
	return t.zombie && t.zombieRel == t.bubble.nRel
}

// markZombie records that Stop leaves t in Go's timer heap of its bubble
// (inGoHeap), until the bubble's timers next run.
//
//go:norace
func (t *Timer) markZombie() {
	if t.bubble == nil || !t.active || (t.ch != nil && !t.waited) {
		return
	}
	if !t.zombie || t.zombieRel != t.bubble.nRel {
		t.zombie, t.zombieRel = true, t.bubble.nRel
	}
}

// discard drops the value of t not yet received, with synchronous timer
// channels (Go 1.23 on), and reports whether there was one: such a timer
// has not delivered its value, so Stop and Reset count it as active.
// Before Go 1.23 the value stays, and the program must drain it itself.
//
//go:norace
func (e *Exec) discard(t *Timer) bool {
	if !SyncTimerChans() || e.heldValue(t) {
		return false // a value sent to a waiter is not pending (fireWakes)
	}
	return drain(t.ch)
}

// TickerStop models Ticker.Stop: from Go 1.23 on, a tick not yet received
// is discarded, as Timer.Stop does.
//
//go:norace
func (e *Exec) TickerStop(tk *time.Ticker) {
	t := e.ownedTimer(unsafe.Pointer(tk))
	if e.timerOutsideBubble(t, "stop") {
		return
	}
	e.yield(Op{Kind: OpTimerStop, Obj: unsafe.Pointer(t)})
	e.discard(t)
	e.stopTimer(t)
}

// timerOutsideBubble reports, as a misuse, Go's fatal error for the Stop or
// Reset (what) of a timer of a synctest bubble by a goroutine in no
// bubble (runtime's stopTimer and resetTimer), and reports whether it did.
//
//go:norace
func (e *Exec) timerOutsideBubble(t *Timer, what string) bool {
	if t == nil || t.bubble == nil || e.cur == nil || e.cur.bubble != nil || e.aborting {
		return false
	}
	e.misuse("fatal error: " + what + " of synctest timer from outside bubble")
	return true
}

// TickerReset models Ticker.Reset.
//
//go:norace
func (e *Exec) TickerReset(tk *time.Ticker, d time.Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	t := e.ownedTimer(unsafe.Pointer(tk))
	if e.timerOutsideBubble(t, "reset") {
		return
	}
	e.yield(Op{Kind: OpTimerStop, Obj: unsafe.Pointer(t)})
	e.discard(t)
	e.stopTimer(t)
	t.period = d
	e.startTimer(t, d)
}

// drain empties ch and reports whether it held a value.
//
//go:norace
func drain(ch chan time.Time) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

//go:norace
func chanAddr[T any](ch chan T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

// readClock is called at every read of the virtual clock by the running
// goroutine. Reading it again without a scheduling point in between is a
// busy-wait on time (for time.Since(start) < d {}): it polls, and the clock
// moves as it does for other polls, or the loop would never end.
//
//go:norace
func (e *Exec) readClock() {
	g := e.cur
	if g == nil || g.bubble != nil {
		return // a synctest bubble's clock is its own, and stands still while its goroutines run (bubble.go)
	}
	e.clockSeen, e.lateSinceRead = true, false // a late wake may be seen now (latewake.go)
	if g.clockSeq != g.opSeq {
		g.clockSeq, g.clockReads = g.opSeq, 0
		// The first read since a scheduling point. If the clock has not
		// moved since g's last read, g went round a loop that reads the
		// clock (for { mu.Lock(); expired := time.Now().After(t);
		// mu.Unlock(); ... }, a cache's Get until its entry expires):
		// natively that loop takes time, so the clock moves, by
		// PollTime, doubled every clockPollDouble such reads in a row.
		// Otherwise a busy-wait whose reads are separated by scheduling
		// points never ends.
		if g.clockRead && g.clockAt == e.now {
			g.clockPolls++
			d := min(PollTime<<min(g.clockPolls/clockPollDouble, 20), MaxReadStep)
			e.now += d
			e.polled += d
		} else {
			g.clockPolls = 0
		}
	}
	g.clockReads++
	d := ReadTime
	if g.clockReads > freeReads {
		d = min(pollStep(g.clockReads-freeReads), MaxReadStep)
	}
	e.now += d
	e.polled += d
	g.clockRead, g.clockAt = true, e.now
}

// ReadTime is how far the clock moves at a read of it: time passes while
// code runs, so two reads are never equal and a read after time.Sleep(d) is
// past the start plus d, as natively; 1,000 reads in a loop take 20 µs, as
// natively they take some tens of microseconds.
const ReadTime = 20 * time.Nanosecond

// SameInstant is the starvation below which a timer's early firing is no
// timing assumption: natively the timers due less than a microsecond
// apart fire as one. Go's runtime looks at its timers only when a P
// schedules or wakes from a timed wait (runtime/time.go, timers.check; an
// idle P waits in netpoll, whose epoll wait counts whole milliseconds,
// runtime/netpoll_epoll.go), and runs every timer then due in one pass,
// in heap order; the goroutines they make runnable (goready, or the `go`
// of an AfterFunc) each take the P's runnext, so the last one runs first. So a
// context.WithTimeout(d) and a sibling's time.Sleep(d) started a few clock
// reads later (ReadTime each) fire in either order, and the sleeper's
// first natively far more often than not. A clock read keeps its
// ReadTime (two reads differ, a read after Sleep(d) is past the start
// plus d); only the verdict on a firing that early changes: it is an
// order native Go shows, not a slow machine (explore, timing.go).
const SameInstant = time.Microsecond

// freeReads is the number of consecutive reads of the clock, with no other
// operation between them, after which a goroutine is taken to busy-wait on
// the clock and the clock moves as for a poll (pollStep).
const freeReads = 4096

// MaxReadStep is the most a read of the clock moves it, however long the
// goroutine has been reading it (freeReads, clockPollDouble). A loop that
// reads the clock to catch up with it moves its own target on at each
// read (gocron's `for next.Before(s.now()) { next = j.next(next) }`, next
// a job's interval later each time): natively each read costs tens of
// nanoseconds and the loop ends, but with reads moving the clock by up to
// a second (pollStep's bound) the clock outran every interval under a
// second, and the loop, never ending, held heddle for the ten minutes of
// go test's timeout (gocron's TestScheduler_Update). A millisecond keeps a
// busy-wait on the clock short (a second of it takes about a thousand
// reads) and lets every loop whose step is longer catch up.
const MaxReadStep = time.Millisecond

// clockPollDouble is the number of clock reads in a row, each separated
// from the last by scheduling points but seeing the same time, after which
// the time such a read moves the clock doubles. It is larger than
// pollDouble: such reads are also those of a loop that works (a thousand
// Adds to a cache, each reading the clock), which must not see much more
// time pass than it would natively, about a microsecond each.
const clockPollDouble = 4096

// The active timers are a binary heap in Exec.timers, the first to fire
// (by deadline, then seq) at the root; Timer.hi is a timer's index in it.
// With a thousand sleepers (ants' pool tests), finding the next timer,
// and removing one, was a pass over all of them at every step.

//go:norace
func timerBefore(a, b *Timer) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

//go:norace
func (e *Exec) pushTimer(t *Timer) {
	e.nAct++
	t.act = e.nAct
	if b := t.bubble; b != nil {
		b.pushTimer(t) // on the bubble's clock: a heap of its own (bubble.go)
		return
	}
	t.hi = len(e.timers)
	e.timers = append(e.timers, t)
	timerUp(e.timers, t.hi)
	e.dueAdd(t)
}

//go:norace
func (e *Exec) removeTimer(t *Timer) {
	if b := t.bubble; b != nil {
		b.removeTimer(t)
		return
	}
	if i := t.hi; i < 0 || i >= len(e.timers) || e.timers[i] != t {
		return
	}
	e.dueRemove(t)
	e.timers = timerRemove(e.timers, t)
}

// timerRemove takes t, which is in the heap h at t.hi, out of it and
// returns the heap.
//
//go:norace
func timerRemove(h []*Timer, t *Timer) []*Timer {
	i, last := t.hi, len(h)-1
	if i != last {
		h[i] = h[last]
		h[i].hi = i
	}
	h[last] = nil
	h = h[:last]
	if i != last && !timerUp(h, i) {
		timerDown(h, i)
	}
	t.hi = -1
	return h
}

// fixTimer restores the heap after the deadline of the timer at i changed.
//
//go:norace
func (e *Exec) fixTimer(i int) {
	if i < 0 || i >= len(e.timers) {
		return
	}
	e.dueOK = false // its deadline was another one
	if !timerUp(e.timers, i) {
		timerDown(e.timers, i)
	}
}

// retime restores the heap of t, the run's or its bubble's, after t's
// deadline changed.
//
//go:norace
func (e *Exec) retime(t *Timer) {
	if b := t.bubble; b != nil {
		b.fixTimer(t)
		return
	}
	e.fixTimer(t.hi)
}

//go:norace
func timerUp(h []*Timer, i int) bool {
	moved := false
	for i > 0 {
		p := (i - 1) / 2
		if !timerBefore(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		h[i].hi, h[p].hi = i, p
		i, moved = p, true
	}
	return moved
}

//go:norace
func timerDown(h []*Timer, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && timerBefore(h[r], h[l]) {
			m = r
		}
		if !timerBefore(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		h[i].hi, h[m].hi = i, m
		i = m
	}
}

// timersAt returns the active timers due at w in the order they became
// active (as a pass over a list of them in that order would give them):
// the heap's nodes due at w or before, sorted. For w the heap's first
// deadline (the usual case) the list is kept from call to call
// (dueTimers): a timer that becomes active at that instant comes last, one
// that stops leaves it; a hundred sleepers due together were sorted again
// at every step. The slice is the Exec's, valid until the timers change.
//
//go:norace
func (e *Exec) timersAt(w time.Duration) []*Timer {
	if e.dueOK && e.dueWhen == w {
		return e.due
	}
	out := e.due[:0]
	stack := e.timerStack[:0]
	if len(e.timers) > 0 {
		stack = append(stack, 0)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(e.timers) {
			continue
		}
		e.timerLooks++
		if e.timers[i].when > w {
			continue
		}
		if e.timers[i].when == w {
			out = append(out, e.timers[i])
		}
		stack = append(stack, 2*i+1, 2*i+2)
	}
	sortByAct(out)
	e.due, e.timerStack = out, stack
	// Kept only for the first deadline: the timers that change are
	// then told apart by their deadline alone (dueChanged).
	e.dueWhen, e.dueOK = w, len(e.timers) > 0 && e.timers[0].when == w
	return out
}

// dueAdd and dueRemove keep the list of timers due at the first deadline
// (timersAt) as t joins or leaves the heap; dueReset drops it.
//
//go:norace
func (e *Exec) dueAdd(t *Timer) {
	if !e.dueOK {
		return
	}
	switch {
	case t.when == e.dueWhen:
		e.due = append(e.due, t) // the latest to become active
	case t.when < e.dueWhen:
		e.dueOK = false // a new first deadline
	}
}

//go:norace
func (e *Exec) dueRemove(t *Timer) {
	if !e.dueOK || t.when != e.dueWhen {
		return
	}
	for i, x := range e.due {
		if x == t {
			// By hand: copy's runtime code is seen by the race detector.
			for j := i + 1; j < len(e.due); j++ {
				e.due[j-1] = e.due[j]
			}
			e.due[len(e.due)-1] = nil
			e.due = e.due[:len(e.due)-1]
			break
		}
	}
	if len(e.due) == 0 {
		e.dueOK = false // the next deadline is another one
	}
}

// sortByAct sorts ts by activation order (heapsort: by hand, as the
// engine's own memory must not be touched by instrumented code).
//
//go:norace
func sortByAct(ts []*Timer) {
	n := len(ts)
	sift := func(i, n int) {
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			m := l
			if r := l + 1; r < n && ts[r].act > ts[l].act {
				m = r
			}
			if ts[m].act <= ts[i].act {
				return
			}
			ts[i], ts[m] = ts[m], ts[i]
			i = m
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		sift(i, n)
	}
	for end := n - 1; end > 0; end-- {
		ts[0], ts[end] = ts[end], ts[0]
		sift(0, end)
	}
}
