package strategy

import (
	"runtime"
	"sort"
	"strings"

	"heddle.dev/internal/engine"
)

// spinLimit is the fairness threshold: a goroutine whose last Spins()
// operations made no progress, and whose pending operation repeats a call
// site of that streak (a genuine loop), is not chosen while another choice
// exists.
const spinLimit = 2

// spinTracker tells genuine spin loops from straight-line code. The
// engine counts consecutive operations without progress (Gosched, select
// default, failed TryLock, an atomic load of an address nobody wrote since
// the goroutine last loaded it); straight-line code that loads one
// variable four times counts too, and deprioritizing it would prune real
// interleavings (the DFS/DPOR disagreement of the first differential
// check was of that kind). So a goroutine is deprioritized only when its
// pending operation is at a call site (the innermost user frames) it
// already reached during its current streak: it is going round a loop
// without progress.
//
// The call site of a pending operation is read when the goroutine that
// announced it reaches the scheduling point, on its own stack: Choose runs
// on that goroutine. A goroutine whose announcement was not seen (only one
// choice was enabled then) is not deprioritized at that point.
type spinTracker struct {
	exec *engine.Exec
	gs   map[*engine.G]*spinState

	sleepers []int // delayChoices' scratch slice

	// siteMemo is callSite's memo: the hash of the innermost user frames
	// of each call stack read (its return addresses, as runtime.Callers
	// gives them), kept across the runs of the exploration. Turning
	// return addresses into frames (runtime.CallersFrames) was the most of
	// a select loop's scheduling points: eapache/channels' buffer
	// goroutines, a third of an IDB run of TestOverflowingChannel.
	siteMemo map[callStack]uint64

	// keep: the run keeps spinning goroutines among the choices
	// (engine.Config.KeepSpinners, heddle test -keep-spinners): none is
	// spinning here either.
	keep bool
	// drops counts the points, over the whole exploration, at which a
	// spinning goroutine was not taken while another choice was: the
	// exploration then covered the schedules in which no goroutine polls
	// more than spinLimit times in a row while another can run, not the
	// others (SpinBound). A loop is told from straight-line code by its
	// call sites, but a loop that polls a bounded number of times (a
	// counter) is not told from one that polls until something changes:
	// the first ends in the schedules not taken. A drop of a goroutine at
	// an operation of a marked poll loop's second or later iteration
	// (engine.G.PollMarked: the rewriter saw that the loop's iterations,
	// but the last, change nothing) is not counted: it leaves out no
	// outcome (internal/engine/spinmark.go).
	drops int
}

// bound is the spin bound of the schedules explored so far (drops):
// spinLimit once a spinning goroutine was left out, 0 before.
func (t *spinTracker) bound() int {
	if t.drops > 0 {
		return spinLimit
	}
	return 0
}

type spinState struct {
	spins   int
	step    int // LastStep of the announcement last seen
	sites   map[uint64]bool
	genuine bool // the pending operation repeats a site of the streak
}

func (t *spinTracker) observe(p *engine.Point) {
	if t.exec != p.Exec {
		t.exec, t.gs = p.Exec, map[*engine.G]*spinState{}
		t.keep = p.Exec.KeepSpinners()
	}
	g := p.Exec.Cur()
	if g == nil || g.Done() {
		return
	}
	st := t.gs[g]
	if st == nil {
		st = &spinState{step: -1}
		t.gs[g] = st
	}
	if st.step == g.LastStep() {
		return // the same announcement, seen again (a timer fired)
	}
	st.step = g.LastStep()
	if g.Spins() == 0 || g.Spins() <= st.spins || !spinKind(g.PendingKind()) {
		st.sites = nil
	}
	st.spins = g.Spins()
	st.genuine = false
	if !spinKind(g.PendingKind()) || g.Spins() == 0 {
		// The first operation of a streak is not recorded: reading a call
		// site costs a stack walk, and a loop shows from its second
		// iteration on.
		return
	}
	site := t.callSite()
	if st.sites == nil {
		st.sites = map[uint64]bool{}
	}
	st.genuine = st.sites[site]
	st.sites[site] = true
}

