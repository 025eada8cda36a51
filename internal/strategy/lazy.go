package strategy

import (
	"fmt"
	"sort"

	"heddle.dev/internal/engine"
)

// LazyDPOR is lazy DPOR (seed-004 §5.4): a DPOR with Lazy set, which
// also reports the terminal classes it explored and its warnings.
type LazyDPOR struct{ *DPOR }

// NewLazyDPOR returns lazy DPOR (seed-004 §5.4).
func NewLazyDPOR() *LazyDPOR {
	return &LazyDPOR{&DPOR{Lazy: true, names: newUnionFind(), lazy: newLazyInfo(), PBound: -1}}
}

// ClassReporter is implemented by strategies that count the distinct
// happens-before classes of the terminal runs they explored: Classes
// returns the number of distinct terminal HBRs and of distinct terminal
// lazy HBRs (seed-004 §5: #states ≤ #lazy HBRs ≤ #HBRs ≤ #schedules).
type ClassReporter interface{ Classes() (hbr, lazy int) }

// Warner is implemented by strategies that are unsound in known ways and
// detect when that may have mattered: Warnings lists what they detected.
type Warner interface{ Warnings() []string }

// lazyInfo is what lazy DPOR keeps across runs: the terminal classes and
// the warnings of seed-004 §5.4.
type lazyInfo struct {
	hb, lazy map[uint64]bool
	warn     map[string]bool
}

func newLazyInfo() *lazyInfo {
	return &lazyInfo{hb: map[uint64]bool{}, lazy: map[uint64]bool{}, warn: map[string]bool{}}
}

// Classes implements ClassReporter.
func (d *LazyDPOR) Classes() (hbr, lazy int) { return len(d.lazy.hb), len(d.lazy.lazy) }

// Warnings implements Warner: for lazy DPOR, the runs where it detected
// a blocking operation inside a critical section (issue 1 of seed-004
// §5.4) or a possible mutex deadlock (issue 2): states may have been
// missed; fall back to optimal or source DPOR. Its third issue (a mutex
// owned by another goroutine that must release it first) is not detected.
func (d *LazyDPOR) Warnings() []string {
	var w []string
	for k := range d.lazy.warn {
		w = append(w, k)
	}
	sort.Strings(w)
	return w
}

func (l *lazyInfo) endRun(a *analysis, r *engine.Result) {
	l.hb[hash64(classKey(a.ev, a.procName, false))] = true
	l.lazy[hash64(classKey(a.ev, a.procName, true))] = true
	for _, w := range lazyWarnings(a.ev, r) {
		l.warn[w] = true
	}
}

// mutexOf returns the mutex a lock-family step acquires or releases, and
// whether it acquires; ok is false for other steps.
func mutexOf(e *event) (m uintptr, acquire, ok bool) {
	for i, k := range e.kinds {
		_ = i
		switch k {
		case engine.OpLock:
			acquire = true
		case engine.OpUnlock:
		default:
			continue
		}
		for _, a := range e.acc {
			if a.mutex {
				return a.obj, acquire, true
			}
		}
	}
	return 0, false, false
}

// heldBefore returns, for every event, the mutexes its goroutine held
// just before it. The sets are shared between events (a new one is made
// at each Lock and Unlock): they must not be modified.
func heldBefore(ev []*event) []map[uintptr]bool {
	held := map[*engine.G]map[uintptr]bool{}
	out := make([]map[uintptr]bool, len(ev))
	for i, e := range ev {
		if len(e.gs) == 0 {
			continue
		}
		g := e.gs[0]
		h := held[g]
		out[i] = h
		m, acq, ok := mutexOf(e)
		if !ok {
			continue
		}
		cp := map[uintptr]bool{}
		for n := range h {
			cp[n] = true
		}
		if acq {
			cp[m] = true
		} else {
			delete(cp, m)
		}
		held[g] = cp
	}
	return out
}

// lazyIndex is what lazy DPOR's reversals read of a run: the mutexes held
// before each event, and the Locks of each mutex by each process,
// ascending.
type lazyIndex struct {
	held []map[uintptr]bool
	acq  map[uintptr]map[int][]int32
}

