package engine

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Goroutines blocked in code heddle does not control.
//
// A controlled goroutine that blocks for real in code that is not rewritten
// (a Read of an io.Pipe or a net.Pipe, whose writer is another controlled
// goroutine; a lock or a channel of the standard library) holds heddle's
// processor: the goroutine that would release it cannot run. The run's
// monitor (one per run) notices a run that took no step for MonitorPeriod
// of real time, and looks at the running goroutine in the runtime's stack
// dump: if it waits (on a channel, a lock, I/O) in code that is not
// heddle's, the monitor detaches it, as a scheduling point of its own: the
// goroutine's pending operation becomes OpNative, enabled once the
// goroutine comes back, and the monitor lets the strategy pick the next
// step in its place. When the blocking call returns, the goroutine runs on
// natively until it calls into rewritten code (Current) or ends; there it
// waits to be scheduled again, and its step "native" is its return.
//
// With the one processor explorations run on, a goroutine woken by a
// controlled goroutine's native operation (a pipe Write) runs as soon as
// that goroutine parks, usually within the same step (the writer waits for
// the reader to take the data), so the schedules stay reproducible. A
// goroutine waiting for real I/O comes back when the I/O completes; while
// nothing else can run, the run waits for it (Config.DetachWait, 10 s by
// default, as long as the watchdog would have waited for the goroutine
// when it held the processor: an HTTP request to a server the test started
// natively may take long) before it reports it blocked outside heddle's
// control, as the watchdog did.
//
// The claim protocol keeps the detached goroutine out of the engine's
// state: the monitor sets g.claim, checks on a second look that g is still
// waiting outside heddle's code, and only then takes over; g checks its
// claim whenever it enters the engine (Current, the end of its function)
// and, if claimed, waits there to be scheduled (reattach).

// MonitorPeriod is how long a run may take no step before its monitor
// looks at the running goroutine.
const MonitorPeriod = 250 * time.Microsecond

// abandoned counts goroutines left blocked in code heddle does not control
// when their run ended; abandonedGs maps their identities (getg) to their
// G. When one comes back, in a later run or outside runs, it ends.
var (
	nAbandoned  atomic.Int32
	abandonedGs sync.Map
)

// The monitor is one goroutine per process, started with the first run; it
// waits on monitorWake while no run is in progress.
var (
	monitorOnce sync.Once
	monitorWake = make(chan struct{}, 1)
)

// startMonitor is called when a run starts.
//
//go:norace
func startMonitor() {
	monitorOnce.Do(func() { go monitor() })
	select {
	case monitorWake <- struct{}{}:
	default:
	}
}

// monitor watches the runs in progress.
//
// A look costs a dump of every goroutine's stack, which stops the world
// for as long as it takes: with tens of thousands of goroutines (GoKer's
// kernels as shipped) a dump takes a tenth of a second or more, and the
// steps of such a run, slower than MonitorPeriod whenever the machine is
// loaded, had the monitor dump the stacks again and again (Cockroach3710:
// 36 dumps, 10 s of a 40 s run). The monitor waits at least ten times as
// long as its last dump took (lookFloor) before it looks at a run that
// took no step: its looks cost at most a tenth of the time of steps that
// slow, and a goroutine blocked outside heddle's code waits a little
// longer to be detached in a run with many goroutines only.
//
//go:norace
func monitor() {
	var (
		seen  *Exec
		last  uint64
		since time.Time // when the run took its last step seen
		floor = MonitorPeriod
		wait  = floor
		buf   []byte
	)
	for {
		e := active.Load()
		if e == nil {
			seen = nil
			<-monitorWake
			continue
		}
		time.Sleep(wait)
		if active.Load() != e {
			continue
		}
		m := e.loadMoves()
		if e != seen || m != last {
			seen, last, wait, since = e, m, floor, time.Now()
			continue
		}
		g := e.cur
		// A goroutine in a region of allocation counting (quiet.go) is
		// not looked at: a look allocates, and the region counts it.
		if g != nil && !e.ended && g.state == gRunning && g.quiet == 0 {
			var ok bool
			start := time.Now()
			cpu, cpuOK := processCPU()
			buf, _, ok = blockedOutside(buf, e, g, time.Since(since) >= SyscallDetachAfter)
			floor = lookFloor(lookCost(start, cpu, cpuOK))
			if ok && e.claimAndDetach(g, m, &buf) {
				wait = floor
				continue
			}
		}
		// Computing, or in heddle's own code: look again later, less often.
		wait = max(min(2*wait, 100*time.Millisecond), floor)
	}
}