func spinKind(k engine.OpKind) bool {
	switch k {
	case engine.OpYield, engine.OpSelect, engine.OpTryLock, engine.OpRWTryLock, engine.OpRWTryRLock, engine.OpAtomicLoad, engine.OpMapRead, engine.OpChanLen, engine.OpSleep, engine.OpCtxErr:
		return true
	case engine.OpRacyRead:
		return true
	}
	return false
}

// spinning reports whether g is going round a loop without progress.
func (t *spinTracker) spinning(g *engine.G) bool {
	if g == nil || g.Spins() < spinLimit || t.keep || g.Counted() {
		// g.Counted: an operation of a counted loop that has not yet
		// polled as often as the loop can (engine/spincount.go): not
		// left out, so that every iteration is explored.
		return false
	}
	st := t.gs[g]
	return st != nil && st.genuine && st.step == g.LastStep()
}

// callStack is the return addresses of a call stack, innermost first,
// as many as runtime.Callers gives (the rest zero, which no return
// address is): the frames, and so callSite's hash, are a function of it.
type callStack [32]uintptr

// siteMemoMax bounds callSite's memo: past it, the memo starts anew.
const siteMemoMax = 1 << 12

// siteMemoOn turns callSite's memo on; tests turn it off to compare.
var siteMemoOn = true

// callSite hashes the innermost three frames of the running goroutine
// outside heddle (siteHash), read from its memo when the goroutine's call
// stack was seen before: the same return addresses make the same frames.
// It must be called by observe only (the frames it skips).
func (t *spinTracker) callSite() uint64 {
	var pcs callStack
	n := runtime.Callers(3, pcs[:])
	if !siteMemoOn {
		return siteHash(pcs[:n])
	}
	if h, ok := t.siteMemo[pcs]; ok {
		return h
	}
	h := siteHash(pcs[:n])
	if t.siteMemo == nil || len(t.siteMemo) >= siteMemoMax {
		t.siteMemo = make(map[callStack]uint64)
	}
	t.siteMemo[pcs] = h
	return h
}

// siteHash hashes the innermost three frames outside heddle of the call
// stack whose return addresses are pcs.
func siteHash(pcs []uintptr) uint64 {
	frames := runtime.CallersFrames(pcs)
	var h uint64 = 14695981039346656037
	k := 0
	for k < 3 {
		f, more := frames.Next()
		if !heddleFunc(f.Function) {
			h = (h ^ uint64(f.PC)) * 1099511628211
			k++
		}
		if !more {
			break
		}
	}
	return h
}