func newLazyIndex(ev []*event) *lazyIndex {
	l := &lazyIndex{held: heldBefore(ev), acq: map[uintptr]map[int][]int32{}}
	for i, e := range ev {
		if m, acq, ok := mutexOf(e); ok && acq && len(e.gs) > 0 {
			by := l.acq[m]
			if by == nil {
				by = map[int][]int32{}
				l.acq[m] = by
			}
			p := e.gs[0].Index
			by[p] = append(by[p], int32(i))
		}
	}
	return l
}

// relevant reports whether a mutex held before ev[c] is locked by an
// event in (c, j) that lazy-happens-before x (seed-004's Relevant). Of the
// Locks of one process after c, the first lazy-happens-before x if any
// does.
func (l *lazyIndex) relevant(ev []*event, c, j int, x *event) bool {
	for m := range l.held[c] {
		for _, ks := range l.acq[m] {
			if pos := lastBefore(ks, c+1) + 1; pos < len(ks) && int(ks[pos]) < j && before(ev[ks[pos]], x, true) {
				return true
			}
		}
	}
	return false
}

// lazyReverse is Algorithm 6's AddBacktrack' for the lazy race between
// prefix[i] and x: the largest i' ≤ i with the same goroutine as
// prefix[i] such that the mutexes held there are disjoint from the
// mutexes locked after i' whose lock lazy-happens-before x; then an
// initial of the reversed run is added to the backtrack set of the point
// before i' (addInitial; every enabled choice if none is enabled there).
func (d *DPOR) lazyReverse(a *analysis, nodeAt map[int]*dnode, prefix []*event, i int, x *event) {
	var li *lazyIndex
	if a.idx != nil && a.idx.lazy != nil && len(prefix) <= len(a.idx.ev) && (len(prefix) == 0 || &prefix[0] == &a.idx.ev[0]) {
		li = a.idx.lazy
	} else {
		li = newLazyIndex(prefix)
	}
	// The steps of prefix[i]'s goroutines from i down (a timer firing has
	// no goroutine: it holds no mutex, and is reversed where it fired).
	var lists [][]int32
	var pos []int
	if a.idx != nil && li == a.idx.lazy {
		for _, g := range prefix[i].gs {
			l := a.idx.byProc[g.Index]
			lists = append(lists, l)
			pos = append(pos, lastBefore(l, i+1)-1) // below i
		}
	}
	ip := -1
	for c := i; c >= 0; {
		if !li.relevant(prefix, c, len(prefix), x) {
			ip = c
			break
		}
		if lists == nil {
			// Without the index: scan.
			for c--; c >= 0 && !shareG(prefix[c], prefix[i]); c-- {
			}
			continue
		}
		next := -1
		for k, l := range lists {
			if pos[k] >= 0 && int(l[pos[k]]) > next {
				next = int(l[pos[k]])
			}
		}
		for k, l := range lists {
			if pos[k] >= 0 && int(l[pos[k]]) == next {
				pos[k]--
			}
		}
		c = next
	}
	if checkRaceIndex && lists != nil {
		if want := lazyReversalScan(prefix, i, x); want != ip {
			panic(fmt.Sprintf("lazy reversal point: index %d, scan %d", ip, want))
		}
	}
	if ip < 0 {
		return
	}
	nd := nodeAt[ip]
	if nd == nil {
		return // one choice only there
	}
	if d.addInitial(nd, prefix, ip, x) {
		return
	}
	// No initial of the reversed run is a choice there: every choice.
	for _, k := range nd.keys {
		nd.bt = appendNew(nd.bt, k)
	}
}

// lazyReversalScan is the reversal point of lazyReverse by a scan of the
// prefix (quadratic), for checkRaceIndex.
func lazyReversalScan(prefix []*event, i int, x *event) int {
	held := heldBefore(prefix)
	for c := i; c >= 0; c-- {
		if c < i && !shareG(prefix[c], prefix[i]) {
			continue
		}
		relevant := false
		for k := c + 1; k < len(prefix) && !relevant; k++ {
			m, acq, ok := mutexOf(prefix[k])
			if ok && acq && held[c][m] && before(prefix[k], x, true) {
				relevant = true
			}
		}
		if !relevant {
			return c
		}
	}
	return -1
}