// lookFloor is how long the monitor lets a run take no step before it
// looks at it, after a look that cost dump (lookCost), at most
// maxLookFloor.
func lookFloor(dump time.Duration) time.Duration {
	return min(max(MonitorPeriod, 10*dump), maxLookFloor)
}

// lookCost is what a look begun at start (real time) and cpu (the
// process's processor time, if cpuOK) cost: the processor time the
// process used since, which, with the world stopped for the dump, is the
// dump's own; or the real time, if processor time is not known. Real time
// counts the time the monitor waited for a processor on a loaded machine:
// the dumps of a run of five goroutines took 50 to 300 ms of it at load
// 25, nice 10, and the monitor then let a goroutine wait in a pipe's read
// for seconds before it detached it (rt's TestReplayFollowsDetaches
// skipped: "the reader was not detached in a read that took 1s").
//
//go:norace
func lookCost(start time.Time, cpu time.Duration, cpuOK bool) time.Duration {
	if cpuOK {
		if now, ok := processCPU(); ok {
			return max(now-cpu, 0)
		}
	}
	return time.Since(start)
}

// maxLookFloor bounds lookFloor. A dump measured in real time (where
// processor time is not known, or with a processor the machine shares)
// counts the time the monitor waited for a processor: the dumps of
// parallel_noclaim's TestIO (a few goroutines) took up to 0.3 s of it at
// load 25, nice 10, and the monitor waited 3 s before its next look. A
// look that took a second made it wait ten, as long as explore's watchdog
// (RunTimeout, 10 s) lets a run take no step, and the test goroutine
// waiting in a pipe's read, which the monitor detaches, was reported
// "blocked outside heddle's control" (run 10, step 1). A tenth of the
// watchdog's time keeps ten looks within it; looks a second apart cost a
// run with dumps of a tenth of a second (GoKer's Cockroach3710) no more
// than before.
const maxLookFloor = time.Second

// monitorLooks counts the stack dumps of the monitor's looks (a test reads it).
var monitorLooks atomic.Int64

//go:norace
func (e *Exec) loadMoves() uint64 {
	raceDisable() // an atomic is a synchronization event
	m := e.moves.Load()
	raceEnable()
	return uint64(m)
}

// addMove counts a step, for the monitor and the watchdog: e.moves is
// Config.Progress when there is one (one counter per step, not two).
//
// The increment is a plain one, not an atomic add (a locked instruction,
// about a thirtieth of a step of two goroutines making atomic adds): the
// run's goroutines take their steps one at a time, each handoff ordering
// one's increments before the next one's, and the readers (the monitor,
// explore's watchdog) load the counter atomically (a plain store of an
// aligned word is not torn) and only compare it with what they saw last.
//
//go:norace
func (e *Exec) addMove() {
	*(*int64)(unsafe.Pointer(e.moves))++
}

// blockedOutside reports whether g's goroutine waits (on a channel, a
// lock, I/O) in code that is not heddle's: the first frame of its stack
// outside package runtime is not in heddle.dev/internal/... or
// heddle.dev/rt, whose waits are the scheduler's own. A goroutine in a
// system call counts only if syscallOK (SyscallDetachAfter).
//
//go:norace
func blockedOutside(buf []byte, e *Exec, g *G, syscallOK bool) ([]byte, string, bool) {
	if len(buf) == 0 {
		buf = make([]byte, 1<<16)
	}
	monitorLooks.Add(1)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= 64<<20 {
			return buf[:0], "", false
		}
		buf = make([]byte, 2*len(buf))
	}
	block, ok := goroutineBlock(string(buf), e, g)
	buf = buf[:cap(buf)]
	if !ok {
		return buf, "", false
	}
	if !detachable(block) || !syscallOK && inSyscall(block) && !waitsForChild(block) {
		return buf, "", false
	}
	return buf, block, true
}

// SyscallDetachAfter is how long a run must have taken no step before the
// monitor detaches a goroutine in a system call (other than a wait for a
// child process): a file system call (an unlink of RemoveAll, a getdents)
// takes microseconds, but on a loaded machine it can be held past
// MonitorPeriod, and detaching it made an exhaustive search of a program
// that only touches files "not exhausted" (conformance's
// TestFSRemoveAllVsStat beside other tests). A system call that waits for
// something (gofrs/flock's flock(LOCK_EX) waiting for the test goroutine's
// unlock) waits far longer.
const SyscallDetachAfter = 50 * time.Millisecond