func heddleFunc(fn string) bool {
	for _, p := range [...]string{"heddle.dev/rt.", "heddle.dev/internal/engine.", "heddle.dev/internal/explore.", "heddle.dev/internal/strategy.", "runtime."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// allowed returns the indices of p's choices an exhaustive strategy may
// take, in p's order: every choice, except that goroutines spinning (see
// spinTracker) are dropped while some other choice exists. This is the
// fairness that lets DFS and DPOR terminate on programs that terminate
// under fair scheduling: a spinning goroutine only runs when nothing else
// can. A firing that need not come (engine.Choice.Optional) does not count:
// the spinners beside it stay.
func (t *spinTracker) allowed(p *engine.Point) []int {
	return t.allowedTo(nil, p)
}

// allowedTo is allowed appending to dst[:0] (a scratch slice the caller
// keeps from point to point: DFS.Choose).
func (t *spinTracker) allowedTo(dst []int, p *engine.Point) []int {
	t.observe(p)
	out := dst[:0]
	kept := 0 // choices in out that are not Optional
	left := false
	for i, c := range p.Choices {
		if c.G != nil && t.spinning(c.G) {
			left = left || !c.G.PollMarked()
			continue
		}
		out = append(out, i)
		if c.G != nil || !c.Optional() {
			kept++
		}
	}
	if kept == 0 {
		// Nothing but spinners, or firings that need not come: the
		// spinners stay choices.
		out = out[:0]
		for i := range p.Choices {
			out = append(out, i)
		}
	} else if left {
		t.drops++
	}
	return out
}

// isTimerChoice reports whether c fires a timer or wakes a sleeper early:
// it comes after every goroutine in round-robin order.
func isTimerChoice(c engine.Choice) bool { return c.G == nil || c.Early > 0 }

// rrStart returns the creation index round-robin starts from: the goroutine
// that ran the previous step (seed-004 §2.1: "starting with the most
// recently executed thread").
func rrStart(p *engine.Point) int {
	if cur := p.Exec.Cur(); cur != nil {
		return cur.Index
	}
	return 0
}

// rrOrder orders the choices idx of p round-robin: goroutines in creation
// order starting from the one that ran last and wrapping round (a select's
// ready cases in case order), then timers. The first element is what a
// non-preemptive round-robin scheduler runs, so the first schedule of DFS,
// IPB and IDB is the same. The sort is stable, so a goroutine's choices (a
// select's cases) stay together and in p's order; it costs O(n log n),
// which matters when thousands of goroutines are enabled at once.
func rrOrder(p *engine.Point, idx []int) []int {
	return rrOrderTo(nil, p, idx)
}

// rrOrderTo is rrOrder appending to dst[:0], which must not share idx's
// array.
func rrOrderTo(dst []int, p *engine.Point, idx []int) []int {
	return rrOrderFrom(dst, p, idx, rrStart(p))
}

// yieldStart is rrStart for DFS, IPB, IDB and DPOR: when the goroutine that ran
// the previous step is about to yield (Gosched), round-robin starts at
// the goroutine after it. As in delay bounding's deterministic scheduler
// (Emmi, Qadeer and Rakamarić, POPL 2011), a task that yields hands the
// turn to the next one: the other goroutines go first for free, and
// running the yielding one again costs delays. Starting at the yielding
// goroutine, a loop that calls Gosched while it waits for another
// goroutine to block, and makes progress otherwise (x/sync's semaphore
// test: TryAcquire and Release take a mutex), ran under the first
// schedule of DFS and every schedule of IDB until the fair scheduler took
// over at half the step bound. DPOR's order is the one its new nodes
// take (its first run, and each run past its wakeup sequence): any order
// is sound there, and with rrStart the first run of a test whose loop
// takes a lock and calls Gosched (a Cond's waiters counted under its
// mutex) spun to the fair scheduler, 500,000 steps.
func yieldStart(p *engine.Point) int {
	if cur := p.Exec.Cur(); cur != nil && yielding(cur) {
		return cur.Index + 1
	}
	return rrStart(p)
}

// yielding reports whether g's pending operation is a Gosched.
func yielding(g *engine.G) bool {
	return !g.Done() && g.PendingKind() == engine.OpYield
}

// rrOrderFrom is rrOrderTo starting round-robin at creation index start.
func rrOrderFrom(dst []int, p *engine.Point, idx []int, start int) []int {
	ngs := len(p.Exec.Gs())
	if ngs == 0 {
		ngs = 1
	}
	dist := func(i int) int {
		c := p.Choices[i]
		if isTimerChoice(c) {
			return 1 << 30
		}
		return ((c.G.Index-start)%ngs + ngs) % ngs
	}
	if out, ok := rrRotate(dst, p, idx, start); ok {
		return out
	}
	out := append(dst[:0], idx...)
	sort.SliceStable(out, func(a, b int) bool { return dist(out[a]) < dist(out[b]) })
	return out
}

// rrRotate is rrOrder in one pass when idx lists goroutines in creation
// order, then timers, as the engine offers them: round-robin order is then
// a rotation, appended to dst[:0]. ok is false when idx is not in that
// order.
func rrRotate(dst []int, p *engine.Point, idx []int, start int) (out []int, ok bool) {
	split, timers := len(idx), len(idx) // first goroutine at or after start; first timer
	last := -1
	for a, i := range idx {
		c := p.Choices[i]
		if isTimerChoice(c) {
			if timers == len(idx) {
				timers = a
			}
			continue
		}
		if timers < len(idx) || c.G.Index < last {
			return nil, false // a goroutine after a timer, or out of order
		}
		last = c.G.Index
		if split == len(idx) && c.G.Index >= start {
			split = a
		}
	}
	if split > timers {
		split = timers
	}
	out = append(dst[:0], idx[split:timers]...)
	out = append(out, idx[:split]...)
	return append(out, idx[timers:]...), true
}

// costsFunc returns the cost of each choice of order, which is p's
// allowed choices ok in round-robin order (rrOrder): the preemptions or
// delays that taking it adds to the run. One pass over the order, not one
// per choice: a point may have thousands of choices. The costs are
// written to dst[:len(order)] (grown if needed): a scratch slice the
// caller keeps from point to point.
type costsFunc func(dst []int, p *engine.Point, ok, order []int) []int

// zeroed returns dst resliced (or grown) to n elements, all zero.
func zeroed(dst []int, n int) []int {
	if cap(dst) < n {
		return make([]int, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

// preemptionCosts is seed-004 §2.2 (Maple's IsPreemptiveChoice): choosing
// a choice costs 1 when the goroutine that ran the previous step is still
// enabled (and not deprioritized as spinning) and the choice is not one of
// its own.
func preemptionCosts(dst []int, p *engine.Point, ok, order []int) []int {
	out := zeroed(dst, len(order))
	if p.Prev < 0 {
		return out
	}
	in := false
	for _, j := range ok {
		if j == p.Prev {
			in = true
			break
		}
	}
	if !in {
		return out
	}
	prev := p.Choices[p.Prev].G
	if yielding(prev) {
		// A Gosched gives the turn away: switching there is not a
		// preemption (CHESS), see yieldStart.
		return out
	}
	for k, j := range order {
		if c := p.Choices[j]; c.G != prev || c.Early != 0 {
			out[k] = 1
		}
	}
	return out
}

// delayCosts is seed-004 §2.3 (Maple's DbGetDelayCost): start at the
// goroutine that ran the previous step, advance for free to the first
// enabled goroutine at or after it, then count every enabled goroutine
// passed before reaching the chosen one. A timer comes after every
// goroutine (and after the timers before it in the order). Choosing the
// k-th ready case of a select costs k more delays (the deterministic
// scheduler takes the first). In round-robin order a goroutine's choices
// are contiguous, so the cost of the k-th choice of the n-th goroutine
// passed is n + k.
func delayCosts(dst []int, p *engine.Point, ok, order []int) []int {
	out := zeroed(dst, len(order))
	blocks := 0 // goroutines passed before the current one
	var cur *engine.G
	k := 0 // the choice's rank among its goroutine's
	timers := 0
	for i, j := range order {
		c := p.Choices[j]
		if isTimerChoice(c) {
			if cur != nil {
				blocks, cur = blocks+1, nil
			}
			out[i] = blocks + timers
			timers++
			continue
		}
		if c.G != cur {
			if cur != nil {
				blocks++
			}
			cur, k = c.G, 0
		}
		out[i] = blocks + k
		k++
	}
	return out
}

// delayChoices is allowedTo, rrOrderFrom (from start), delayCosts and
// a bound's filter in one: it appends to order and costs the choices of p
// an exhaustive strategy may take whose delay cost is at most budget, in
// round-robin order, with their costs, and reports whether an allowed
// choice was left out for its cost. It looks at the choices it keeps and
// at most one goroutine past them (and at spinning goroutines on the way),
// not at every choice: with a budget of b delays, only the first b+1
// goroutines in round-robin order can be taken. Delay bounding's nodes
// took O(choices) a point, and as much memory, with thousands of
// goroutines enabled (pond's tests start 10,000).
//
// p's choices are the goroutines that can run, in creation order, then
// the timer choices (engine.Point): timers, and sleepers waking. A sleeper
// that does not wake early is a goroutine in round-robin order: the
// sleepers are merged, by creation index, into the rotation of the
// goroutines, whose start a binary search finds.
func (t *spinTracker) delayChoices(order, costs []int, p *engine.Point, start, budget int) ([]int, []int, bool) {
	ch := p.Choices
	nt := len(ch) // the first timer choice
	for nt > 0 && timerPart(ch[nt-1]) {
		nt--
	}
	xs := t.sleepers[:0] // the sleepers waking on time, by creation index
	for j := nt; j < len(ch); j++ {
		if !isTimerChoice(ch[j]) {
			xs = append(xs, j)
			for a := len(xs) - 1; a > 0 && ch[xs[a]].G.Index < ch[xs[a-1]].G.Index; a-- {
				xs[a], xs[a-1] = xs[a-1], xs[a]
			}
		}
	}
	t.sleepers = xs
	ngs := len(p.Exec.Gs())
	if ngs == 0 {
		ngs = 1
	}
	dist := func(j int) int { return ((ch[j].G.Index-start)%ngs + ngs) % ngs }
	gs := sort.Search(nt, func(a int) bool { return ch[a].G.Index >= start })
	xsp := sort.Search(len(xs), func(a int) bool { return ch[xs[a]].G.Index >= start })
	o, c := order, costs
	for _, all := range [...]bool{false, true} {
		// all: no choice was allowed (every goroutine spins), so every
		// one is (allowedTo).
		o, c = order[:0], costs[:0]
		left, some := false, false
		dropped := false // a spinning goroutine was passed, not at a marked poll (drops)
		blocks := 0      // allowed goroutines passed before the current one
		var cur *engine.G
		k := 0 // the choice's rank among its goroutine's
		for gi, xi := 0, 0; gi < nt || xi < len(xs); {
			// The next goroutine choice in round-robin order: of the
			// rotations of the goroutines and of the sleepers, the one
			// nearer start.
			j := -1
			if gi < nt {
				j = (gs + gi) % nt
			}
			if xi < len(xs) {
				if x := xs[(xsp+xi)%len(xs)]; j < 0 || dist(x) < dist(j) {
					j = x
				}
			}
			if j >= nt {
				xi++
			} else {
				gi++
			}
			g := ch[j].G
			if !all && t.spinning(g) {
				dropped = dropped || !g.PollMarked()
				continue
			}
			some = true
			if g != cur {
				if cur != nil {
					blocks++
				}
				cur, k = g, 0
			}
			if blocks > budget {
				// Every choice from here on costs more.
				if dropped {
					t.drops++
				}
				return o, c, true
			}
			if cost := blocks + k; cost <= budget {
				o, c = append(o, j), append(c, cost)
			} else {
				left = true
			}
			k++
		}
		if cur != nil {
			blocks++
		}
		timers := 0
		for j := nt; j < len(ch); j++ {
			if !isTimerChoice(ch[j]) {
				continue
			}
			if g := ch[j].G; !all && g != nil && t.spinning(g) {
				dropped = dropped || !g.PollMarked()
				continue
			}
			some = true
			if cost := blocks + timers; cost <= budget {
				o, c = append(o, j), append(c, cost)
			} else {
				left = true
			}
			timers++
		}
		if some {
			if dropped {
				t.drops++
			}
			return o, c, left
		}
	}
	return o, c, false
}

// timerPart reports whether c is one of a point's timer choices, which
// come after the goroutines that can run (engine.Point): a timer firing,
// or a sleeper waking (a sleeping goroutine is a choice only through its
// timer).
func timerPart(c engine.Choice) bool {
	return c.Timer != nil || c.G == nil || c.PendingKind() == engine.OpSleep
}
