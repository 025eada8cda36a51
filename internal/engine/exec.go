// Package engine runs one execution of a test under heddle's control: it owns
// the run's goroutines and the shadow state of every synchronization object
// they touch, serializes the goroutines so that exactly one runs at a time,
// and asks a Strategy which one runs at each scheduling point.
//
// Exploration across runs (budgets, strategies that learn, reports) lives in
// package explore; one file per modelled primitive lives here.
package engine

import (
	mathrand "math/rand"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// active is the run in progress. Explorations run one at a time per process.
var active atomic.Pointer[Exec]

// Current returns the run in progress when the caller is the controlled
// goroutine that holds heddle's processor, and nil otherwise: outside an
// exploration, and in goroutines heddle does not control (started in init,
// by a finalizer, or by code that is not rewritten), which run rewritten
// code natively. Only the goroutine holding the processor can be calling
// as a controlled goroutine, the others being parked, so comparing the
// caller's identity with e.cur's tells them apart.
//
//go:norace
func Current() *Exec {
	e := active.Load()
	if e == nil {
		endAbandoned(getg())
		return nil
	}
	gid := getg()
	if c := e.cur; c == nil || c.gid != gid {
		if e.nDetached.Load() > 0 {
			// A goroutine the run's monitor detached, back from code
			// heddle does not control: it waits to be scheduled.
			if g := e.detachedFor(gid); g != nil {
				if ok, abandoned := e.reattach(g, false, false); ok {
					return e
				} else if abandoned {
					runtime.Goexit()
				}
			}
		}
		endAbandoned(gid)
		e.natives.Add(1)
		return nil
	} else if c.entries++; c.claim.Load() != 0 || c.entries == c.replayDetach {
		// The monitor is taking over from c, or a replay detaches c
		// where the recorded run did (detach.go).
		if _, abandoned := e.reattach(c, true, false); abandoned {
			runtime.Goexit()
		}
	}
	return e
}

// nativeSeen reports whether a goroutine heddle does not control may take
// part in the run: one called rewritten code, or a probe performed an
// operation on a foreign channel (whose partner is such a goroutine). It
// may then hold any channel, even one made by the run, and operate on it
// natively: channels made by the run are then probed as foreign ones are
// (see caseReady and waitForeign).
//
//go:norace
func (e *Exec) nativeSeen() bool { return e.probed || e.natives.Load() > 0 }

// Active returns the run in progress, whichever goroutine asks, or nil
// outside an exploration.
//
//go:norace
func Active() *Exec { return active.Load() }

type gState uint8

const (
	gRunning gState = iota // owns the processor
	gParked                // waiting at a scheduling point; op is pending
	gDone                  // returned, panicked or called Goexit
)

// G is a controlled goroutine.
type G struct {
	// Index is the creation order in the run, from 0.
	Index int
	// The fields a pass over every waiter of a lock reads at each step
	// (touchDirs, merge, starvation, dropSpinners, the strategies' looks
	// at pending operations), together on three cache lines (Index to
	// lastStep on the first, op on the second): pond's
	// TestPoolSubmitWhileStoppingHasNoRace has ten thousand goroutines
	// waiting on one mutex, and each of them was read on eight lines.
	state     gState
	inDirty   bool   // g is in Exec.dirty
	foreign   bool   // g's pending operation has a foreign channel (set with regSeq)
	couldRun  bool   // g could run when a timer's early firing was weighed, and has not run since (starvation)
	starveSeq uint32 // the times g joined the set of starvation (starveEntry)
	nch       int    // g's choices in Exec.gch (enabledset.go)
	opSeq     uint64 // announcement order, for FIFO among waiters
	regSeq    uint64 // the opSeq for which g is in its objects' watcher lists
	grpSeq    uint64 // the opSeq for which g is in its Mutex's waiter group (lockgroup.go), or 0
	spins     int    // consecutive operations without progress; see Spins
	selStreak int32  // how many times in a row (see selectFairness)
	// countBound: g's pending operation is one of a counted loop's, which
	// polls at most countBound times (spincount.go); 0 otherwise. g is
	// not spinning there before it polled spinDrop+countBound times in a
	// row (dropAt).
	countBound int32
	lastStep   int // the last step g took, for the fair scheduler
	op         Op
	sq         queued        // g's place in a Mutex's or RWMutex's queue (mutex.go)
	ranAt      time.Duration // virtual time of g's last step that was not an early wake-up

	// ID is the symbolic id: g0 for the test goroutine, g0.2 for the second
	// goroutine g0 started. Stable from run to run.
	ID string

	// CreatedAt is the number of steps taken when the goroutine was
	// created: its go statement belongs to step CreatedAt of its parent.
	CreatedAt int
	Parent    *G
	// System marks goroutines heddle starts itself (to watch a foreign
	// context); they are never reported as leaks.
	System bool
	// tRunner: g runs a test's function and cleanups (MarkTestGoroutine).
	tRunner bool
	// pollMark: g's pending operation is one of a marked poll loop's
	// second or later iteration (spinmark.go).
	pollMark bool
	// GoPC is the call site of the go statement, when the run records
	// positions.
	GoPC uintptr

	gid  uintptr // the identity (getg) of the real goroutine running g
	goid int64   // the goroutine id the program sees in a stack dump (start): never reused in the process
	fnPC uintptr // fn's code (start), for the "created by" line of a dump
	// goName is the native name of fn natively (GoNamed), or "";
	// goTarget, if not 0, the function fn only calls, which natively is
	// the goroutine's function: a dump leaves fn's frame out.
	goName   string
	goTarget uintptr
	exec     *Exec
	fn       func()
	w        *worker
	wake     *handoff // g's turn (handoff.go): its worker's
	kids     int
	nTmr     int // timers this goroutine created, for timer ids

	sel        int            // the case the scheduler chose for the pending select
	committed  int            // a probe already performed this case (-1: none)
	woken      int            // 1 + the case a close of its channel committed the arrived operation to (0: none; chan.go, wakeClosed)
	matched    bool           // a partner chose this goroutine to complete a rendezvous
	arrived    bool           // the pending channel operation arrived: g waits on its channels (chan.go)
	signalled  bool           // OpCondBlocked: woken by Signal or Broadcast
	settleSeq  uint64         // the opSeq of g's operation whose foreign probe settled (settleProbe)
	condQueued bool           // in Cond.Wait, g joined the Cond's notify list (cond.go)
	vc         VC             // recorded runs: the goroutine's vector clock
	selChan    unsafe.Pointer // the channel of g's last select case taken among several ready
	clockSeq   uint64         // g.opSeq at g's last clock read (readClock)
	clockReads int            // clock reads since g's last scheduling point
	clockRead  bool           // g read the clock in this run
	clockAt    time.Duration  // the virtual time g's last clock read returned
	clockPolls int            // reads in a row that saw clockAt unchanged (readClock)
	loads      [loadsSeen]loadSeen
	nextLoad   int
	lastLoad   int
	newStreak  bool
	stepIdx    int       // index in the trace of g's current step
	normal     bool      // fn returned normally: the goroutine can be reused
	unwindOps  int       // operations performed by deferred calls while unwound (unwindRuns)
	pooled     bool      // the goroutine went back to the pool
	unwound    bool      // ended by unwind at the end of the run, at its pending operation
	sb         *storeBuf // heddle test -racy: g's store buffer (storebuf.go)
	flushes    *storeBuf // g is the flusher of this store buffer: a pseudo-goroutine
	// Detached goroutines (detach.go): claim is set by the run's monitor
	// when it takes over from g, which waits in code heddle does not
	// control; detached, back (g came back and waits to be scheduled) and
	// abandoned (the run ended while g was away) are guarded by
	// Exec.detachMu.
	claim                     atomic.Int32
	detached, back, abandoned bool
	// waitsChild is set on a detached goroutine whose wait outside heddle's
	// code is for a child process (Config.ChildWait); ioWaits counts the
	// run's waits for it before a timer that ended without it coming back
	// since it was detached (waitChild); reached is set when the run acted
	// on the world outside the process since its last such wait
	// (ReachOut).
	waitsChild bool
	ioWaits    uint8
	reached    bool
	// awayAt is the virtual time at which g was detached; seenBack is set
	// once the choices of a step had g back (nativeBack): awayFloor.
	awayAt   time.Duration
	seenBack bool
	// entries counts g's entries into the engine while it holds the
	// processor (Current, its end): where it was detached, for a replay
	// (Result.Detached); replayDetach, when not 0, is the entry at which a
	// replay detaches g, as the recorded run did (detach.go).
	entries, replayDetach uint64
	// bubble is the testing/synctest bubble g belongs to, if any (bubble.go).
	bubble *Bubble
	// quiet is g's state in a region of allocation counting (quiet.go).
	quiet int
}

// Result is what a run produced.
type Result struct {
	Bug     *Bug
	Steps   int
	Choices []Choice // the choices made where more than one was enabled
	Trace   []Step   // every step
	Gs      []*G     // every goroutine of the run
	MaxGs   int      // most goroutines alive at once
	// Truncated is set when the run did not end by itself: it hit the step
	// bound, was handed to the fair scheduler, or was ended after the test
	// returned while goroutines kept running. An exhaustive strategy cannot
	// claim to have covered a space whose runs were cut short.
	Truncated bool
	// RandDraws counts the numbers the program drew from rewritten
	// math/rand: a run's behaviour may depend on them, not only on its
	// schedule.
	RandDraws int
	// Internal is set when heddle's own code (the scheduler, a strategy)
	// panicked during the run: the cause and its stack. The run was ended
	// at once; its Bug, if any, is not to be trusted, and the exploration
	// must stop with a heddle error rather than report a bug of the test.
	Internal string
	// Natives counts the operations of rewritten code that goroutines
	// heddle does not control (started in init, by a finalizer, or by
	// code that is not rewritten) performed natively during the run: they
	// were not explored.
	Natives int64
	// Partnered is set when a probe of a foreign channel found a partner
	// (a goroutine heddle does not control took part in the run).
	Partnered bool
	// Quiet counts the operations performed without a scheduling point
	// in regions of allocation counting (quiet.go): not explored.
	Quiet int64
	// Detaches counts the times a goroutine of the run was detached: it
	// waited outside heddle's control (a system call, I/O, code that is
	// not rewritten), and when that wait ended was up to the operating
	// system, not a choice heddle explored.
	Detaches int
	// Detached lists where goroutines were detached and when they came
	// back, for a replay to do the same (Config.Detached; detach.go).
	Detached []Detached
	// PendingAfterFuncs counts the time.AfterFunc timers still armed
	// when the run ended (staletimer.go): natively they fire after the
	// run, during whatever the process runs next.
	PendingAfterFuncs int
	// SpinDrops counts the steps at which dropSpinners kept a goroutine
	// that had polled SpinDrop times in a row without progress from
	// running while another goroutine could run. Such a drop bounds the
	// schedules explored: a poll loop with a counter (three loads with a
	// Gosched between) ends after its last poll, and the schedules in
	// which it does so before the others moved were not run. An
	// exhaustive strategy's claim then holds for the schedules in which no
	// goroutine polls more than SpinDrop times in a row while another can
	// run (Config.KeepSpinners lifts the bound).
	SpinDrops int
	// PollDrops counts the steps at which dropSpinners kept goroutines
	// from running while another could, all of them at an operation of a
	// marked poll loop's second or later iteration (spinmark.go): such a
	// drop leaves out no outcome and bounds nothing.
	PollDrops int
	// Unstepped counts the files (*os.File) the run handed to standard
	// library code that keeps them to read or write later (bufio.NewWriter,
	// log.New): those reads and writes were no steps, not explored
	// (Exec.Unstepped, rt/file.go).
	Unstepped int
	// OverMemory is set when the run was ended because the heap grew
	// past Config.MaxHeap: what it held, and what grew most.
	OverMemory string
	// OverTime is set when the run was ended at Config.Deadline.
	OverTime bool
	// EnabledFrom is, in a recorded run, the first step of Trace whose
	// Enabled set was kept: a long run with many goroutines keeps those
	// of its last steps only (enabledlog.go).
	EnabledFrom int
	// ClocksTo is, in a recorded run, the first step of Trace without a
	// vector clock, or 0 when every step has one: a long run with many
	// goroutines stops computing them once they take Config.ClockBound bytes
	// (trace.go).
	ClocksTo int
	// Unfinished is set when the run was still going at Config.Deadline
	// plus Config.Grace and was ended in the middle: what it changed in
	// the program's state is as no whole run leaves it.
	Unfinished bool
	// CutAway is the goroutine that was waiting outside heddle's control
	// (I/O, a child process) when the run was ended at Config.Deadline
	// plus Grace in that wait (waitCut), or "".
	CutAway string
	// Interrupted is set when the run was ended in the middle because
	// Config.Stop became true; OverTime is set with it, so that whoever
	// looks for a verdict sees a run that has none.
	Interrupted bool
}

// Config is the per-run configuration.
type Config struct {
	// KeepSpinners keeps spinning goroutines among the choices (the
	// replays that decide a timing verdict): dropped beside a timer that
	// may fire early, they make the firing the only choice, which no
	// strategy could then avoid.
	KeepSpinners bool
	StepLimit    int
	// OtherGoroutines is how many goroutines a native run has beside the
	// run's own, which NumGoroutine counts: 1 for a test or an example
	// (the test binary's main goroutine, waiting in t.Run or copying the
	// example's output), 0 for a program's main.
	OtherGoroutines int
	// MaxHeap, if not 0, ends a run whose process heap grows past this
	// many bytes (Result.OverMemory), checked every few thousand steps.
	MaxHeap uint64
	// Deadline, if not zero, ends a run still going at that (wall clock)
	// time, with Result.OverTime: a time budget is kept even by a long run.
	Deadline time.Time
	// DeadlineAway limits Deadline to the waits for goroutines away in
	// code heddle does not control (I/O, a child process, waitCut): the
	// run's steps go on past it. heddle test sets it for a test's first
	// run, which a time budget does not cut in the middle: a cut run
	// decides nothing, and a test with no run finished would pass having
	// shown nothing.
	DeadlineAway bool
	// Epoch is the virtual instant at which the run starts (zero: the
	// package's Epoch, 2000-01-01 UTC). heddle test sets it to the wall
	// clock at its start, so that code comparing time.Now with real dates
	// (an expiry, a certificate's validity, a year in a cron expression)
	// sees what it sees natively; schedules record it.
	Epoch time.Time
	// Stop, if not nil, ends a run in the middle once it is true
	// (Result.Interrupted), checked as often as Deadline: an interrupt
	// (Ctrl-C) does not wait for a run of minutes to end.
	Stop *atomic.Bool
	// Grace is how much longer than Deadline a run may take to end by
	// itself: past Deadline it is scheduled fairly, leaves no time to the
	// goroutines left after the test returned, and is ended only at
	// Deadline+Grace. A run ended in the middle leaves the program's state
	// (a package variable a test sets and resets) as no whole run does, for
	// the tests after it: ants' TestMultiPool, ended between setting
	// stopLongRunningFunc and resetting it, made the next test fail.
	Grace time.Duration
	// PostMain is the least number of steps the goroutines left may take
	// after the test function returned (default: 10000, or a quarter of
	// StepLimit if that is less); half of it is also the length of the
	// fair phase that ends such a run. See endAfterMain.
	PostMain int
	// PostTime is how much virtual time the goroutines left get after the
	// test function returned before the fair phase that ends the run may
	// start (default 5ms). Goroutines that keep working without time
	// passing (a long but finite loop of channel or lock operations) run
	// on; a ticker loop or a poller, which moves the clock, is ended.
	PostTime time.Duration
	// PostMainMax bounds the steps after the test function returned before
	// the fair phase starts, whatever the clock says (default StepLimit/2).
	PostMainMax int
	// FairAfter is the step after which a fair scheduler replaces the
	// strategy for the rest of the run (default StepLimit/2); see
	// fairChoice.
	FairAfter int
	// FairSteps, if not 0, is what heddle knows of a fair run of the test
	// (explore measures one when a run passes the step bound): it ended
	// in FairSteps steps or, if negative, had not ended after -FairSteps.
	// The step-bound message says so (StepLimitMessage).
	FairSteps int
	// TraceMax, if not 0, bounds the steps the trace keeps (Trace,
	// Record): the first TraceMax. The runs of a test whose step bound was
	// raised to millions of steps keep as much trace as under the first
	// bound.
	TraceMax int

	MaxStarve time.Duration
	// LateWake lets the clock move on by up to MaxStarve, with no timer
	// firing, while a goroutine that could run waits (latewake.go): a
	// choice offered only once the run has read the clock.
	LateWake bool
	// TimeLimit, if not 0, ends a run whose test function has not returned
	// once the virtual clock has advanced by more than TimeLimit, not
	// counting the time polls and clock reads moved it by (e.polled) or
	// late wakes (e.lateMoved), nor a synctest bubble's clock: a
	// step-bound bug with Bug.Clock set. The
	// clock advances only to a timer's deadline, and natively no timer
	// fires before it: the same schedule takes at least as long natively,
	// where go test's -timeout (10 minutes by default) ends it. ants' Tune
	// lost its wakeup with two tickers keeping the run alive, 17 steps per
	// virtual second: the step bound came after 16 hours of virtual time.
	TimeLimit time.Duration
	// Horizon is how far virtual time may advance after the test function
	// returned, to let leftover goroutines finish, before the ones still
	// blocked or running are leaks (default one minute); see afterMain.
	Horizon time.Duration
	// NoLeaks is set when leaks are not reported: goroutines that keep
	// running after the test returned are not run on to the horizon.
	NoLeaks bool
	// DormantFrom is the number of goroutines from which a run keeps its
	// enabled set from step to step and recomputes only the choices of
	// the goroutines a step may have changed (enabledset.go); below it the
	// bookkeeping costs more than it saves. Default 8 (32 before: a run
	// of conc's iter tests, ten goroutines of which eight wait on
	// channels, spent a sixth of its time probing them again at every
	// step; runs of two or three goroutines are not affected); -1 recomputes
	// every goroutine at every step (for the test that shows it changes no
	// choice).
	DormantFrom int
	// Record makes the run capture call sites, enabled sets and vector
	// clocks of every step (for reports and replay -v). It is slower.
	Record bool
	// EnabledBound is how many bytes a recorded run allocates for the
	// enabled sets of its steps before it keeps those of its last steps
	// only (Result.EnabledFrom); 0 means 256 MiB.
	EnabledBound uint64
	// ClockBound is how many bytes a recorded run allocates for the
	// vector clocks of its steps before the steps after get none
	// (Result.ClocksTo); 0 means 256 MiB.
	ClockBound uint64
	// Trace makes the run keep its trace of steps (Result.Trace), which
	// Record implies. Strategies such as DPOR need it; random and PCT do
	// not, and runs are faster without it.
	Trace bool
	// Seed seeds the run's math/rand sources.
	Seed uint64
	// NativePartners says that goroutines heddle does not control took
	// part in earlier runs of the exploration (Result.Natives,
	// Result.Partnered): a blocking operation on a foreign channel then
	// settles from the run's start (settleProbe).
	NativePartners bool
	// Progress is incremented at every step; a watchdog reads it, and so
	// does the run's monitor (detach.go).
	Progress *atomic.Int64
	// Procs is what runtime.GOMAXPROCS reports to the program during the
	// run (the exploration itself runs on one processor).
	Procs int
	// Pool, if set, lends goroutines to the run; see Pool.
	Pool *Pool
	// Stuck is closed by the watchdog when the running goroutine made no
	// progress for too long: it is blocked outside heddle's control.
	Stuck <-chan struct{}
	// DetachWait is how long, in real time, a run in which nothing else
	// can run waits for goroutines detached in code heddle does not
	// control to come back, before it reports them deadlocked or leaked
	// (default 10s, the watchdog's default; detach.go).
	DetachWait time.Duration
	// ChildWait replaces DetachWait while a detached goroutine waits for
	// a child process (os.Process.Wait: exec.Cmd's Run, Wait, Output):
	// the child is working, as a compiler or a server the test runs does,
	// and natively the test waits for it (default 2m; detach.go).
	ChildWait time.Duration
	// Detached, when not nil, is the recorded run's Result.Detached: a
	// replay detaches goroutines where it did and nowhere else, whether
	// their wait is long or short this time, holds a goroutine that came
	// back until the step at which it came back then, and waits for it
	// there (detachplan.go). Empty: the recorded run detached none.
	Detached []Detached
	// FollowPoints, when positive, makes the run follow Detached only
	// until its strategy has chosen at that many points: an exploring
	// strategy that replays a prefix of the run it made last (DPOR) gives
	// that run's record, so that where its goroutines waited in code
	// heddle does not control, and when they came back, are the same in
	// the prefix. A goroutine that waits where the record says nothing is
	// detached, as in any run, and after the prefix the run detaches and
	// sees goroutines back as one without a record does.
	FollowPoints int
}

// Exec is one run.
type Exec struct {
	cfg   Config
	strat Strategy

	gs       []*G
	cur      *G
	live     int
	maxLive  int
	steps    int
	seq      uint64
	gen      uint64 // counts passes of enabled, for caches valid during one
	returnTo *G     // the goroutine to resume when a rendezvous partner parks

	objs    objTable  // shadow state of every object the run touched
	saved   []uintptr // the sync objects to restore, by address (syncstate.go)
	timers  []*Timer  // active timers
	nTimers uint64
	now     time.Duration // virtual time since Epoch
	lastRun time.Duration // virtual time of the last goroutine step that starved no one
	idleAt  time.Duration // virtual time of the last timer fired when no goroutine could run
	lockers []*G          // goroutines found blocked on a lock since the last idle advance (mutex.go)
	// foreignWaited is the real time spent waiting for foreign channels,
	// detachWaited for detached goroutines (detach.go).
	foreignWaited, detachWaited time.Duration
	// childWaited is how long the run waited, since step childStep, for
	// a goroutine waiting for a child process before a timer (waitChild).
	childWaited time.Duration
	childStep   int
	// ioWaited is how long the run's waits for goroutines detached in
	// I/O before a timer lasted in all when they ended without one coming
	// back (waitChild; at most ioWaitBudget).
	ioWaited time.Duration

	// signalChans are the channels signal.Notify registered in the run
	// (signalwait.go).
	signalChans []unsafe.Pointer
	// signalHub is package rt's state of the signals of the run
	// (SignalHub): its signal.Notify registrations and the signals sent
	// to the own process not yet delivered.
	signalHub any

	// waits counts the polls (a Gosched, a select's default, a failed
	// TryLock, an unchanged atomic load) and timer firings of the run;
	// waitsAtHalf is its value at step StepLimit/2: a run that hits the
	// step bound with no wait since is long, not looping (Bug.Long).
	waits, waitsAtHalf int
	// progressAt is the step of the run's last progress (progressed), and
	// progressGap the longest stretch of steps without any since step
	// StepLimit/2: a run that hits the step bound while its goroutines
	// keep changing what others read is long, not looping (Bug.Long).
	progressAt, progressGap int
	// yieldAt is the step from which a poll yields the real processor
	// again (poll).
	yieldAt int

	mainDone     bool
	mainDoneAt   time.Duration
	mainDoneStep int
	// polled is the virtual time polls moved the clock by (pollStep), and
	// mainPolled its value when the test returned: the horizon of leaks
	// counts only the time timers and sleeps made pass, since a busy loop
	// whose polls move the clock ever faster is not a goroutine waiting.
	polled, mainPolled time.Duration
	atMainReturn       []func()  // AtMainReturn
	postFair           int       // step at which the fair phase after the test began (0: not yet)
	spinEnd            bool      // the run ends after the test because every goroutine left only polls (onlyPolls)
	incr               bool      // the enabled set is kept from step to step (enabledset.go)
	rebuildAll         bool      // the last step may have changed any goroutine's choices
	arrivedLast        bool      // the last step was a goroutine's arrival (sched.go)
	dirty              []*G      // goroutines whose choices the last step may have changed
	dirtyBits          []uint64  // merge's set of the dirty goroutines, by creation index
	volatile           []*G      // goroutines waiting on foreign channels
	flipped            []*object // objects whose Mutex waiter group was touched since the last pass (lockgroup.go)
	groups             []*object // objects with a Mutex waiter group
	toList             []*G      // members a flip found blocked, to list (listMerge)
	listBuf            []*G
	aborting           bool
	bubbleWaits        int // goroutines parked at OpBubbleWait or OpBubbleEnd (bubble.go)
	bubbleWaiters      []*G
	bubbles            []*Bubble
	bubbleDue          []*Timer
	rebuilds           int // passes of enabled that rebuilt the whole set (tests)
	ended              bool
	done               chan struct{}
	exited             chan *G       // a goroutine woken to be unwound exited (waitExited)
	over               chan struct{} // closed when Run returns: for goroutines waitExited gave up on
	tw                 chan *Timer   // race detector: timers to fire on timerWorker
	twDone             chan struct{} // race detector: a firing is done

	choices []Choice  // the enabled choices: gch, then the timer choice
	gch     []Choice  // the goroutine choices, in creation order
	scratch []Choice  // refresh's buffer
	one     [1]Choice // the choice of an overdue timer
	overdue bool      // e.choices is not e.gch then timers: e.one, or spinners were dropped
	spinBuf []Choice  // e.choices without the spinners (dropSpinners)
	// spinLooks counts the choices dropSpinners had to examine,
	// starveLooks the goroutines starvation added to its set, and
	// realYields poll's yields of the real processor (tests).
	spinLooks   int
	starveLooks int
	realYields  int
	// nAct counts the timers that became active (Timer.act); due lists
	// the timers due at dueWhen, if dueOK, and timerStack is timersAt's
	// scratch (time.go); timerLooks counts the timers nextTimer and
	// timersAt looked at (tests).
	nAct       uint64
	timerLooks int
	due        []*Timer
	dueWhen    time.Duration
	dueOK      bool
	timerStack []int
	// Recorded runs: the enabled set's chunks (enabledlog.go).
	enChunks []*enChunkT
	enVer    uint64
	enBytes  uint64 // allocated for the enabled sets, about
	vcBytes  uint64 // allocated for the vector clocks of recorded steps, about
	point    Point
	res      Result

	randSrc RandSource

	// starve is what starvation keeps of the current pass of enabled;
	// starveHeap is the set of starvation: the goroutines with couldRun
	// set, by last step, and entries of goroutines that ran or ended
	// since. starveNew lists the goroutines whose choices may have changed
	// since the last weighing, unless starveFull says to look at every
	// choice.
	starve     starveSet
	starveHeap []starveEntry
	starveNew  []*G
	starveFull bool
	// choiceLog is what a strategy that asked is told of the enabled
	// set's changes (ChoiceChanges, strategy_support.go).
	choiceLog changeLog
	// late is the phantom timer of the run's late wakes; clockSeen is set
	// once the run read the clock, lateSinceRead when a late wake fired
	// and the clock was not read since (latewake.go).
	late          *Timer
	clockSeen     bool
	lateSinceRead bool
	// lateMoved is the virtual time late wakes moved the clock by: no
	// timer's deadline, so not counted against Config.TimeLimit.
	lateMoved time.Duration
	// maySpin is set once a goroutine announces an operation after
	// spinDrop polls, or a select's streak reaches selectStreak: before,
	// no choice is spinning or unfair, and dropSpinners looks at none.
	maySpin bool
	// lastMutex is the last mutex mutexLocked synced (syncObj) in this run.
	lastMutex    unsafe.Pointer
	lastMutexObj *object // its shadow object

	// T is the run's testing state, owned by package explore.
	T any

	// natives counts the calls of rewritten code by goroutines heddle
	// does not control, which ran natively (see Current).
	natives atomic.Int64
	probed  bool // a probe performed an operation on a foreign channel

	// es is what the enabled set's full passes keep, and counters of
	// its work (enabledset.go).
	es enabledWork
	// quietMem is what regions of allocation counting need (quiet.go).
	quietMem *quietMem
	// overtime is set once the run is past Config.Deadline, finishing
	// within Config.Grace.
	overtime bool
	// nativeCancels are the contexts that goroutines heddle does not
	// control cancelled, to be applied by the next scheduling pass
	// (context.go); nNativeCancels counts them, and appliedCancels those
	// applied. Only those goroutines write nNativeCancels, so that its
	// loads by the controlled ones order nothing between them for the
	// race detector.
	nativeMu       sync.Mutex
	nativeCancels  []nativeCancel
	nNativeCancels atomic.Int32
	appliedCancels int32
	cancelWaited   time.Duration // waitNativeCancel's real time
	cancelSince    int           // the step at which pending native cancels were first seen, +1 (0: none)
	foreignRecv    bool          // this pass's probes received from a foreign channel
	settleWaited   time.Duration // settleProbe's real time
	// moves counts the steps, for the monitor (detach.go): Config.Progress,
	// or ownMoves without one; detachedGs are the goroutines it detached,
	// nDetached their number.
	moves    *atomic.Int64
	ownMoves atomic.Int64
	// computingFor is set by the watchdog (MarkComputing) when the
	// running goroutine computed that long without a scheduling point.
	computingFor time.Duration
	detachMu     sync.Mutex
	detachedGs   []*G
	nDetached    atomic.Int32
}

// Epoch is the virtual instant at which a run starts when its
// Config.Epoch is zero.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Run executes body once as goroutine g0 under strategy s and returns what
// happened. body runs in a new goroutine; Run returns when every controlled
// goroutine has finished or has been unwound.
//
//go:norace
func Run(cfg Config, s Strategy, body func()) *Result {
	s, unserve := raceServe(s)
	defer unserve()
	e := &Exec{
		cfg:    cfg,
		strat:  s,
		done:   make(chan struct{}),
		exited: make(chan *G),
		over:   make(chan struct{}),
	}
	if e.cfg.StepLimit <= 0 {
		e.cfg.StepLimit = 1000000
	}
	if e.cfg.Epoch.IsZero() {
		e.cfg.Epoch = Epoch
	}
	e.randSrc = RandSource{state: cfg.Seed}
	if e.cfg.PostMain <= 0 {
		e.cfg.PostMain = min(10000, e.cfg.StepLimit/4)
	}
	if e.cfg.DormantFrom == 0 {
		e.cfg.DormantFrom = 8
	}
	if e.cfg.PostTime <= 0 {
		e.cfg.PostTime = 5 * time.Millisecond
	}
	if e.cfg.PostMainMax <= 0 {
		e.cfg.PostMainMax = e.cfg.StepLimit / 2
	}
	if e.cfg.FairAfter <= 0 {
		e.cfg.FairAfter = e.cfg.StepLimit / 2
	}
	if e.cfg.Horizon <= 0 {
		e.cfg.Horizon = time.Minute
	}
	if e.cfg.ChildWait <= 0 {
		e.cfg.ChildWait = 2 * time.Minute
	}
	if e.cfg.DetachWait <= 0 {
		e.cfg.DetachWait = 10 * time.Second
	}
	e.point.Exec = e
	e.moves = cfg.Progress
	if e.moves == nil {
		e.moves = &e.ownMoves
	}
	if !active.CompareAndSwap(nil, e) {
		panic("heddle: two explorations at once in one process")
	}
	defer active.Store(nil)

	if p := cfg.Progress; p != nil {
		p.Add(1) // a run that starts is progress, even one with no step
	}
	if p := cfg.Pool; p != nil {
		p.lendTrace(&e.res, cfg)
		e.res.Choices, p.choices = p.choices, nil
	}
	startMonitor()
	g0 := e.newG(nil, body)
	g0.state = gRunning
	e.cur = g0
	if len(cfg.Detached) != 0 {
		e.armDetach(g0) // step 0 is not picked (detachplan.go)
	}
	e.record(g0, &Op{Kind: OpStart}, nil, 0)
	e.start(g0)
	g0.wake.wake()

	select {
	case <-e.done:
		e.unwind()
	case <-cfg.Stuck:
		e.stuck()
	}
	close(e.over)
	e.restoreSync()
	raceAcquire(unsafe.Pointer(&e.res)) // see exit
	if e.tw != nil {
		e.tw <- nil // not close: see raceServe
	}
	e.res.Steps = e.steps
	e.res.PendingAfterFuncs = e.pendingAfterFuncs()
	if p := cfg.Pool; p != nil && (cfg.Trace || cfg.Record) {
		p.traceLen = len(e.res.Trace)
	}
	e.res.Gs = e.gs
	e.res.MaxGs = e.maxLive
	e.res.RandDraws = e.randSrc.draws
	e.res.Natives = e.natives.Load()
	e.res.Partnered = e.probed
	return &e.res
}

//go:norace
func (e *Exec) newG(parent *G, fn func()) *G {
	g := &G{
		Index:     len(e.gs),
		CreatedAt: e.steps,
		Parent:    parent,
		exec:      e,
		fn:        fn,
		state:     gParked,
		op:        Op{Kind: OpStart},
		committed: -1,
		ranAt:     e.now,
	}
	if parent == nil {
		g.ID = "g0"
	} else {
		parent.kids++
		g.ID = parent.ID + "." + strconv.Itoa(parent.kids)
	}
	e.seq++
	g.opSeq = e.seq
	e.gs = append(e.gs, g)
	e.markDirty(g)
	e.live++
	if e.live > e.maxLive {
		e.maxLive = e.live
	}
	return g
}

// goroutine is the body of every controlled goroutine's real goroutine.
//
//go:norace
func (e *Exec) goroutine(g *G) {
	g.gid = getg()
	g.wake.wait()
	if e.aborting {
		raceAcquire(unsafe.Pointer(e))
		e.runUnwound(g)
		return
	}
	normal := false
	defer func() {
		if g.entries++; g.claim.Load() != 0 || g.entries == g.replayDetach {
			// Detached, and back from code heddle does not control by
			// returning, or a replay detaches g here (detach.go).
			if _, abandoned := e.reattach(g, true, true); abandoned {
				recover() // nobody waits for it: its run ended
				forgetAbandoned(g)
				return
			}
		}
		if !normal {
			chain := panicChain() // before recover: the panics still unwind
			if r := recover(); r != nil && !e.aborting {
				stack := debug.Stack()
				if _, fail := r.(failNow); g.tRunner && !fail && e.res.Bug == nil && e.othersLeft(g) && !e.panicWindow(g) {
					return // the run ended in the window: g has exited
				}
				e.panicked(g, r, chain, stack)
			}
		}
		e.exit(g)
	}()
	// The G outlives the goroutine (reports read it): it must not keep
	// what the function's closure refers to reachable once it returns.
	fn := g.fn
	g.fn = nil
	fn()
	if g.Index == 0 {
		e.mainReturned()
	}
	normal = true
	g.normal = true
}

// AtMainReturn registers f to run on g0 when the test body (with its
// cleanups) has returned normally, before g0 exits: f runs as g0, and may
// start goroutines (rt.SetFinalizer's finalizers run so).
//
//go:norace
func (e *Exec) AtMainReturn(f func()) { e.atMainReturn = append(e.atMainReturn, f) }

//go:norace
func (e *Exec) mainReturned() {
	for len(e.atMainReturn) > 0 {
		f := e.atMainReturn[0]
		e.atMainReturn = e.atMainReturn[1:]
		f()
	}
}

// GoFrom is Go for a goroutine heddle starts on the program's behalf (a
// finalizer's): its origin in reports is pc, the call site that caused it.
//
//go:norace
func (e *Exec) GoFrom(pc uintptr, f func()) {
	if e.aborting {
		return
	}
	e.goFence()
	g := e.newG(e.cur, f)
	if e.cfg.Record {
		g.GoPC = pc
	}
	e.start(g)
}

// CallerPC is the call site of the rt function that calls it, in the
// program, when the run records positions (0 otherwise).
//
//go:norace
func (e *Exec) CallerPC() uintptr {
	if !e.cfg.Record {
		return 0
	}
	return userPC()
}

// Go starts a controlled goroutine running f. The go statement is not a
// scheduling point; the new goroutine's first step is.
//
//go:norace
func (e *Exec) Go(f func()) { e.GoNamed(f, "", 0) }

// GoNamed is Go of a go statement whose function natively is f named name
// (a wrapper such as pkg.TestX.gowrap1, or a function literal; the name
// relative to the package when it starts with "."), or, with a target,
// the function at target, which f only calls (stacks.go).
//
//go:norace
func (e *Exec) GoNamed(f func(), name string, target uintptr) {
	if e.aborting {
		return
	}
	e.goFence()
	parent := e.cur
	g := e.newG(parent, f)
	g.goName, g.goTarget = name, target
	if e.cfg.Record {
		g.GoPC = userPC()
	}
	if parent != nil && parent.bubble != nil {
		parent.bubble.joined(g) // bubble.go
	}
	e.start(g)
}

// GOMAXPROCS models runtime.GOMAXPROCS: it reports the run's value, and
// sets it for the rest of the run if n > 0.
//
//go:norace
func (e *Exec) GOMAXPROCS(n int) int {
	prev := e.cfg.Procs
	if prev <= 0 {
		prev = runtime.NumCPU()
	}
	if n > 0 {
		e.cfg.Procs = n
	}
	return prev
}

// NumGoroutine counts the run's goroutines that are alive, and the
// goroutines a native run has beside them (Config.OtherGoroutines), as
// runtime.NumGoroutine does.
//
//go:norace
func (e *Exec) NumGoroutine() int { return e.live + e.cfg.OtherGoroutines }

// Gosched is a scheduling point with no effect.
//
//go:norace
func (e *Exec) Gosched() {
	e.yield(Op{Kind: OpYield})
	e.poll(e.cur)
}

// PollTime is how much virtual time passes when a goroutine polls without
// making progress (a Gosched, a select that takes its default, a failed
// TryLock, an atomic load of an unchanged value). A program that polls
// until a timer fires would otherwise never see the clock move.
const PollTime = time.Microsecond

// pollYieldSteps is how many steps apart polls yield the real processor
// at the least (poll).
const pollYieldSteps = 4

// pollDouble is the number of consecutive polls after which the time a
// poll moves the clock doubles.
const pollDouble = 64

// poll records that g polled without making progress. It also yields the
// real processor (runtime.Gosched): a goroutine heddle does not control
// (started in init, or by code that is not rewritten) that a controlled
// one woke natively, by cancelling its context or closing its channel,
// runs now, as it would natively beside a goroutine that spins waiting for
// it. Without it, the explorations's single processor stays with the
// controlled goroutines, and a loop that waits for such a goroutine with a
// timeout (ants' ReleaseTimeout waiting for the pool's purge goroutine)
// times out on the virtual clock before it ever runs.
//
// A yield costs a pass through the runtime's scheduler (its lock, its
// global queue), more than the rest of a poll: polls in a row yield once
// every pollYieldSteps steps, so such a goroutine runs within that many
// steps of a poll instead of at the next one. The controlled goroutines'
// schedule does not depend on it.
//
//go:norace
func (e *Exec) poll(g *G) {
	if e.steps >= e.yieldAt {
		runtime.Gosched()
		e.yieldAt = e.steps + pollYieldSteps
		e.realYields++
	}
	g.spins++
	e.waits++
	if g.bubble != nil {
		return // a synctest bubble's clock stands still while its goroutines run (bubble.go)
	}
	d := pollStep(g.spins)
	e.now += d
	e.polled += d
}

// pollStep is how far the clock moves at the n-th consecutive poll of a
// goroutine: PollTime, doubled every pollDouble polls, up to about a
// second. A goroutine that polls for long waits for time to pass (a
// deadline, a sleeper); a busy-wait of an hour then takes a few thousand
// steps instead of billions. The wait may end later than its deadline by
// up to one step, as a busy-wait descheduled by the Go runtime does.
//
//go:norace
func pollStep(n int) time.Duration {
	return PollTime << min(n/pollDouble, 20)
}

// spinCandidate reports whether an operation may be part of a spin loop:
// one that can be repeated without the goroutine making progress.
//
//go:norace
func spinCandidate(k OpKind) bool {
	switch k {
	case OpYield, OpSelect, OpTryLock, OpRWTryLock, OpRWTryRLock, OpAtomicLoad, OpMapRead, OpChanLen, OpSleep, OpCtxErr:
		return true
	case OpRacyRead:
		return true
	case OpRecv:
		return true // from a closed channel (Select tells)
	}
	return false
}

// spinDrop is the number of consecutive operations without progress after
// which a goroutine whose next operation would make none either is not
// offered as a choice while a goroutine that may make progress can run.
const spinDrop = 4

// SpinDrop is spinDrop, for the words of a proof bounded by it
// (Result.SpinDrops).
const SpinDrop = spinDrop

// dropSpinners removes from e.choices the goroutines going round a loop
// without progress (spinning on an atomic, a select's default, Gosched, a
// failed TryLock), as long as some other choice remains. Their next
// operation would change nothing but the clock, and in a loop that polls
// until something changes, running them again before the others is
// stutter; a strategy that prefers them (PCT's priorities, DFS's first
// choice) would otherwise spin until the fair scheduler takes over,
// hundreds of thousands of steps per handoff. With them dropped, a
// handoff through an atomic costs a few steps.
//
// The operation changes nothing, but the goroutine's own state may: a
// loop that polls a bounded number of times (a counter, a deadline on the
// real clock) ends after its last poll, and the schedules in which it
// ends before the others moved are not run. Whether a loop's state
// repeats is not visible here (its locals are not), so every drop of a
// spinning goroutine counts (Result.SpinDrops), but for one at an
// operation of a loop the rewriter marked as repeating (spinmark.go:
// Result.PollDrops), and an exhaustive
// strategy's claim is bounded by it (explore: "in which no goroutine
// polls more than 4 times in a row while another can run"). Drops for
// the select streak (unfair) are not counted: they bound a probability
// (selectStreak), not a loop.
//
//go:norace
func (e *Exec) dropSpinners() {
	n := len(e.choices)
	if n < 2 || e.overdue || e.cfg.KeepSpinners || !e.maySpin {
		return
	}
	if checkSet.Load() {
		e.checkSpin()
	}
	// One pass: only a goroutine that polled spinDrop times in a row, or
	// whose selects took one channel selectStreak times, may be dropped;
	// the others are not looked at further, and the choices between two
	// dropped ones are copied as a block. (Two passes calling spinning and
	// unfair on every choice took half of the time of ants' pool tests,
	// with hundreds of goroutines enabled at every step.)
	buf := e.spinBuf[:0]
	from, drop, unfair, optional := 0, 0, 0, 0
	for i := range e.choices {
		c := &e.choices[i]
		// The choice's spin answers for most choices without a look at
		// their goroutine (a load from another cache line each: ants'
		// pools have hundreds of Gosched spinners enabled at every point).
		switch c.spin {
		case spinNo:
			continue
		case spinSure:
			e.spinLooks++
		default:
			if c.G == nil && c.Optional() {
				// A firing that need not come (a bubble's first timer
				// pass): not a choice that makes the others' spinning stutter.
				optional++
				continue
			}
			if g := c.G; g == nil || (g.spins < g.dropAt() && g.selStreak < selectStreak) {
				continue
			}
			e.spinLooks++
			u := e.unfair(c)
			if !u && !e.spinning(c) {
				continue
			}
			if u {
				unfair++
			}
		}
		buf = keepChoices(buf, e.choices[from:i])
		from, drop = i+1, drop+1
	}
	if drop == n && unfair > 0 && unfair < n {
		// Every choice spins (a select over closed channels): fairness
		// among them still holds.
		buf, from, drop = buf[:0], 0, unfair
		for i := range e.choices {
			if e.unfair(&e.choices[i]) {
				buf = appendChoices(buf, e.choices[from:i])
				from = i + 1
			}
		}
	}
	if drop == 0 || drop+optional == n {
		return
	}
	if drop > unfair {
		if e.countedDrop() {
			e.res.SpinDrops++
		} else {
			e.res.PollDrops++
		}
	}
	buf = appendChoices(buf, e.choices[from:])
	e.spinBuf = buf
	e.choices = buf
	e.overdue = true
}

// keepChoices is appendChoices for dropSpinners' blocks of kept choices:
// with a spin lock's waiters (ants' pools: hundreds of goroutines in
// Gosched), most blocks hold a choice or two, and a runtime copy per block
// (typedslicecopy, with its write barriers while the collector runs) cost
// more than the choices' moves.
//
//go:norace
func keepChoices(dst, src []Choice) []Choice {
	if len(src) > 4 {
		return appendChoices(dst, src)
	}
	// One by one on purpose (above): no runtime call.
	//lint:ignore S1011 one by one on purpose
	for i := range src {
		dst = append(dst, src[i])
	}
	return dst
}

// selectStreak bounds how often in a row a goroutine's selects may take
// the same channel while other cases are ready too. Go chooses uniformly
// among ready cases, so a streak of k such choices has probability at most
// 2^-k: past 30 (about one in a billion) no report may depend on it. A
// strategy is free to bias each choice (take the first ready case, as DFS
// does first, or any), but not to starve a ready case for longer.
const selectStreak = 30

// unfair reports whether choice c, a select case, would extend g's streak
// of taking one channel while others are ready past selectStreak.
//
// A goroutine with a select case among the choices has as many choices in
// e.gch (g.nch) as its select has ready cases: one per case, or the one a
// probe performed. g.nch is therefore the count of ready cases, kept by the
// enabled set; counting them in a pass over every choice at every step
// cost as much (ants' pools: hundreds of choices a step).
//
//go:norace
func (e *Exec) unfair(c *Choice) bool {
	g := c.G
	if g == nil || !c.Select || c.Case < 0 || g.selStreak < selectStreak || g.nch < 2 {
		return false
	}
	return g.op.Cases[c.Case].Chan() == g.selChan
}

// noteSelect counts, when choice c is taken, the streak of g's selects
// that took one channel while other cases were ready.
//
//go:norace
func (e *Exec) noteSelect(c *Choice) {
	g := c.G
	if g == nil || !c.Select || c.Case < 0 || g.nch < 2 {
		return
	}
	if ch := g.op.Cases[c.Case].Chan(); ch == g.selChan {
		g.selStreak++
	} else {
		g.selChan, g.selStreak = ch, 1
	}
	if g.selStreak >= selectStreak {
		e.maySpin = true
	}
}

// KeepSpinners reports whether the run keeps spinning goroutines among the
// choices (Config.KeepSpinners): a strategy that leaves out goroutines
// going round a loop without progress of its own accord leaves none out
// either.
//
//go:norace
func (e *Exec) KeepSpinners() bool { return e.cfg.KeepSpinners }

// spinning reports whether choice c runs a goroutine that has made no
// progress for spinDrop operations (more at a counted loop's: dropAt,
// spincount.go) and would make none again.
//
//go:norace
func (e *Exec) spinning(c *Choice) bool {
	g := c.G
	if g == nil || c.Early != 0 || g.spins < g.dropAt() {
		return false
	}
	switch g.op.Kind {
	case OpYield, OpChanLen, OpRWTryLock, OpRWTryRLock:
		return true
	case OpSelect:
		// The default again; a ready case is progress, unless it receives
		// from a closed channel (spinload.go).
		return c.Case < 0 || e.closedRecv(g, c.Case)
	case OpRecv:
		return e.closedRecv(g, c.Case)
	case OpTryLock:
		return e.mutexLocked(g.op.Obj)
	case OpAtomicLoad, OpMapRead:
		// The load sees a write made since g last loaded: progress.
		var v uint64
		if o := e.objs.get(g.op.Obj); o != nil {
			v = o.writes
		}
		return g.seen(g.op.Obj, v)
	}
	return false
}

// Spins counts the consecutive operations of g that made no progress: a
// Gosched, a select that took its default, a failed TryLock, an atomic load
// of a value nobody wrote since g last loaded it. Strategies deprioritize a
// spinning goroutine, so that exhaustive search terminates on programs that
// terminate under fair scheduling.
//
//go:norace
func (g *G) Spins() int { return g.spins }

// yield is the scheduling point: the running goroutine announces op and
// parks until the strategy picks it. When yield returns, op is enabled and
// the caller performs it.
//
//go:norace
func (e *Exec) yield(op Op) {
	g := e.cur
	if e.aborting {
		if e.unwindRuns(g, &op) {
			return
		}
		runtime.Goexit()
	}
	if g.quiet > 0 && e.quietStep(g, &op) {
		return
	}
	if sb := g.sb; sb != nil && !e.ended {
		// heddle test -racy's store buffers (storebuf.go).
		if sb.since && fences(op.Kind) {
			e.fence(g)
		}
		e.sbLeave(g)
		defer e.sbEnter(g)
	}
	defer e.guard(g)
	if RaceEnabled && g.bubble != nil {
		// synctest: what a goroutine of a bubble did before it blocks
		// happens before synctest.Wait returns (BubbleWait), as the
		// runtime records when a bubble's goroutine parks. Every
		// scheduling point releases: the one it is blocked at is the last.
		raceReleaseMerge(unsafe.Pointer(g.bubble))
	}
	if e.cfg.Record && op.PC == 0 {
		op.PC = userPC()
	}
	if !spinCandidate(op.Kind) {
		g.spins = 0
		g.endStreak()
	} else if g.spins >= spinDrop {
		e.maySpin = true
	}
	// Field by field: op arrives in registers and is spilled word by
	// word, and a whole-struct copy reads it back in 16-byte loads, which
	// the processor cannot forward from those stores (a stall at every
	// scheduling point, perf annotate).
	g.op.Kind, g.op.Obj, g.op.Cases, g.op.Dflt, g.op.Timer, g.op.PC, g.op.Group = op.Kind, op.Obj, op.Cases, op.Dflt, op.Timer, op.PC, op.Group
	g.state = gParked
	g.committed = -1
	g.woken = 0
	g.arrived = false
	e.seq++
	g.opSeq = e.seq
	e.noteAnnounce(g)
	if r := e.returnTo; r != nil {
		// g completed a rendezvous for r and reached its next operation:
		// hand the processor back to r.
		e.returnTo = nil
		e.switchTo(g, r)
		return
	}
	next := e.pick()
	if next == nil {
		e.finish()
		e.park(g)
		return
	}
	if next != g {
		e.switchTo(g, next)
		return
	}
	g.state = gRunning
}

// switchTo hands the processor from g to next and parks g.
//
//go:norace
func (e *Exec) switchTo(g, next *G) {
	next.state = gRunning
	e.cur = next
	raceDisable()
	next.wake.wake()
	g.wake.wait()
	raceEnable()
	if e.aborting {
		e.resumeUnwound(g)
	}
}

// park waits for g's turn (after the run ended, for its unwinding).
//
//go:norace
func (e *Exec) park(g *G) {
	raceDisable()
	g.wake.wait()
	raceEnable()
	if e.aborting {
		e.resumeUnwound(g)
	}
}

// exit is called on the way out of every controlled goroutine.
//
//go:norace
func (e *Exec) exit(g *G) {
	// What the goroutine did happens before Run returns (Run waits for
	// it): the caller of Run acquires this at the end of the run. No
	// controlled goroutine acquires it, so it orders none of them.
	raceReleaseMerge(unsafe.Pointer(&e.res))
	if RaceEnabled && g.bubble != nil {
		raceReleaseMerge(unsafe.Pointer(g.bubble)) // as at a scheduling point (yield), as the runtime's goexit does
	}
	if e.aborting {
		e.unwoundExit(g)
		return
	}
	defer e.guardExit(g)
	g.state = gDone
	// The G outlives the goroutine: its last operation must not keep the
	// objects it was on reachable.
	g.op.Obj, g.op.Cases, g.selChan = nil, nil, nil
	g.forgetLoads()
	e.markDirty(g)
	e.live--
	e.progressed() // a goroutine that ends: progress (Bug.Long)
	if b := g.bubble; b != nil {
		b.exited(g)
	}
	if g.normal && e.cfg.Pool != nil && !RaceEnabled {
		e.cfg.Pool.free = append(e.cfg.Pool.free, g.w)
		g.pooled = true
	}
	if g.Index == 0 && e.live > 0 {
		// No late wake after the test's end: one before it is seen
		// by the goroutines left, if they read the clock.
		e.markClock(g)
	}
	e.record(g, &Op{Kind: OpExit}, nil, 0)
	if g.Index == 0 {
		e.mainDone = true
		e.mainDoneAt = e.now
		e.mainDoneStep = e.steps
		e.mainPolled = e.polled
	}
	if e.res.Bug != nil {
		e.finish()
		return
	}
	if r := e.returnTo; r != nil {
		e.returnTo = nil
		r.state = gRunning
		e.cur = r
		r.wake.wake()
		return
	}
	next := e.pick()
	if next == nil {
		e.finish()
		return
	}
	next.state = gRunning
	e.cur = next
	raceDisable()
	next.wake.wake()
	raceEnable()
}

// guard is deferred by the scheduling code that runs on a controlled
// goroutine (yield, and through it pick, the strategy and timer firings). A
// panic there is heddle's own failure, not the program's: it must not
// unwind through the program's frames, where a recover would swallow it
// and leave the run in a state no goroutine can leave (a hang), nor be
// reported as a bug of the test. guard stops the panic, records it as the
// run's internal error, ends the run, and parks g, which the unwinding
// then ends by Goexit, as every goroutine left at the end of a run.
//
//go:norace
func (e *Exec) guard(g *G) {
	r := recover()
	if r == nil {
		return
	}
	e.internalError(r)
	if g.state != gDone {
		g.state = gParked
	}
	e.park(g)
}

// guardExit is guard for exit: the goroutine is ending anyway, so it is
// marked done instead of parked.
//
//go:norace
func (e *Exec) guardExit(g *G) {
	r := recover()
	if r == nil {
		return
	}
	e.internalError(r)
	g.state = gDone
	g.normal = false
}

// internalError records a panic of heddle's own code and ends the run.
//
//go:norace
func (e *Exec) internalError(r any) {
	if e.res.Internal == "" {
		e.res.Internal = panicMessage(r) + "\n\n" + string(debug.Stack())
	}
	e.finish()
}

// finish ends the run; the host unwinds what is left.
//
//go:norace
func (e *Exec) finish() {
	if e.ended {
		return
	}
	e.ended = true
	e.sbDrainAll()
	close(e.done)
}

// unwind ends every goroutine still parked, one at a time, by making it call
// runtime.Goexit, so that nothing outlives the run.
//
//go:norace
func (e *Exec) unwind() {
	e.aborting = true
	for _, g := range e.gs {
		if g.state == gDone || g.flushes != nil || e.abandon(g) {
			continue
		}
		g.claim.Store(0)
		g.state = gDone
		g.unwound = true
		e.cur = g // its deferred calls run as g (see Current)
		raceRelease(unsafe.Pointer(e))
		g.wake.wake()
		e.waitExited(g)
	}
}

// waitExited waits for g, woken to be unwound, to exit. A goroutine that
// blocks outside heddle's control on its way out never exits: one the run
// ended before its first step runs its function as unwound (runUnwound),
// and yamux's recvLoop starts with a read of a TLS connection nobody
// writes to any more (heddle test on yamux hung in TestGoAway). Such a
// goroutine is abandoned, as a detached goroutine that never came back,
// once two looks unwindLook apart find it waiting in code that is not
// heddle's (blockedOutside, the monitor's test), or after
// Config.DetachWait: it ends when it is back at a scheduling point
// (endAbandoned), or quietly when it returns (unwoundExit).
//
//go:norace
func (e *Exec) waitExited(g *G) {
	t := time.NewTimer(unwindLook)
	defer t.Stop()
	deadline := time.Now().Add(e.cfg.DetachWait)
	var buf []byte
	looked := false // the last look found g blocked outside
	for {
		select {
		case h := <-e.exited:
			if h == g {
				return
			}
			// One given up on earlier, back and exiting: nobody waits for it.
		case <-t.C:
			var blocked bool
			buf, _, blocked = blockedOutside(buf, e, g, true)
			if blocked && looked || time.Now().After(deadline) {
				if g.gid != 0 {
					abandonedGs.Store(g.gid, g)
					nAbandoned.Add(1)
				}
				return
			}
			looked = blocked
			t.Reset(unwindLook) // it fired and was received: no stale value
		}
	}
}

// unwindLook is how long waitExited waits for an unwound goroutine to
// exit before each look at where it waits: its deferred calls take
// microseconds.
const unwindLook = 10 * time.Millisecond

// unwoundExit tells the end of the run that g, woken to be unwound,
// exited; nobody listens once the run is over (waitExited gave up on g).
//
//go:norace
func (e *Exec) unwoundExit(g *G) {
	if nAbandoned.Load() > 0 {
		forgetAbandoned(g)
	}
	select {
	case e.exited <- g:
	case <-e.over:
	}
}

// unwindOps bounds the operations a goroutine's deferred calls may perform
// while it is unwound (unwindRuns): a deferred loop that polls forever
// must not hang the end of the run.
const unwindOps = 1000

// unwindRuns reports whether g, being unwound, performs operation op in its deferred calls rather than ending there. The operations
// that never block and act on real memory do: atomics (a deferred
// "done" flag or counter), Timer.Stop and Ticker.Stop, Gosched, len of a
// channel, close, Once.Do (see also unwindSelect for channel operations).
// Unwinding is runtime.Goexit, which in Go runs every deferred
// call to its end; ending g at the first scheduling point of its deferred
// calls instead left package state that no Go execution reaches (ants'
// purge goroutine, left when a run ended, never stored its purgeDone flag,
// and the next test's Reboot waited for it forever). Operations that may
// block (a lock, a channel operation, a wait) still end g there: nothing
// can wake it once the run is over.
//
//go:norace
func (e *Exec) unwindRuns(g *G, op *Op) bool {
	if g == nil || g.state != gDone || g.unwindOps >= unwindOps {
		return false
	}
	switch op.Kind {
	case OpAtomicLoad, OpAtomicWrite, OpFSRead, OpFSWrite, OpTimerStop, OpYield, OpChanLen, OpClose:
		g.unwindOps++
		return true
	case OpOnce:
		// Do runs f, unless another goroutine is running it (Do would
		// wait for it).
		if o := e.objs.get(op.Obj); o != nil && o.once.running {
			return false
		}
		g.unwindOps++
		return true
	}
	return false
}

// unwindSelect is a channel operation (Select's cases) of a goroutine
// being unwound: it completes if it can at once on the real channels (a
// buffered slot, a value, a closed channel, a goroutine outside heddle's
// control waiting on the other side), and ends the goroutine otherwise, as
// unwindRuns does for every operation that may block.
//
//go:norace
func (e *Exec) unwindSelect(cases []ChanCase, hasDefault bool) int {
	g := e.cur
	if g != nil && g.state == gDone && g.unwindOps < unwindOps {
		g.unwindOps++
		for i, c := range cases {
			if c.Chan() == nil {
				continue
			}
			if ok, closed := tryCase(c); ok || closed {
				if closed {
					c.Do() // a send on a closed channel: panics, as in Go
				}
				return i
			}
		}
		if hasDefault {
			return -1
		}
	}
	runtime.Goexit()
	return -1
}

// runUnwound runs g, which the run ended before it took its first step,
// as an unwound goroutine runs its deferred calls: its operations that
// cannot block complete (unwindRuns, unwindSelect) and the first that
// would block ends it by Goexit. In Go the goroutine would have run: a
// pool's purge goroutine started just before a run ended (ants' Reboot
// starts one) finds its context cancelled, exits and stores its done flag,
// which a later run waits for. A panic ends it quietly, as any panic while
// unwinding.
//
//go:norace
func (e *Exec) runUnwound(g *G) {
	if g.state != gDone || g.fn == nil {
		e.unwoundExit(g)
		return
	}
	defer func() {
		recover()
		e.unwoundExit(g)
	}()
	g.fn()
}

// resumeUnwound is called by a goroutine woken, parked at its pending
// operation, to be unwound: an operation that cannot block (unwindRuns)
// is performed, and the goroutine goes on as unwindRuns and unwindSelect
// let it; any other ends it by Goexit. A goroutine parked at the atomic
// store of its deferred call (ants' purge goroutine, at its purgeDone flag,
// when the run was ended at the time budget) stores it.
//
//go:norace
func (e *Exec) resumeUnwound(g *G) {
	if e.unwindRuns(g, &g.op) {
		raceAcquire(unsafe.Pointer(e))
		return
	}
	e.unwound()
}

// unwound is called by a goroutine woken to be unwound: its deferred calls
// run after those of the goroutine unwound before it, as far as the race
// detector is concerned, as they do in fact.
//
//go:norace
func (e *Exec) unwound() {
	raceAcquire(unsafe.Pointer(e))
	runtime.Goexit()
}

// stuck handles a goroutine blocked outside heddle's control. It cannot be
// unwound: its goroutine is abandoned, and the others are unwound.
//
//go:norace
func (e *Exec) stuck() {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	g := e.cur
	e.res.Bug = &Bug{
		Kind:    KindBlocked,
		Message: "goroutine " + g.ID + " blocked outside heddle's control (in code that was not rewritten, or on I/O)",
		G:       g,
		Stack:   string(buf),
	}
	if d := e.computingFor; d > 0 {
		e.res.Bug.Computing = true
		e.res.Bug.Message = "goroutine " + g.ID + " ran for " + DurationText(d) + " without reaching a scheduling point: on this schedule it loops without end, or computes far longer than a run of a test should"
		// It still runs: at its next call into heddle (a read of the
		// clock, a lock) it ends (Current, endAbandoned), as a goroutine
		// a run abandoned in code heddle does not control does.
		e.detachMu.Lock()
		g.abandoned = true
		g.claim.Store(1)
		e.detachMu.Unlock()
		abandonedGs.Store(g.gid, g)
		nAbandoned.Add(1)
	}
	e.aborting = true
	for _, h := range e.gs {
		if h == g || h.state == gDone || h.state == gRunning || h.flushes != nil || e.abandon(h) {
			continue
		}
		h.claim.Store(0)
		h.state = gDone
		e.cur = h
		h.wake.wake()
		e.waitExited(h)
	}
}

// panicked records a panic that no deferred call recovered.
//
//go:norace
func (e *Exec) panicked(g *G, r any, chain []any, stack []byte) {
	if e.res.Bug != nil {
		return
	}
	kind := KindPanic
	msg := chainMessage(r, chain)
	if isMisusePanic(msg) {
		kind = KindMisuse
	}
	if f, ok := r.(failNow); ok {
		kind, msg = KindFail, string(f)
	}
	e.res.Bug = &Bug{Kind: kind, Message: msg, G: g, Stack: string(stack), Value: r}
}

// MarkComputing is called by the watchdog before it closes Config.Stuck
// when the running goroutine did not block but computed for d without
// reaching a scheduling point: the run's bug says so (stuck), and the
// goroutine ends at its next call into heddle.
//
//go:norace
func (e *Exec) MarkComputing(d time.Duration) { e.computingFor = d }

// failNow is the panic value of Fail, used by explore to end a goroutine
// that failed its test from outside the test goroutine.
type failNow string

// Fail ends the run with a failure reported by g.
//
//go:norace
func (e *Exec) Fail(msg string) {
	if e.res.Bug == nil {
		e.res.Bug = &Bug{Kind: KindFail, Message: msg, G: e.cur}
	}
}

// Bug returns the bug the run found so far, if any.
//
//go:norace
func (e *Exec) Bug() *Bug { return e.res.Bug }

// SetBug records a bug found by an oracle outside the engine.
//
//go:norace
func (e *Exec) SetBug(b *Bug) {
	if e.res.Bug == nil {
		e.res.Bug = b
	}
}

// Cur returns the running goroutine.
//
//go:norace
func (e *Exec) Cur() *G { return e.cur }

// MainDone reports whether the test goroutine has returned.
//
//go:norace
func (e *Exec) MainDone() bool { return e.mainDone }

// RandSource returns the run's source for the program's random numbers
// (the top-level functions of math/rand and math/rand/v2), seeded per run.
//
//go:norace
func (e *Exec) RandSource() *RandSource { return &e.randSrc }

// RandSource is a math/rand Source64 and a math/rand/v2 Source
// (splitmix64). Like the global sources it stands for, it is shared by the
// run's goroutines; for the race detector it behaves as if it held a lock.
type RandSource struct {
	state uint64
	draws int // numbers drawn in the run
	// v1 is math/rand's own generator, seeded by the run's call of
	// math/rand.Seed (SeedV1), or nil.
	v1 mathrand.Source64
}

// SeedV1 does what math/rand.Seed(seed) does natively when it is in effect
// (GODEBUG randseednop=0, the default of a module whose go.mod says go 1.23
// or earlier): from now to the end of the run, the top-level functions of
// math/rand draw the numbers of math/rand's generator seeded with seed, as
// a test that seeds them and checks what they draw expects. Those of
// math/rand/v2, which Seed does not touch, keep the run's numbers.
//
//go:norace
func (s *RandSource) SeedV1(seed int64) {
	raceAcquire(unsafe.Pointer(s))
	s.v1 = mathrand.NewSource(seed).(mathrand.Source64)
	raceReleaseMerge(unsafe.Pointer(s))
}

// V1 is the source of the top-level functions of math/rand: s, or, once
// the run called math/rand.Seed, the generator it seeded (SeedV1).
//
//go:norace
func (s *RandSource) V1() mathrand.Source64 {
	if s.v1 == nil {
		return s
	}
	return seededV1{s}
}

// seededV1 draws from a RandSource's math/rand generator; for the race
// detector it behaves as if it held the RandSource's lock.
type seededV1 struct{ s *RandSource }

//go:norace
func (v seededV1) Uint64() uint64 {
	raceAcquire(unsafe.Pointer(v.s))
	n := v.s.v1.Uint64()
	raceReleaseMerge(unsafe.Pointer(v.s))
	return n
}

//go:norace
func (v seededV1) Int63() int64 {
	raceAcquire(unsafe.Pointer(v.s))
	n := v.s.v1.Int63()
	raceReleaseMerge(unsafe.Pointer(v.s))
	return n
}

//go:norace
func (v seededV1) Seed(seed int64) { v.s.SeedV1(seed) }

// Uint64 returns the next number.
//
//go:norace
func (s *RandSource) Uint64() uint64 {
	raceAcquire(unsafe.Pointer(s))
	s.draws++
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	raceReleaseMerge(unsafe.Pointer(s))
	return z ^ z>>31
}

// Int63 implements math/rand.Source.
//
//go:norace
func (s *RandSource) Int63() int64 { return int64(s.Uint64() >> 1) }

// Seed implements math/rand.Source.
//
//go:norace
func (s *RandSource) Seed(seed int64) { s.state = uint64(seed) }

// Seed is the run's seed for the program's random numbers.
//
//go:norace
func (e *Exec) Seed() uint64 { return e.cfg.Seed }

// PendingKind is the kind of g's pending operation.
//
//go:norace
func (g *G) PendingKind() OpKind { return g.op.Kind }

// PendingObj returns the kind and the object of g's pending operation, and
// whether it has neither channel cases nor a timer: then those two are
// all there is of it (other than its call site) to tell what it accesses,
// without a copy of the whole operation (Pending).
//
//go:norace
func (g *G) PendingObj() (OpKind, unsafe.Pointer, bool) {
	return g.op.Kind, g.op.Obj, g.op.Timer == nil && len(g.op.Cases) == 0 && g.op.Group == nil
}

// Pending is g's pending operation.
//
//go:norace
func (g *G) Pending() Op { return g.op }

// Done reports whether g has finished.
//
//go:norace
func (g *G) Done() bool { return g.state == gDone }

// Unwound reports whether g did not finish by itself: the run ended while
// it was parked at its pending operation, and heddle unwound it.
//
//go:norace
func (g *G) Unwound() bool { return g.unwound }

// Event is a one-shot event of a run that controlled goroutines can wait
// for: a channel made by the run, closed when the event happens. Package
// explore uses it to order subtests as package testing does.
type Event struct {
	ch    chan struct{}
	fired bool
}

// NewEvent makes an event of the run.
//
//go:norace
func (e *Exec) NewEvent() *Event {
	ch := make(chan struct{})
	e.registerModelChan(chanAddr(ch))
	return &Event{ch: ch}
}

// Fire makes ev happen, once: a scheduling point, as a close.
//
//go:norace
func (e *Exec) Fire(ev *Event) {
	if ev.fired || e.aborting {
		return
	}
	ev.fired = true
	e.Close(chanAddr(ev.ch), func() { close(ev.ch) })
}

// Wait blocks the running goroutine until ev has happened. Once the run is
// being unwound, Fire and Wait do nothing.
//
//go:norace
func (e *Exec) Wait(ev *Event) {
	if e.aborting {
		return // unwinding: deferred calls run on without waiting
	}
	e.Select([]ChanCase{&structRecv{ch: ev.ch}}, false)
}