// inSyscall reports whether a goroutine's stack (a block of runtime.Stack's
// dump) is in a system call.
//
//go:norace
func inSyscall(block string) bool {
	open, end := strings.IndexByte(block, '['), strings.IndexByte(block, ']')
	if open < 0 || end < open {
		return false
	}
	state := block[open+1 : end]
	if c := strings.IndexByte(state, ','); c >= 0 {
		state = state[:c]
	}
	return state == "syscall"
}

// detachable reports whether a goroutine's stack (a block of
// runtime.Stack's dump) waits outside heddle's code: it waits (on a
// channel, a lock, I/O) and the first frame of its stack outside package
// runtime is not in heddle.dev/internal/... or heddle.dev/rt, whose waits
// are the scheduler's own; or it is in a system call (flock(2) waiting for
// another descriptor's lock, a read of a FIFO or a terminal, a wait for a
// child process, ...) made by code that is not heddle's (syscallCaller).
//
// A system call that heddle does not model is real I/O as a network read
// is: whether it waits for another process, for a goroutine of the run
// (gofrs/flock's TestFlock_Lock: a goroutine's flock(LOCK_EX) returns when
// the test goroutine unlocks), or computes (a long write), it returns by
// itself, with no step of the run's goroutines needed, or because of one.
// Held on the processor, it kept the goroutine that would end it from
// running, and the run was reported blocked; detached, it is a goroutine
// away in real I/O, which the run waits for as for one.
//
//go:norace
func detachable(block string) bool {
	open, end := strings.IndexByte(block, '['), strings.IndexByte(block, ']')
	if open < 0 || end < open {
		return false
	}
	state := block[open+1 : end]
	if c := strings.IndexByte(state, ','); c >= 0 {
		state = state[:c]
	}
	if state == "syscall" {
		return syscallCaller(block)
	}
	if !waitingState(state) {
		return false
	}
	for _, line := range strings.Split(block, "\n")[1:] {
		if line == "" || line[0] == '\t' || strings.HasPrefix(line, "runtime.") || strings.HasPrefix(line, "internal/runtime/") {
			continue
		}
		return !strings.HasPrefix(line, "heddle.dev/internal/") && !strings.HasPrefix(line, "heddle.dev/rt.")
	}
	return false
}

// syscallCaller reports whether the system call a goroutine's stack (a
// block of runtime.Stack's dump) is in was made by code that is not
// heddle's: the first frame outside the packages that carry a system
// call (runtime, the standard library's internal packages, syscall,
// golang.org/x/sys, os) is not in heddle.dev/internal/... (the engine's
// own writes, made in the middle of a step) nor in heddle.dev/rt, except
// rt's wrappers of package os's functions (rt/file.go, rt/filetree.go),
// which take their step before the call they wrap and none after it in
// the same entry into the engine: a goroutine detached in one comes back
// at its next entry, as from any other code.
//
//go:norace
func syscallCaller(block string) bool {
	lines := strings.Split(block, "\n")
	for i := 1; i < len(lines); i++ {
		line := lines[i]
		if line == "" || line[0] == '\t' {
			continue
		}
		switch {
		case strings.HasPrefix(line, "runtime."), strings.HasPrefix(line, "internal/"),
			strings.HasPrefix(line, "syscall."), strings.HasPrefix(line, "golang.org/x/sys/"),
			strings.HasPrefix(line, "os."):
			continue
		case strings.HasPrefix(line, "heddle.dev/internal/"):
			return false
		case strings.HasPrefix(line, "heddle.dev/rt."):
			if i+1 >= len(lines) {
				return false
			}
			file := strings.TrimSpace(lines[i+1])
			if j := strings.LastIndexByte(file, ':'); j >= 0 {
				file = file[:j]
			}
			return strings.HasSuffix(file, "/rt/file.go") || strings.HasSuffix(file, "/rt/filetree.go")
		}
		return true
	}
	return false
}

// waitingState reports whether a goroutine in the runtime's state s waits
// for another goroutine or for I/O. A sleep ends by itself, and a system
// call may be computing: neither is taken for a wait.
//
//go:norace
func waitingState(s string) bool {
	switch {
	case strings.HasPrefix(s, "chan "), strings.HasPrefix(s, "select"), strings.HasPrefix(s, "sync."),
		s == "semacquire", s == "IO wait":
		return true
	}
	return false
}