// addInitial is source DPOR's backtrack rule (seed-002 Algorithm 1) for
// the reversal of a race between prefix[i] and x at nd, the point before
// prefix[i]: the reversed run is prefix[:i].v, v = notdep(prefix[i]).x,
// and one of the initials of v (its steps that depend on no earlier step
// of v) must be explored at nd. Nothing is added if one is in the
// backtrack set already, or asleep there (it was explored at an earlier
// point, and the runs from nd that start with it are equivalent to runs
// explored there); otherwise the first. It reports false if no initial of
// v is a choice at nd.
//
// Lazy DPOR used Flanagan–Godefroid's rule (seed-004 Algorithm 6): x's
// goroutine if enabled at nd, else every choice. With sleep sets it
// misses classes when x's goroutine is asleep at nd and x is not an
// initial of v: the runs from nd that start with x's goroutine, which
// would reveal the initial the reversal needs, are not run again
// (generated seed 571: a select's default that x's step disables must
// run first; TestLazyDPORSleepingRacer). Adding every choice then
// recovered the class, but made lazy DPOR explore 1,597 runs for the 256
// classes of readers-8; with this rule it explores 256.
func (d *DPOR) addInitial(nd *dnode, prefix []*event, i int, x *event) bool {
	e := prefix[i]
	var v []*event
	for k := i + 1; k < len(prefix); k++ {
		if !before(e, prefix[k], false) {
			v = append(v, prefix[k])
		}
	}
	v = append(v, x)
	cands := nd.initialKeys(v, x)
	for _, c := range cands {
		if contains(nd.bt, c) || d.asleepIn(nd.sleep, nd.pend[c]) {
			return true
		}
	}
	if len(cands) == 0 {
		return false
	}
	nd.bt = append(nd.bt, cands[0])
	return true
}

// lazyWarnings detects, in one run, seed-004 §5.4's issues 1 and 2: a
// goroutine performing a blocking operation while it holds a mutex, and a
// cycle in the lock-order graph with distinct goroutines on its edges (or
// a run that ended with a goroutine blocked on a Lock).
func lazyWarnings(ev []*event, r *engine.Result) []string {
	var w []string
	held := heldBefore(ev)
	type edge struct {
		from, to uintptr
		g        string
	}
	var edges []edge
	for i, e := range ev {
		if len(e.gs) == 0 || len(held[i]) == 0 {
			continue
		}
		for j, k := range e.kinds {
			switch k {
			case engine.OpSend, engine.OpRecv, engine.OpArrive, engine.OpWGWait, engine.OpCondBlocked, engine.OpSleep:
				w = append(w, fmt.Sprintf("blocking operation inside a critical section (%s: %s)", e.gs[j].ID, k))
			case engine.OpSelect:
				if e.cases[j] >= 0 {
					w = append(w, fmt.Sprintf("blocking operation inside a critical section (%s: %s)", e.gs[j].ID, k))
				}
			}
		}
		if m, acq, ok := mutexOf(e); ok && acq {
			for n := range held[i] {
				if n != m {
					edges = append(edges, edge{n, m, e.gs[0].ID})
				}
			}
		}
	}
	// Cycles of length 2 and 3 with distinct goroutines.
	for _, a := range edges {
		for _, b := range edges {
			if a.to == b.from && a.g != b.g {
				if b.to == a.from {
					w = append(w, "possible mutex deadlock (lock-order cycle of "+a.g+" and "+b.g+")")
				}
				for _, c := range edges {
					if b.to == c.from && c.to == a.from && c.g != a.g && c.g != b.g {
						w = append(w, "possible mutex deadlock (lock-order cycle of "+a.g+", "+b.g+" and "+c.g+")")
					}
				}
			}
		}
	}
	if r.Bug != nil && (r.Bug.Kind == engine.KindDeadlock || r.Bug.Kind == engine.KindLeak) {
		for _, g := range r.Bug.Blocked {
			switch g.PendingKind() {
			case engine.OpLock, engine.OpWLock, engine.OpWLockWait, engine.OpRLock:
				w = append(w, "mutex deadlock state reached ("+g.ID+" blocked on "+g.PendingKind().String()+")")
			}
		}
	}
	return w
}