// claimAndDetach detaches g, which holds the processor and waits outside
// heddle's code, if a second look, after claiming it, still finds it so and
// the run took no step (m is the step count of the first look).
//
//go:norace
func (e *Exec) claimAndDetach(g *G, m uint64, buf *[]byte) bool {
	if e.cfg.FollowPoints <= 0 && e.following() && (g.replayDetach == 0 || g.entries+1 != g.replayDetach) {
		// A replay detaches a goroutine only where the recorded run did
		// (detachplan.go): elsewhere its wait ended within its step then.
		// An exploring run that follows the record of its prefix only
		// (Config.FollowPoints) detaches it as any run does: held on the
		// processor where the record says nothing, a wait that outlasted
		// the watchdog would be reported blocked, where detached it at
		// worst leaves the prefix, as it did without the record.
		return false
	}
	e.detachMu.Lock()
	g.claim.Store(1)
	e.detachMu.Unlock()
	still, block := false, ""
	*buf, block, still = blockedOutside(*buf, e, g, true)
	g.waitsChild = waitsForChild(block)
	in := waitedIn(block)
	if !still || e.loadMoves() != m || e.cur != g {
		e.detachMu.Lock()
		back := g.back
		if !back {
			g.claim.Store(0)
		}
		e.detachMu.Unlock()
		if !back {
			return false
		}
		// g came back in between and waits to be scheduled: it is out
		// of the engine, and detached it is.
	}
	e.detach(g, in)
	return true
}

// detach takes the processor back from g, which waits outside heddle's
// code (in, the function it waits in) or came back from there and waits in
// reattach: g's pending operation is OpNative, and the strategy picks the
// next step, on the monitor's goroutine (or g's, in a replay that detaches
// g itself: detachplan.go), as yield would on g's. A second call for g
// (the monitor and g itself, at once) does nothing.
//
//go:norace
func (e *Exec) detach(g *G, in string) {
	defer func() {
		if r := recover(); r != nil {
			e.internalError(r)
		}
	}()
	e.detachMu.Lock()
	if g.detached {
		e.detachMu.Unlock()
		return
	}
	g.detached = true
	g.ioWaits, g.reached = 0, false
	g.awayAt, g.seenBack = e.now, false
	g.replayDetach = 0
	e.detachedGs = append(e.detachedGs, g)
	e.nDetached.Add(1)
	e.res.Detaches++
	// Entry is made exact when g comes back (reattach): g may be past
	// the entry that ends its wait already.
	e.res.Detached = append(e.res.Detached, Detached{G: g.ID, At: e.steps, Entry: g.entries, In: in})
	e.detachMu.Unlock()
	g.op = Op{Kind: OpNative}
	g.state = gParked
	g.committed = -1
	g.woken = 0
	g.arrived = false
	e.seq++
	g.opSeq = e.seq
	e.noteAnnounce(g)
	e.addMove()
	if r := e.returnTo; r != nil {
		// g was completing a rendezvous for r: hand the processor back.
		e.returnTo = nil
		r.state = gRunning
		e.cur = r
		raceDisable()
		r.wake.wake()
		raceEnable()
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

// nativeBack reports whether g, detached, came back from the code heddle
// does not control and waits to be scheduled. It is asked when the
// choices of the next step are made: the first time it says yes, that
// step is where g came back (Detached.Back), whether or not it is picked
// there.
//
//go:norace
func (e *Exec) nativeBack(g *G) bool {
	raceDisable()
	e.detachMu.Lock()
	back := g.back && e.backDue(g)
	if back {
		g.seenBack = true
		if d := e.lastDetach(g); d != nil && d.Back == 0 {
			d.Back = e.steps + 1
		}
	}
	e.detachMu.Unlock()
	raceEnable()
	return back
}

// reattach is called by g when it enters the engine (or ends) while
// claimed by the monitor, or where a replay detaches it (replayDetach): it
// waits until the scheduler picks it, and returns true then. It returns
// false at once if the claim was dropped (g was not detached after all),
// and abandoned is set if g's run ended while it was away: g must then end
// without touching the engine. counted says whether g counted this entry
// in G.entries (it held the processor: it was not detached yet); atEnd,
// whether g is at its end, in the deferred call of goroutine.
//
//go:norace
func (e *Exec) reattach(g *G, counted, atEnd bool) (ok, abandoned bool) {
	raceDisable()
	e.detachMu.Lock()
	if g.abandoned {
		e.detachMu.Unlock()
		raceEnable()
		return false, true
	}
	self := counted && !g.detached && g.replayDetach != 0 && g.entries == g.replayDetach
	if g.claim.Load() == 0 && !self {
		e.detachMu.Unlock()
		raceEnable()
		return false, false
	}
	g.claim.Store(1)
	g.back = true
	e.detachMu.Unlock()
	raceEnable()
	if self {
		// The recorded run detached g here; its wait was shorter this
		// time: g detaches itself, back already (detachplan.go).
		e.detach(g, "")
	}
	if atEnd {
		// Not park: a goroutine woken to be unwound there ends by
		// runtime.Goexit, which in the deferred call that called this
		// skipped the rest of it, e.exit: unwind waited for its exit
		// forever (failsafehttp's TestNewRoundTripperWithLevel, a run
		// ended while a goroutine back from net/http at its end waited
		// to be scheduled). Unwound here, it returns to exit.
		raceDisable()
		g.wake.wait()
		raceEnable()
		if e.aborting {
			raceAcquire(unsafe.Pointer(e)) // as unwound does
		}
	} else {
		e.park(g)
	}
	raceDisable()
	e.detachMu.Lock()
	if d := e.lastDetach(g); d != nil {
		if d.Back == 0 {
			d.Back = e.steps // picked without being seen back (nativeBack)
		}
		d.Entry = g.entries
		if counted {
			d.Entry--
		}
	}
	g.claim.Store(0)
	g.back = false
	g.detached = false
	for i, h := range e.detachedGs {
		if h == g {
			e.detachedGs = append(e.detachedGs[:i], e.detachedGs[i+1:]...)
			break
		}
	}
	e.nDetached.Add(-1)
	e.detachMu.Unlock()
	raceEnable()
	return true, false
}

// cameBack reports whether a detached goroutine is back and may take its
// step "native" now (nativeBack): g sets g.back when it comes back, at any
// moment, so one may come back after the pass that made the choices found
// none, and before a look at what is away (away) finds nothing.
//
//go:norace
func (e *Exec) cameBack() bool {
	if e.nDetached.Load() == 0 {
		return false
	}
	e.detachMu.Lock()
	defer e.detachMu.Unlock()
	for _, g := range e.detachedGs {
		if g.back && e.backDue(g) {
			return true
		}
	}
	return false
}

// abandon marks g, if it is detached and still away, as abandoned when the
// run ends: nobody waits for it, and it ends when it comes back.
//
//go:norace
func (e *Exec) abandon(g *G) bool {
	e.detachMu.Lock()
	defer e.detachMu.Unlock()
	if !g.detached || g.back {
		return false
	}
	g.abandoned = true
	abandonedGs.Store(g.gid, g)
	nAbandoned.Add(1)
	return true
}

// Away reports whether a goroutine of the run is still away in code heddle
// does not control (detached, not back): it runs, or waits, natively, and
// nothing that the end of the run does stops it. While the run is unwound,
// the test's cleanups must not free what it may still be using
// (explore's runCleanups).
//
//go:norace
func (e *Exec) Away() bool {
	away, _ := e.away()
	return away
}

// away reports whether a detached goroutine is still away, and whether one
// that is away waits for a child process.
//
//go:norace
func (e *Exec) away() (away, child bool) {
	if e.nDetached.Load() == 0 {
		return false, false
	}
	e.detachMu.Lock()
	defer e.detachMu.Unlock()
	for _, g := range e.detachedGs {
		if !g.back {
			away = true
			child = child || g.waitsChild
		}
	}
	return away, child
}

// awayFloor returns the earliest virtual time from which a goroutine away
// in I/O (detached, not back, not waiting for a child process) has waited
// to come back: since it was detached, or since the last timer fired when
// no goroutine could run (idleAt), whichever is later; ok is false when no
// such goroutine is away.
//
// A timer firing early (or a late wake) while goroutines can run moves the
// clock on as if the machine were slow, and -max-starve bounds how slow:
// the goroutines that could run wait at most that long. A goroutine away
// in real I/O may be as ready as they are: the answer it waits for may be
// in its socket already, and natively it reads it within microseconds.
// The clock moving on by more than -max-starve past its detach assumes
// that it was starved longer than that. yamux's TestSendData_Large: the
// server's receive loop was in a TLS read with the client's keepalive ping
// in its socket while two late wakes moved the clock 200ms, and the ping's
// 250ms timeout then fired early while the answer was in real I/O: the
// session closed itself, and the writer failed with "stream closed".
// Natively the ping takes microseconds. So such a goroutine counts as one
// that could run, for early firings and late wakes: the clock does not
// move past awayFloor plus -max-starve while it is away. A timer that
// fires while no goroutine can run (after the wait for it, waitChild)
// starves none, as for the others: a goroutine that waits for ever (a
// server's Accept) holds the clock back only until the next idle firing.
//
//go:norace
func (e *Exec) awayFloor() (floor time.Duration, ok bool) {
	if e.nDetached.Load() == 0 {
		return 0, false
	}
	e.detachMu.Lock()
	for _, g := range e.detachedGs {
		if g.waitsChild || g.seenBack {
			// Back: a choice, whose starvation counts as any other's.
			// Not g.back, which g sets when it comes back, at any
			// moment: a replay must see it back from the same step as
			// the recorded run, the one whose choices had it.
			continue
		}
		if !ok || g.awayAt < floor {
			floor, ok = g.awayAt, true
		}
	}
	e.detachMu.Unlock()
	return max(floor, e.idleAt), ok
}

// awayStarved reports whether moving the clock to when while goroutines
// can run starves a goroutine away in I/O longer than -max-starve
// (awayFloor).
//
//go:norace
func (e *Exec) awayStarved(when time.Duration) bool {
	if when <= e.now {
		return false // due now: the clock does not move
	}
	floor, ok := e.awayFloor()
	return ok && when-floor > e.cfg.MaxStarve
}

// awayIO reports whether a goroutine away in code other than a wait for a
// child process was waited for fewer than ioWaitTries times (waitChild),
// and whether one of those was reached (ReachOut) since its last wait.
// With expired set, it first counts a wait for each of them, one that
// ended without it coming back.
//
//go:norace
func (e *Exec) awayIO(expired bool) (fresh, reached bool) {
	e.detachMu.Lock()
	defer e.detachMu.Unlock()
	for _, g := range e.detachedGs {
		if g.back || g.waitsChild {
			continue
		}
		if expired {
			g.reached = false
			if g.ioWaits < ioWaitTries {
				g.ioWaits++
			}
		}
		if g.ioWaits < ioWaitTries {
			fresh = true
			reached = reached || g.reached
		}
	}
	return fresh, reached
}

// waitChild is called when the only choices are timers (no goroutine can
// run) while a goroutine the monitor detached waits in code heddle does not
// control. Natively the timer fires after its delay in real time, and a
// wait that ends sooner comes first: go-quartz's TestScheduler sleeps a
// second while a job runs ls, and expects the job done; failsafehttp's
// TestClientCancelWithContext cancels an HTTP request's context after
// 50ms, while another goroutine sleeps a second, and expects the request
// to end at once. The run fired the timer at once, before the child ended
// or the request came back, and the tests failed, as natively they never
// do. So the run waits for the goroutine, in real time, for as long as the
// earliest timer's delay before a timer may fire; it sleeps a little and
// reports true so that the choices are made again.
//
// For a child process, which ends by itself, the wait lasts at most
// Config.ChildWait. For other waits (I/O, a lock or a channel of the
// standard library), which may never end (a server's Accept), at most
// ForeignWait after each step (after the run acted on the world outside
// the process, up to the timer's delay, once: ReachOut), and only ioWaitTries
// times for a goroutine
// that does not come back (a wait that the test's next step ends, as its
// cancel of the request's context, is tried again after that step); the
// waits that ended without a goroutine coming back take at most
// ioWaitBudget of a run. After that the clock moves at once, as it did
// before.
//
//go:norace
func (e *Exec) waitChild() bool {
	if e.following() && e.waitPlanned() {
		return true
	}
	// A replay waits for a goroutine away as the recorded run did: what it
	// does there may enable a goroutine (an httptest handler's send), which
	// the recorded run, whose goroutine the monitor detached only after a
	// while, had enabled by then (replay_io_partner.txt).
	for _, c := range e.choices {
		if c.Timer == nil && (c.G == nil || c.G.op.Kind != OpSleep) {
			return false // a goroutine can run
		}
	}
	away, child := e.away()
	if !away {
		return false
	}
	var fresh, reached bool
	if !child {
		fresh, reached = e.awayIO(false)
		if !reached && (e.ioWaited >= ioWaitBudget || !fresh) {
			return false
		}
	}
	t := e.nextTimer(true)
	if t == nil {
		return false
	}
	if e.steps != e.childStep {
		e.childStep, e.childWaited = e.steps, 0
	}
	limit := e.cfg.ChildWait
	if !child {
		limit = ForeignWait
		if reached {
			// The run acted on what the goroutine waits for: natively
			// the timer gives it its whole delay (ReachOut).
			limit = reachWait
		}
	}
	if e.childWaited >= min(t.when-e.now, limit) {
		if !child && e.childWaited != waitSpent {
			e.ioWaited += e.childWaited
			if e.childWaited >= ioTryMin {
				_, _ = e.awayIO(true) // a wait for a timer due within ioTryMin is no try
			}
			e.childWaited = waitSpent // counted; no more waiting before the next step
		}
		return false
	}
	return e.sleepProgress(&e.childWaited)
}

// ReachOut is called by the running goroutine as it acts on the world
// outside the process (it reads, writes or closes a file, or changes its
// names): what it does may end the wait of a goroutine away in I/O (a
// file watcher's read of inotify's events: fsnotify's readEvents), which
// the waits before timers made before the act (ioWaitTries, ForeignWait
// each) had given up on. Each goroutine away in I/O gets its tries
// again, and its next wait before a timer lasts up to the timer's delay
// (at most reachWait), as natively, even past the run's ioWaitBudget:
// the wait after the act is for what the act may cause, as the wait after
// a cancel's step is for the cancelled request (waitChild). It is one wait
// per act: a goroutine that does not come back (a server's Accept) makes
// the run no slower than the test's sleeps natively are.
//
// fsnotify's TestWatchMultipleWrite sleeps 50ms after each of two writes
// to a watched file, then 500ms, then closes the watcher and gives its
// reader a second to end. The reader, away in its read since the watcher
// was made, had used its tries on the sleeps of the test's setup, before
// the watch was added, and the events came back only after the close;
// and the close's read ends only after the kernel released the inotify
// instance (a close of the file, by the reader, of 15ms to over 100ms on
// a loaded machine), after ForeignWait.
//
//go:norace
func (e *Exec) ReachOut() {
	if e.nDetached.Load() == 0 {
		return
	}
	e.detachMu.Lock()
	for _, g := range e.detachedGs {
		if !g.back && !g.waitsChild {
			g.ioWaits, g.reached = 0, true
		}
	}
	e.detachMu.Unlock()
}

// reachWait bounds the wait before a timer for a goroutine away in I/O
// after the run acted on the world outside the process (ReachOut).
const reachWait = time.Second

// ioWaitBudget is how long, in real time, a run waits in all for
// goroutines detached in I/O before timers (waitChild), counting only the
// waits that ended without one coming back.
const ioWaitBudget = 5 * ForeignWait

// ioWaitTries is how many waits before timers that end without it coming
// back a goroutine detached in I/O is given (waitChild).
const ioWaitTries = 2

// ioTryMin is the shortest wait counted as one of a goroutine's
// ioWaitTries: failsafehttp's TestClientCancelWithContext has three sleeps
// of 50ms due microseconds apart, and the waits for the second and third
// used up the request's tries before the one that cancels it fired.
const ioTryMin = 10 * time.Millisecond

// waitSpent marks the wait of a step as over and counted (waitChild).
const waitSpent = time.Duration(1<<63 - 1)

// sleepProgress sleeps a millisecond of real time, for a wait on what
// heddle does not control, and adds the time it slept to *waited (more
// than a millisecond on a loaded machine: counting a millisecond made a
// wait of a timer's delay for a request (waitChild) last longer than the
// delay, and the response came first); waiting is progress for
// the watchdog, and the enabled set is rebuilt after it. It reports false,
// without sleeping, when the run is cut instead (waitCut).
//
//go:norace
func (e *Exec) sleepProgress(waited *time.Duration) bool {
	if e.waitCut() {
		return false
	}
	start := time.Now()
	time.Sleep(time.Millisecond)
	*waited += max(time.Since(start), time.Millisecond)
	if p := e.cfg.Progress; p != nil {
		raceDisable()
		p.Add(1)
		raceEnable()
	}
	e.rebuildAll = true
	return true
}

// waitCut ends a run that waits, in real time, for goroutines detached in
// code heddle does not control (I/O, a child process) once Config.Stop is
// set or Config.Deadline plus Config.Grace has passed, as a run that takes
// steps is ended (pick): a wait of DetachWait (10 s) or ChildWait (2 m) is
// not counted in steps, and a test blocked on a socket kept neither
// -budget nor Ctrl-C (EventBus's network tests took 15 to 22 s with
// -budget 5s). It sets Result.Interrupted or Unfinished, and pick ends the
// run: the detached goroutines are abandoned, as those of a blocked run.
//
//go:norace
func (e *Exec) waitCut() bool {
	if e.cfg.Stop != nil && e.cfg.Stop.Load() {
		e.res.Truncated, e.res.OverTime, e.res.Interrupted = true, true, true
		return true
	}
	if !e.cfg.Deadline.IsZero() && !time.Now().Before(e.cfg.Deadline.Add(e.cfg.Grace)) {
		e.res.Truncated, e.res.OverTime, e.res.Unfinished = true, true, true
		var away *G
		e.detachMu.Lock()
		for _, g := range e.detachedGs {
			if !g.back && (away == nil || g.Index < away.Index) {
				away = g
			}
		}
		e.detachMu.Unlock()
		if away != nil {
			e.res.CutAway = away.ID
		}
		return true
	}
	return false
}

// detachWait is how long a run in which nothing else can run waits for its
// detached goroutines, given whether one of them waits for a child process.
func (e *Exec) detachWait(child bool) time.Duration {
	if child {
		return max(e.cfg.DetachWait, e.cfg.ChildWait)
	}
	return e.cfg.DetachWait
}

// waitsForChild reports whether a goroutine's stack (a block of
// runtime.Stack's dump) waits for a child process to end: natively a test
// that runs a compiler or a server waits as long as the child works, so
// the run gives it Config.ChildWait, not DetachWait (go.uber.org/atomic's
// TestNocmpIntegration runs "go build" with an empty build cache, which
// took more than 10 s on a loaded machine).
func waitsForChild(block string) bool {
	return strings.Contains(block, "\nos.(*Process).Wait(") || strings.Contains(block, "\nos.(*Process).wait(")
}

// detachedFor returns the detached goroutine of the run that the caller
// (identity gid) runs, or nil.
//
//go:norace
func (e *Exec) detachedFor(gid uintptr) *G {
	e.detachMu.Lock()
	defer e.detachMu.Unlock()
	for _, g := range e.detachedGs {
		if g.gid == gid {
			return g
		}
	}
	return nil
}

// endAbandoned ends the calling goroutine if a run abandoned it.
//
//go:norace
func endAbandoned(gid uintptr) {
	if nAbandoned.Load() == 0 {
		return
	}
	if _, ok := abandonedGs.Load(gid); ok {
		runtime.Goexit()
	}
}

// forgetAbandoned is called when g's goroutine ends.
//
//go:norace
func forgetAbandoned(g *G) {
	if _, ok := abandonedGs.LoadAndDelete(g.gid); ok {
		nAbandoned.Add(-1)
	}
}

// blockedAway ends a run in which nothing can run while a detached
// goroutine is still away after Config.DetachWait: it is blocked outside
// heddle's control, as the watchdog reported such a goroutine when it held
// the processor, with every goroutine's stack. It reports whether it did.
//
//go:norace
func (e *Exec) blockedAway() bool {
	if e.nDetached.Load() == 0 {
		return false
	}
	var g *G
	e.detachMu.Lock()
	for _, h := range e.detachedGs {
		if !h.back && (g == nil || h.Index < g.Index) {
			g = h
		}
	}
	e.detachMu.Unlock()
	if g == nil {
		return false
	}
	e.detachMu.Lock()
	back, in := e.backInRecord(g)
	e.detachMu.Unlock()
	if back {
		// A replay: the recorded run had g back (detachplan.go).
		e.res.Bug = e.notBack(g, in, e.detachWaited)
		return true
	}
	buf := allStacks()
	msg := "goroutine " + g.ID + " blocked outside heddle's control (in code that was not rewritten, or on I/O)"
	if g.waitsChild {
		msg = "goroutine " + g.ID + " waited for a child process for " + DurationText(e.detachWait(true)) + ", outside heddle's control"
	}
	e.res.Bug = &Bug{
		Kind:    KindBlocked,
		Message: msg,
		G:       g,
		Stack:   string(buf),
	}
	return true
}

// goroutineBlock finds in dump (runtime.Stack's, of all goroutines) the
// block of the goroutine running g, by the arguments of its
// (*Exec).goroutine frame.
//
//go:norace
func goroutineBlock(dump string, e *Exec, g *G) (string, bool) {
	frame := "(*Exec).goroutine(" + hexPtr(uintptr(unsafe.Pointer(e)))
	arg := ", " + hexPtr(uintptr(unsafe.Pointer(g)))
	for _, block := range strings.Split(dump, "\n\n") {
		i := strings.Index(block, frame)
		if i < 0 {
			continue
		}
		rest := strings.TrimPrefix(block[i+len(frame):], "?")
		if strings.HasPrefix(rest, arg) {
			return block, true
		}
	}
	return "", false
}

//go:norace
func hexPtr(p uintptr) string { return "0x" + strconv.FormatUint(uint64(p), 16) }
