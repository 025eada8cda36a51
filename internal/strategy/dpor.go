package strategy

import (
	"fmt"
	"strconv"

	"heddle.dev/internal/engine"
)

// DPOR is source-DPOR with sleep sets (seed-002 §2.2, Algorithm 1) or,
// with Optimal, optimal DPOR with wakeup trees (§2.4, Algorithm 2), in
// Concuerror's structure: each run replays a prefix, continues with a
// default choice, and at its end the races of the whole trace are
// analysed and backtrack points (wakeup sequences) inserted; the next run
// branches at the deepest point with work left.
//
// Events and dependence are those of heddle.md §4 (see events.go): an
// unbuffered rendezvous is one joint step; a select's ready cases are
// distinct choices, and the other ready cases of the select taken are
// always explored; a select conflicts with the operations on its
// channels and with the arrival of partners on them; the arrival of a
// blocking operation joins the FIFO queues that decide partners; timer
// firings and sleeps conflict with everything (virtual time is read by
// any step). Races are reversible only if the later goroutine was enabled
// where the earlier step ran: a Lock after another goroutine's Unlock is
// not reversible, and is reversed at that goroutine's Lock instead
// (seed-004 §2.8's mutex rule). Steps that did not happen race too: the
// other cases of a select and the sides of a rendezvous on their own
// (racesOfAlone), and the operations still blocked at the end of a run.
//
// Spinning goroutines are deprioritized as in DFS (their other choices
// are not enabled), so DPOR terminates on fairly terminating spin loops.
type DPOR struct {
	Optimal bool
	// Lazy makes it lazy DPOR (seed-004 §5.4, Algorithm 6): races under
	// the lazy happens-before relation, in which the mutex transitions of
	// different goroutines are independent, reversed at the latest earlier
	// step of the same goroutine where no relevant mutex is held, with
	// source-DPOR backtrack sets (an initial of the reversed run, not
	// seed-004's Flanagan–Godefroid sets: see addInitial) and sleep sets
	// (the valid dependence). It is unsound in the ways seed-004 lists;
	// see Warnings.
	Lazy bool
	lazy *lazyInfo
	// guide, if set, prunes the reversals whose statement pair HaPSet
	// already covered (seed-001 Algorithm 4); see NewHaPSet.
	guide *hapGuide
	// PBound, if non-negative, keeps only backtrack choices whose run
	// has at most PBound preemptions (preemptive context bounding,
	// seed-001 §3.2), for source and lazy DPOR.
	PBound       int
	curPC        int
	boundSkipped bool

	stack []*dnode
	spin  spinTracker
	// per run
	depth     int
	re        *runEvents
	done      int // events processed for sleep propagation
	sleep     []*event
	blockedAt int
	follow    *wnode
	diverged  bool

	names   *unionFind
	created map[*engine.G]int // the analyzed run's creation edges (races)
	later   []laterInsert     // wakeup insertions waiting for the run's object names
	deps    []int             // racesOfAlone's buffer
	free    []*event          // source DPOR: pending events of popped nodes (pendingAt)
	noReuse bool              // tests: pendingAt builds every event anew
	// evBuilt and evReused count the pending events pendingAt built anew
	// and rebuilt in place.
	evBuilt, evReused int

	over bool
	// Counters.
	Runs, Complete, Blocked, WakeupMisses int
	// classes are the hashes of the classes of the complete runs of a
	// unit of a split (ExploredClasses).
	classes     []uint64
	blockedSeen int // Blocked at the last ExploredClasses
	// TakenMisses counts the units of a split optimal DPOR whose step
	// stood for a choice taken at their node before (odTakenBefore):
	// each made one run, cut at its node, instead of exploring that
	// choice again.
	TakenMisses int
	// MaxSteps bounds the steps of a run whose races are analyzed
	// (default MaxAnalyzedSteps): the analysis takes time and memory
	// about linear in a run's length, and in its number of goroutines
	// for each step. Longer runs are analyzed up to it, and the
	// exploration is then no proof (see Incomplete).
	MaxSteps int
	// CutRuns counts the runs longer than MaxSteps.
	CutRuns int
	cut     bool // the current run is longer than MaxSteps

	unit *unitInfo // the subtree explored, when restricted to one (split.go)
	od   *odInfo   // optimal DPOR: the unit explored (odsplit.go)

	// plan is the last run's record of goroutines detached in code
	// heddle does not control, which the next run follows in the prefix
	// it replays, its first planPoints points (DetachPrefix).
	plan       []engine.Detached
	planPoints int
}

type dnode struct {
	pos      int
	keys     []string
	idx      []int // choice index of each key
	pend     map[string]*event
	taken    string
	done     []string // explored keys (slept after exploration)
	bt       []string // source-DPOR backtrack set
	wut      *wnode   // optimal DPOR: wakeup tree; children[0] is being explored
	sleep    []*event // inherited sleep set in the current run
	nChoic   int
	pcBefore int      // preemptions before this point
	prevG    string   // the goroutine that ran the previous step, if it can continue
	given    []string // split off to other units (split.go): asleep after taken
}

// doneStep reports whether the step e was explored at nd.
func (nd *dnode) doneStep(e *event) bool {
	for _, k := range nd.done {
		if nd.pend[k].matchesEvent(e) {
			return true
		}
	}
	return false
}

// cost is the preemption cost of taking key k at nd.
func (nd *dnode) cost(k string) int {
	e := nd.pend[k]
	if nd.prevG == "" || e == nil {
		return 0
	}
	if e.timer == "" && e.gs[0].ID == nd.prevG {
		return 0
	}
	return 1
}

// NewSourceDPOR returns source-DPOR with sleep sets.
func NewSourceDPOR() *DPOR { return &DPOR{names: newUnionFind(), PBound: -1} }

// NewOptimalDPOR returns optimal DPOR with wakeup trees.
func NewOptimalDPOR() *DPOR { return &DPOR{Optimal: true, names: newUnionFind(), PBound: -1} }

// NeedsTrace implements TraceNeeder.
func (d *DPOR) NeedsTrace() bool { return true }

// Begin implements engine.Strategy.
func (d *DPOR) Begin(run int) bool {
	if d.over || d.diverged {
		return false
	}
	d.depth = 0
	d.curPC = 0
	d.re = newRunEvents()
	d.done = 0
	d.sleep = nil
	d.blockedAt = -1
	d.follow = nil
	d.later = d.later[:0]
	return true
}

// propagate processes the events executed since the last call: a step of
// a sleeping choice means the run is sleep-set blocked (redundant);
// otherwise the sleeping choices it conflicts with wake up. It also
// advances along the wakeup sequence being followed.
func (d *DPOR) propagate() {
	for ; d.done < len(d.re.ev); d.done++ {
		e := d.re.ev[d.done]
		var next *wnode
		if d.follow != nil {
			for _, c := range d.follow.children {
				if c.matches(e) {
					next = c
					break
				}
			}
			if next == nil {
				for _, c := range d.follow.children {
					if c.matchesSelect(e) {
						next = c
						break
					}
				}
			}
			if next == nil && len(d.follow.children) > 0 {
				d.WakeupMisses++
			}
		}
		if d.blockedAt < 0 {
			kept := d.sleep[:0]
			for _, s := range d.sleep {
				if next != nil && wakes(next.wake, s) {
					continue
				}
				if sameStep(s, e) {
					d.blockedAt = d.done
				}
				if !dependent(s, e, false) {
					kept = append(kept, s)
				}
			}
			d.sleep = kept
		}
		if d.follow != nil {
			d.follow = next
		}
	}
}

// Choose implements engine.Strategy.
func (d *DPOR) Choose(p *engine.Point) int {
	d.re.observe(p.Exec)
	d.propagate()
	ok := d.spin.allowed(p)
	order := rrOrderFrom(nil, p, ok, yieldStart(p))
	if d.blockedAt >= 0 {
		return order[0]
	}
	i := d.depth
	d.depth++
	if i < len(d.stack) {
		nd := d.stack[i]
		if nd.pos != len(d.re.ev) || nd.nChoic != len(p.Choices) {
			d.diverged = true
			return engine.Diverged
		}
		nd.sleep = append([]*event(nil), d.sleep...)
		old := nd.pend
		if d.Optimal || old == nil {
			nd.pend = map[string]*event{}
		} // else the same keys again: their entries are overwritten
		if d.unit != nil && !d.remap(nd, p) {
			d.diverged = true
			return engine.Diverged
		}
		for k, j := range nd.idx {
			nd.pend[nd.keys[k]] = d.pendingAt(p, p.Choices[j], old[nd.keys[k]])
		}
		for _, k := range nd.done {
			if k != nd.taken && nd.pend[k] != nil {
				d.sleep = append(d.sleep, nd.pend[k])
			}
		}
		d.freshCases(i, nd)
		d.follow = nd.wut
		d.curPC = nd.pcBefore + nd.cost(nd.taken)
		for k, key := range nd.keys {
			if key == nd.taken {
				return nd.idx[k]
			}
		}
		d.diverged = true
		return engine.Diverged
	}
	nd := &dnode{pos: len(d.re.ev), pend: map[string]*event{}, nChoic: len(p.Choices), pcBefore: d.curPC}
	if p.Prev >= 0 && p.Choices[p.Prev].G != nil {
		nd.prevG = p.Choices[p.Prev].G.ID
	}
	for _, j := range order {
		k := p.Choices[j].Key()
		nd.keys = append(nd.keys, k)
		nd.idx = append(nd.idx, j)
		nd.pend[k] = d.pendingAt(p, p.Choices[j], nil)
	}
	nd.sleep = append([]*event(nil), d.sleep...)
	if d.Optimal {
		if d.od != nil && i <= len(d.od.levels) {
			d.follow = d.od.wn[i] // the unit's path (odsplit.go)
		}
		if d.follow == nil {
			d.follow = &wnode{}
		}
		nd.wut = d.follow
	} // source DPOR keeps no wakeup tree: nd.wut stays nil, d.follow nil
	take := ""
	if d.od != nil && i < len(d.od.levels) {
		if take = nd.keyOf(nd.wut.children[0]); take != "" && i == len(d.od.levels)-1 && d.odTakenBefore(i, nd, take) {
			// The unit's step stands here for a choice another unit
			// took at its node (a select case not ready here for the
			// ready case of the same select, an arrival for its
			// rendezvous): the sequential exploration skips such a
			// wakeup child, leaf or not (backtrack), and the unit
			// would explore that choice's classes again.
			d.TakenMisses++
			take = ""
		}
		if take == "" {
			// The unit's path step is not enabled here: as the
			// sequential exploration drops such a wakeup sequence, the
			// unit has nothing to explore (odsplit.go).
			d.WakeupMisses++
			nd.wut.children = nil
			d.blockedAt = len(d.re.ev)
			d.depth--
			return order[0]
		}
	}
	for d.Optimal && take == "" && len(nd.wut.children) > 0 {
		take = nd.keyOf(nd.wut.children[0])
		if take != "" && d.runsAsleep(d.sleep, nd.wut.children[0], nd.pend[take]) {
			take = ""
		}
		if take == "" {
			// A wakeup sequence whose next step is not enabled here (a
			// receive placed before the send it waited for): drop it,
			// not its siblings.
			d.WakeupMisses++
			nd.wut.children = nd.wut.children[1:]
		}
	}
	if take == "" {
		for _, k := range nd.keys {
			if !d.asleep(nd.pend[k]) {
				take = k
				break
			}
		}
		if take == "" {
			// Every enabled choice is asleep: this run is redundant.
			d.blockedAt = len(d.re.ev)
			d.depth--
			return order[0]
		}
		if d.Optimal {
			nd.wut.children = append(nd.wut.children, &wnode{raw: nd.pend[take]})
		}
	}
	nd.taken = take
	nd.done = []string{take}
	nd.bt = []string{take}
	ctxRan := d.od != nil && d.odContext(i, nd)
	d.curPC = nd.pcBefore + nd.cost(take)
	d.stack = append(d.stack, nd)
	// The other ready cases of the select taken: local nondeterminism.
	te := nd.pend[take]
	for _, k := range nd.keys {
		e := nd.pend[k]
		if k == take || !otherCase(te, e) {
			continue
		}
		if d.Optimal {
			if !ctxRan && !d.asleepIn(nd.sleep, e) {
				d.later = append(d.later, laterInsert{nd, e})
			}
		} else {
			nd.bt = appendNew(nd.bt, k)
		}
	}
	for k, key := range nd.keys {
		if key == take {
			return nd.idx[k]
		}
	}
	return order[0]
}

// pendingAt is pendingEvent for choice c at p, built for source DPOR in
// old (the event of the same choice at the same node in the run before,
// which a replayed node rebuilds) or in an event of a node popped since
// (release), not in a new one: a run of source DPOR builds one event per
// enabled choice at every point, replayed or new, about half of what it
// allocated (lastzero-11: 12 goroutines, 60,000 runs).
//
// Reuse is sound because nothing holds a node's pending events past the
// run that built them but the node itself: the sleep sets (the run's,
// and each node's copy, rebuilt when the node is replayed) hold events
// of the nodes above, which are rebuilt first; source DPOR keeps no
// wakeup tree (only optimal DPOR's holds steps past a run). Optimal DPOR keeps building new
// events (its later insertions and split hold them: odsplit.go).
func (d *DPOR) pendingAt(p *engine.Point, c engine.Choice, old *event) *event {
	if d.Optimal || d.noReuse || c.G == nil {
		d.evBuilt++
		return pendingEvent(p, c)
	}
	e := old
	if e == nil || e.timer != "" {
		if n := len(d.free); n > 0 {
			e, d.free = d.free[n-1], d.free[:n-1]
		} else {
			d.evBuilt++
			return pendingEvent(p, c)
		}
	}
	d.evReused++
	e.reset()
	return pendingEventInto(e, p, c)
}

// release keeps the pending events of the nodes popped from the stack for
// pendingAt (source DPOR).
func (d *DPOR) release(nds []*dnode) {
	if d.Optimal {
		return
	}
	for _, nd := range nds {
		for _, e := range nd.pend {
			if e != nil && e.timer == "" && len(d.free) < maxFreeEvents {
				d.free = append(d.free, e)
			}
		}
		nd.pend = nil
	}
}

// maxFreeEvents bounds the events release keeps.
const maxFreeEvents = 4096

// otherCase reports whether e is another case of a select that te
// performs (te may be a rendezvous whose partner is the select): the
// choice between them is local nondeterminism, not a race.
func otherCase(te, e *event) bool {
	if te.timer != "" || e.timer != "" || te.matchesEvent(e) {
		return false
	}
	for i, g := range te.gs {
		for j, h := range e.gs {
			if g != h {
				continue
			}
			if te.cases[i] != e.cases[j] && (te.kinds[i] == engine.OpSelect || e.kinds[j] == engine.OpSelect) {
				return true
			}
			if te.cases[i] == e.cases[j] && len(te.gs) == 2 && len(e.gs) == 2 {
				// Two partners compete for g's unbuffered operation.
				return true
			}
		}
	}
	return false
}

func (d *DPOR) asleep(e *event) bool { return d.asleepIn(d.sleep, e) }

func (d *DPOR) asleepIn(sl []*event, e *event) bool {
	for _, s := range sl {
		if sameStep(s, e) {
			return true
		}
	}
	return false
}

func appendNew(s []string, k string) []string {
	for _, x := range s {
		if x == k {
			return s
		}
	}
	return append(s, k)
}

// End implements engine.Strategy.
func (d *DPOR) End(r *engine.Result) {
	if d.diverged {
		return
	}
	d.re.finish(r)
	d.propagate()
	d.Runs++
	if d.blockedAt >= 0 {
		d.Blocked++
	} else {
		d.Complete++
	}
	a := analyze(d.re, r, d.Lazy)
	if d.guide != nil {
		d.guide.learn(a.ev)
	}
	if d.Lazy {
		d.lazy.endRun(a, r)
	}
	if (d.od != nil || d.unit != nil) && d.blockedAt < 0 && len(a.ev) <= classKeyMax {
		// A unit of a split: its runs' classes, so that the merged
		// exploration counts the classes explored twice.
		d.classes = append(d.classes, hash64(classKey(a.ev, a.procName, d.Lazy)))
	}
	if d.Optimal {
		// Object names serve the portable steps of the wakeup trees
		// (and a split's units): source DPOR keeps none.
		d.nameObjects(a)
	}
	for i, nd := range d.stack {
		if nd.wut == nil {
			continue // source DPOR
		}
		for _, c := range nd.wut.children {
			if c.raw != nil {
				c.ev, c.raw = d.portable(c.raw), nil
			}
		}
		if i >= d.depth || nd.pos >= len(a.ev) {
			continue
		}
		// The step taken here ran: the wakeup tree keeps it as it ran.
		ran := a.ev[nd.pos]
		if len(nd.wut.children) > 0 && nd.keyOf(nd.wut.children[0]) == nd.taken {
			nd.wut.children[0].ev = d.portable(ran)
		}
	}
	for _, l := range d.later {
		if !d.sleepCovers(l.nd, []*event{l.e}) {
			d.insert(l.nd, []*pevent{d.portable(l.e)})
		}
	}
	d.later = d.later[:0]
	if d.depth < len(d.stack) {
		d.release(d.stack[d.depth:])
		d.stack = d.stack[:d.depth]
	}
	limit := d.MaxSteps
	if limit <= 0 {
		limit = MaxAnalyzedSteps
	}
	d.cut = len(a.ev) > limit
	if d.cut {
		// The race analysis of a run of millions of steps would take
		// minutes (and its memory). Its first steps are analyzed; the
		// races of the rest are not, so nothing is proved.
		d.CutRuns++
		a.ev = a.ev[:limit]
	}
	if d.od != nil && d.blockedAt < 0 && !d.cut {
		d.odExplored(a) // a run explored: its races are all analyzed
	}
	lens := d.btLens()
	d.races(a, r)
	if lens != nil {
		d.spawn(lens)
	}
	d.backtrack()
	if d.od != nil {
		d.odSnapshot()
	}
	d.plan, d.planPoints = d.plan[:0], 0
	if len(r.Detached) > 0 && len(d.stack) > 0 {
		// The next run replays the first len(d.stack) points of this
		// one: where its goroutines waited outside heddle's control
		// and came back is this run's (DetachPrefix).
		d.plan, d.planPoints = append(d.plan, r.Detached...), len(d.stack)
	}
}

// DetachPrefix returns the record of the goroutines the last run detached
// in code heddle does not control (engine.Result.Detached) and the number
// of points of that run the next one replays, for engine.Config.Detached
// and FollowPoints; nil if the last run detached none.
//
// When a goroutine waiting in real I/O comes back is up to the operating
// system: a pipe's reader whose writer has written comes back when Go's
// scheduler polls the network, once no goroutine can run, or at any step
// when its system monitor polls (every 10 ms of real time), which a
// loaded machine reaches in the middle of a run. A prefix replayed
// without the record saw the reader back at another point than the run
// it replays and left it: cmd/heddle's parallel_noclaim script, at load
// 25, found its TestIO "nondeterministic by itself" in most explorations
// and explored it no further. Following the record, the replay holds a
// goroutine that came back sooner until its step, and waits for one that
// is still away there.
func (d *DPOR) DetachPrefix() ([]engine.Detached, int) {
	if d.planPoints == 0 {
		return nil, 0
	}
	return d.plan, d.planPoints
}

// MaxAnalyzedSteps is the default of DPOR.MaxSteps: analyzing the races of
// a run this long takes about 1 s with 4 goroutines, 4 s with 16
// (BenchmarkDPORLongRunSteps; it was 20,000 steps, about 3 s, when the
// analysis was quadratic).
const MaxAnalyzedSteps = 100000

// Incomplete implements Incompleter: it says why an exploration that ended
// did not cover the whole space, or "" if it did.
func (d *DPOR) Incomplete() string {
	if d.CutRuns == 0 {
		return ""
	}
	limit := d.MaxSteps
	if limit <= 0 {
		limit = MaxAnalyzedSteps
	}
	return fmt.Sprintf("%d runs were longer than %d steps, and DPOR analyzed only their first %d steps", d.CutRuns, limit, limit)
}

// backtrack pops the explored branches and picks the next one.
func (d *DPOR) backtrack() {
	for len(d.stack) > 0 {
		nd := d.stack[len(d.stack)-1]
		if d.Optimal {
			if len(nd.wut.children) > 0 {
				nd.wut.children = nd.wut.children[1:]
			}
			nd.done = appendNew(nd.done, nd.taken)
			for len(nd.wut.children) > 0 {
				k := nd.keyOf(nd.wut.children[0])
				if k == "" {
					d.WakeupMisses++
					nd.wut.children = nd.wut.children[1:]
					continue
				}
				if contains(nd.done, k) {
					// A sequence whose first step is a choice explored
					// here already: a select case that is not ready here
					// stands for a ready case of the same select, a step
					// inserted without its partner takes the partner it
					// has here, a goroutine's arrival inserted where it
					// meets a parked select runs as the rendezvous.
					// Running it again would repeat that exploration,
					// leaf or not: every class that starts with the
					// choice was explored below it (Algorithm 2, lines
					// 20-21: remove all sequences p.w from wut(E)).
					// Before, a non-leaf was explored again
					// (TestOptimalDPOROneRunPerClass).
					nd.wut.children = nd.wut.children[1:]
					continue
				}
				if d.runsAsleep(nd.sleep, nd.wut.children[0], nd.pend[k]) {
					nd.wut.children = nd.wut.children[1:]
					continue
				}
				nd.taken = k
				for _, k2 := range nd.keys {
					e2 := nd.pend[k2]
					if otherCase(nd.pend[k], e2) && !d.asleepIn(nd.sleep, e2) && !nd.wut.hasChild(e2) && !nd.doneStep(e2) && !d.sleepCovers(nd, []*event{e2}) {
						d.insert(nd, []*pevent{d.portable(e2)})
					}
				}
				return
			}
		} else {
			for _, k := range nd.given {
				nd.done = appendNew(nd.done, k)
			}
			nd.given = nil
			for _, k := range nd.bt {
				if contains(nd.done, k) || d.asleepIn(nd.sleep, nd.pend[k]) || !d.owns(len(d.stack)-1, k) {
					continue
				}
				if d.PBound >= 0 && nd.pcBefore+nd.cost(k) > d.PBound {
					d.boundSkipped = true
					nd.done = append(nd.done, k)
					continue
				}
				nd.taken = k
				nd.done = append(nd.done, k)
				// The other cases of a select taken here, and the other
				// partners of a rendezvous, are alternatives too.
				for _, k2 := range nd.keys {
					if otherCase(nd.pend[k], nd.pend[k2]) {
						nd.bt = appendNew(nd.bt, k2)
						if d.unit != nil && len(d.stack)-1 == d.unit.floor && d.unit.own != nil {
							d.unit.own = appendNew(d.unit.own, k2)
						}
					}
				}
				return
			}
		}
		if d.unit != nil && len(d.stack)-1 <= d.unit.floor {
			break // the unit's node is done: the nodes above are not its
		}
		d.release(d.stack[len(d.stack)-1:])
		d.stack = d.stack[:len(d.stack)-1]
	}
	d.over = true
}

// runsAsleep reports whether the step e that the wakeup child w runs as at
// a node (keyOf) is asleep there (in sl) and w does not wake it.
func (d *DPOR) runsAsleep(sl []*event, w *wnode, e *event) bool {
	return d.asleepIn(sl, e) && !wakes(w.wake, e)
}

func contains(s []string, k string) bool {
	for _, x := range s {
		if x == k {
			return true
		}
	}
	return false
}

// races finds the reversible races of the run (up to where it was
// sleep-blocked) and plans their reversal.
func (d *DPOR) races(a *analysis, r *engine.Result) {
	ev := a.ev
	L := len(ev)
	if d.blockedAt >= 0 && d.blockedAt < L {
		L = d.blockedAt
	}
	nodeAt := map[int]*dnode{}
	for _, nd := range d.stack {
		nodeAt[nd.pos] = nd
	}
	a.idx = newDepIndex(ev, len(r.Gs))
	d.created = a.created
	if d.Lazy {
		a.idx.lazy = newLazyIndex(ev)
	}
	defer func() { a.idx = nil }()
	prevOf := map[*engine.G]int{}
	var sb storeIssues
	for j := 0; j < L; j++ {
		d.racesOf(a, nodeAt, ev[:j], ev[j])
		// The step was pending from the point its goroutines announced
		// it: if it waited (blocked, or not chosen), it also races with
		// the steps it could have preceded then, before later steps made
		// those races indirect (a receive that competes with another for
		// an item, then waits for the next item).
		q := 0
		for _, g := range ev[j].gs {
			at, ok := prevOf[g]
			if ok {
				at++
			} else if c, ok := a.created[g]; ok {
				at = c + 1
			}
			if at > q {
				q = at
			}
			prevOf[g] = j
		}
		if s := sb.note(ev[j], j); s >= 0 && s+1 > q {
			// A commit of a store buffer was pending only from the store
			// it commits on (engine/storebuf.go).
			q = s + 1
		}
		if ev[j].timer != "" {
			// A timer could fire from when it was made, while it was the
			// earliest: steps that made an earlier timer (a sleep) hid it
			// and are not direct races at its firing. Try the firing
			// after each earlier prefix.
			lo := j - 64
			if lo < 1 {
				lo = 1
			}
			for q := lo; q < j; q++ {
				x := cloneEvent(ev[j])
				d.extendHB(a, ev[:q], x)
				d.racesOf(a, nodeAt, ev[:q], x)
			}
		} else if q < j {
			x := cloneEvent(ev[j])
			d.extendHB(a, ev[:q], x)
			d.racesOf(a, nodeAt, ev[:q], x)
			if mayWait(ev[j]) {
				// A blocking operation may have become enabled anywhere
				// after its announcement: try it right after each
				// dependent step it waited past.
				for _, p := range a.idx.depsIn(q, j-1, ev[j], d.Lazy) {
					x := cloneEvent(ev[j])
					d.extendHB(a, ev[:p+1], x)
					d.racesOf(a, nodeAt, ev[:p+1], x)
				}
			}
		}
		// Each side of a rendezvous could have run before its partner's
		// earlier steps: with another partner (one that competes for
		// it, perhaps one whose announcement could have come earlier),
		// or for a select, with another case or its default. Each side
		// races with them on its own.
		if len(ev[j].gs) == 2 {
			for k := range ev[j].gs {
				side := sideEvent(ev[j], k)
				d.extendHB(a, ev[:j], side)
				d.racesOfAlone(a, nodeAt, ev[:j], side, true)
			}
		}
		d.alternatives(a, nodeAt, ev[:L], j, len(r.Gs))
	}
	if L < len(ev) {
		// The step that ran into the sleep set was explored before; the
		// other cases of its select were not.
		d.alternatives(a, nodeAt, ev[:L+1], L, len(r.Gs))
	}
	d.unfiredTimers(a, nodeAt, ev[:L], r.Trace)
	if d.cut {
		// The run goes on past the analyzed steps: the goroutines'
		// operations pending at its end are not those of the last
		// analyzed step.
		return
	}
	// The next steps of every goroutine at the end: blocked operations
	// (and, if the run ended early, pending ones) race too.
	for _, g := range r.Gs {
		var xs []*event
		if g.Flusher() && !sb.pending(g) {
			// A store buffer empty at L: its next commit, if any, is of
			// a store after L (engine/storebuf.go).
			continue
		}
		if l := a.idx.byProc[g.Index]; len(l) > 0 {
			// g's first step from L on.
			if pos := lastBefore(l, L) + 1; pos < len(l) {
				xs = append(xs, cloneEvent(ev[l[pos]]))
			}
		}
		if xs == nil {
			op := g.Pending()
			if op.Kind == engine.OpNone || op.Kind == engine.OpExit || op.Kind == engine.OpSleep || exited(r, g) || g.Flusher() && op.Obj == nil {
				continue // a sleeper waits for its timer, which races on its own
			}
			xs = blockedEvents(g, op)
		}
		for _, x := range xs {
			d.extendHB(a, ev[:L], x)
			d.racesOfAlone(a, nodeAt, ev[:L], x, len(x.gs) == 1)
		}
	}
}

// soloEvent is a step of g alone: its operation of kind k on obj, with
// select case cs, channel cases and default, as a goroutine that has not
// arrived takes it (with a partner that waits, for an unbuffered case).
func soloEvent(g *engine.G, k engine.OpKind, obj, group uintptr, cs int, cases []engine.ChanCase, dflt bool) *event {
	e := &event{key: choiceKey(g, k, cs)}
	e.addSide(g, k, obj, group, cs, cases, dflt, false)
	if k != engine.OpArrive {
		e.readsClock(0) // a step that did not run may read the clock
	}
	return e
}

// alternatives handles the other choices of the selects of ev[j]: a
// select could have taken another case, had it run before the step that
// made the case not ready (or after one that made it ready), or its
// default, before the step that made a case ready. Each races on its
// own.
func (d *DPOR) alternatives(a *analysis, nodeAt map[int]*dnode, ev []*event, j, nprocs int) {
	for k, g := range ev[j].gs {
		if ev[j].kinds[k] != engine.OpSelect {
			continue
		}
		cases := ev[j].chans[k]
		for m := -1; m < len(cases); m++ {
			if m == ev[j].cases[k] || m < 0 && !ev[j].dflt[k] || m >= 0 && uintptr(cases[m].Chan()) == 0 {
				continue
			}
			x := soloEvent(g, engine.OpSelect, 0, 0, m, cases, ev[j].dflt[k])
			if m >= 0 {
				x.readPartners(cases, m)
			}
			d.extendHB(a, ev[:j], x)
			d.racesOfAlone(a, nodeAt, ev[:j], x, m >= 0)
		}
	}
}

// sideEvent is side k of the rendezvous e as a step of its goroutine
// alone, whose partner is not known: it reads the queue of its partners.
func sideEvent(e *event, k int) *event {
	cases := e.chans[k]
	cs := e.cases[k]
	var obj uintptr
	j := 0
	if cs >= 0 {
		j = cs
	} else if len(cases) > 0 {
		obj = uintptr(cases[0].Chan())
	}
	x := soloEvent(e.gs[k], e.kinds[k], obj, 0, cs, cases, e.dflt[k])
	if j < len(cases) {
		x.readPartners(cases, j)
	}
	return x
}

// ownConflict reports whether e conflicts with the one-goroutine step x
// on x's own channel or the queue of its partners.
func ownConflict(e, x *event) bool {
	if x.timer != "" || len(x.gs) != 1 {
		return false
	}
	k := x.cases[0]
	if k < 0 {
		k = 0
	}
	if k < len(x.chans[0]) && x.chans[0][k].Cap() != 0 {
		// A buffered case is ready without the partner (a value or a
		// slot): run before e, x completes alone.
		return false
	}
	for _, ax := range x.acc {
		if ax.tag != tagOp && ax.tag != tagCase+k && ax.tag != tagPartner+k || pseudo(ax.obj) {
			continue
		}
		for _, ay := range e.acc {
			if ay.obj == ax.obj && (ax.write || ay.write) {
				return true
			}
		}
	}
	return false
}

// blockedEvents are the steps g's operation op, still blocked at the end
// of a run, could take: one per case of a select. An unbuffered case
// needs a partner, which any step that left its queue could have been:
// it reads the queue.
func blockedEvents(g *engine.G, op engine.Op) []*event {
	if op.Kind != engine.OpSelect {
		x := soloEvent(g, op.Kind, opObj(op), opGroup(op), -1, op.Cases, op.Dflt)
		for j := range op.Cases {
			x.readPartners(op.Cases, j)
		}
		return []*event{x}
	}
	var xs []*event
	for j, cc := range op.Cases {
		if uintptr(cc.Chan()) == 0 {
			continue
		}
		x := soloEvent(g, op.Kind, opObj(op), opGroup(op), j, op.Cases, op.Dflt)
		x.readPartners(op.Cases, j)
		xs = append(xs, x)
	}
	return xs
}

// readPartners adds to x a read of the queue of the partners of case j,
// if it is unbuffered.
func (x *event) readPartners(cases []engine.ChanCase, j int) {
	if c := uintptr(cases[j].Chan()); c != 0 && cases[j].Cap() == 0 {
		x.acc = queueAccess(x.acc, c, !cases[j].IsSend(), false, 0, tagPartner+j)
	}
}

func exited(r *engine.Result, g *engine.G) bool {
	for i := len(r.Trace) - 1; i >= 0; i-- {
		if r.Trace[i].G == g && r.Trace[i].Kind == engine.OpExit {
			return true
		}
	}
	return false
}

func containsG(gs []*engine.G, g *engine.G) bool {
	for _, h := range gs {
		if h == g {
			return true
		}
	}
	return false
}

func hasG(e *event, g *engine.G) bool {
	for _, h := range e.gs {
		if h == g {
			return true
		}
	}
	return false
}

func cloneEvent(e *event) *event {
	c := *e
	c.vc = nil
	return &c
}

// extendHB is the package's extendHB for a prefix of the analyzed run,
// from the index.
func (d *DPOR) extendHB(a *analysis, prefix []*event, x *event) {
	if a.idx == nil || len(prefix) > len(a.idx.ev) || len(prefix) > 0 && &prefix[0] != &a.idx.ev[0] {
		extendHB(prefix, x, a.created, len(a.procName)-1)
		return
	}
	a.idx.extendHB(len(prefix), x, a.created)
	if checkRaceIndex {
		y := cloneEvent(x)
		extendHB(prefix, y, a.created, a.idx.nprocs)
		if fmt.Sprint(y.vc, y.lvc, y.proc, y.idx) != fmt.Sprint(x.vc, x.lvc, x.proc, x.idx) {
			panic(fmt.Sprintf("extendHB index: %v %v %d %d, scan: %v %v %d %d", x.vc, x.lvc, x.proc, x.idx, y.vc, y.lvc, y.proc, y.idx))
		}
	}
}

// extendHB computes the vector clock of x as if it ran right after prefix.
func extendHB(prefix []*event, x *event, created map[*engine.G]int, nprocs int) {
	v := make([]int, nprocs+1)
	lv := make([]int, nprocs+1)
	join := func(w []int) {
		for i, c := range w {
			if c > v[i] {
				v[i] = c
			}
		}
	}
	procs := []int{nprocs}
	if x.timer == "" {
		procs = procs[:0]
		for _, g := range x.gs {
			procs = append(procs, g.Index)
		}
	}
	count := make([]int, nprocs+1)
	for _, e := range prefix {
		if e.timer != "" {
			count[nprocs]++
		} else {
			for _, g := range e.gs {
				count[g.Index]++
			}
		}
		if dependent(e, x, false) {
			join(e.vc)
		}
		if e.lvc != nil && dependent(e, x, true) {
			joinInto(lv, e.lvc)
		}
	}
	for _, g := range x.gs {
		if count[g.Index] == 0 {
			if c, ok := created[g]; ok && c >= 0 && c < len(prefix) {
				join(prefix[c].vc)
				if prefix[c].lvc != nil {
					joinInto(lv, prefix[c].lvc)
				}
			}
		}
	}
	for _, pr := range procs {
		v[pr] = count[pr] + 1
		lv[pr] = count[pr] + 1
	}
	x.vc = v
	x.lvc = lv
	x.proc = procs[0]
	x.idx = v[procs[0]]
}

func joinInto(v, w []int) {
	for i, c := range w {
		if c > v[i] {
			v[i] = c
		}
	}
}

// racesOf handles the races of x (the next step after prefix) with the
// steps of prefix.
func (d *DPOR) racesOf(a *analysis, nodeAt map[int]*dnode, prefix []*event, x *event) {
	d.racesOfAlone(a, nodeAt, prefix, x, false)
}

// racesOfAlone is racesOf; with alone, x is a channel operation of one
// goroutine that may not have happened in the run (another case of a
// select, or a side of a rendezvous, whose partner is not known; an
// operation blocked at the end), and every earlier step that conflicts
// with it on its own channel (or the queue of its partners) is a race:
// x could have run, or paired with that step's goroutine, there, whatever
// happened since on the other objects it reads. The races are found with
// the run's index (depIndex.races), without scanning the prefix.
func (d *DPOR) racesOfAlone(a *analysis, nodeAt map[int]*dnode, prefix []*event, x *event, alone bool) {
	lazy := d.Lazy
	var races []int
	if a.idx != nil && len(prefix) <= len(a.idx.ev) && (len(prefix) == 0 || &prefix[0] == &a.idx.ev[0]) {
		races = a.idx.races(len(prefix), x, alone, lazy, d.deps[:0])
		if checkRaceIndex {
			if want := raceScan(prefix, x, alone, lazy); fmt.Sprint(want) != fmt.Sprint(races) {
				panic(fmt.Sprintf("race index: %v, scan: %v", races, want))
			}
		}
	} else {
		races = raceScan(prefix, x, alone, lazy)
	}
	d.deps = races // reused
	for _, k := range races {
		e := prefix[k]
		if hasKind(e, engine.OpRacyStore) && hasKind(x, engine.OpRacyCommit) && sameObj(e, x) {
			// x commits the store e buffered: it waited for it.
			continue
		}
		if lazy {
			d.lazyReverse(a, nodeAt, prefix, k, x)
			continue
		}
		if waitsFor(e, x) && sameObj(e, x) {
			// Not reversible: x waited for e. Reverse x with the Lock
			// that e releases instead.
			// An RWMutex writer's lock has two phases (claim the writer
			// slot, then wait for the readers): both sides are reversed
			// from the claim.
			for m := k - 1; m >= 0; m-- {
				if (isAcquire(prefix[m]) || isTryAcquire(prefix[m])) && sharesG(prefix[m], e) && sameObj(prefix[m], x) {
					if hasKind(prefix[m], engine.OpWLockWait) {
						for m2 := m - 1; m2 >= 0; m2-- {
							if hasKind(prefix[m2], engine.OpWLock) && sharesG(prefix[m2], e) {
								m = m2
								break
							}
						}
					}
					if hasKind(x, engine.OpWLockWait) {
						// x's claim came first; reverse the claim.
						for w := len(prefix) - 1; w > m; w-- {
							if hasKind(prefix[w], engine.OpWLock) && shareG(prefix[w], x) {
								d.reverse(nodeAt, prefix[:w], m, prefix[w])
								break
							}
						}
						break
					}
					d.reverse(nodeAt, prefix, m, x)
					break
				}
			}
			continue
		}
		if isSignal(e) && x.kinds[0] == engine.OpCondBlocked {
			// Not reversible: e woke x's waiter (the only Signal or
			// Broadcast x depends on: wakeOf).
			continue
		}
		d.reverse(nodeAt, prefix, k, x)
	}
}

// storeIssues follows the stores and commits of a run's store buffers
// (heddle test -racy, engine/storebuf.go).
type storeIssues struct {
	stores  map[*engine.G][]int // each goroutine's stores, by event index
	commits map[*engine.G]int   // each flusher's commits so far
}

// pending reports whether the store buffer of flusher f holds a store
// after the events noted.
func (s *storeIssues) pending(f *engine.G) bool {
	return len(s.stores[f.Parent]) > s.commits[f]
}

// note records ev, event j, and returns, if it is the commit of a store,
// the index of the store's event; else -1.
func (s *storeIssues) note(ev *event, j int) int {
	if len(ev.gs) != 1 {
		return -1
	}
	g := ev.gs[0]
	switch ev.kinds[0] {
	case engine.OpRacyStore:
		if s.stores == nil {
			s.stores = map[*engine.G][]int{}
		}
		s.stores[g] = append(s.stores[g], j)
	case engine.OpRacyCommit:
		if s.commits == nil {
			s.commits = map[*engine.G]int{}
		}
		n := s.commits[g]
		s.commits[g] = n + 1
		if st := s.stores[g.Parent]; n < len(st) {
			return st[n]
		}
	}
	return -1
}

// checkRaceIndex makes racesOfAlone check the races it finds with the
// index against raceScan (tests).
var checkRaceIndex bool

// raceScan is depIndex.races by a scan of the whole prefix (quadratic in
// a run's length): the events of prefix whose race with x is to be
// reversed, in descending order. They are the events x depends on that
// do not share its goroutine (unless the two are rendezvous that compete
// for it), and do not happen before a later event x depends on (the race
// is direct); with alone, also the latest event of each goroutine that
// conflicts with x on its own channel (or the queue of its partners),
// direct or not: x could have paired with that goroutine there. (Earlier
// ones of the same goroutine are reached from the reversal of the last.)
func raceScan(prefix []*event, x *event, alone, lazy bool) []int {
	j := len(prefix)
	var deps []int
	for k := j - 1; k >= 0; k-- {
		if dependent(prefix[k], x, lazy) {
			deps = append(deps, k)
		}
	}
	var out []int
	var met []*engine.G // alone: the goroutines of the later own conflicts
	for n, k := range deps {
		e := prefix[k]
		if shareG(e, x) && !competing(e, x) {
			continue
		}
		direct := true
		for _, m := range deps[:n] { // later dependent steps
			if before(e, prefix[m], lazy) {
				direct = false
				break
			}
		}
		if alone && ownConflict(e, x) {
			fresh := false
			for _, g := range e.gs {
				if !containsG(met, g) {
					fresh = true
					met = append(met, g)
				}
			}
			direct = direct || fresh
		}
		if direct {
			out = append(out, k)
		}
	}
	return out
}

// competing reports whether a and b are rendezvous of one goroutine with
// two different partners: the partners compete for it (heddle.md §4).
func competing(a, b *event) bool {
	if len(a.gs) != 2 || len(b.gs) != 2 {
		return false
	}
	n := 0
	for _, g := range a.gs {
		for _, h := range b.gs {
			if g == h {
				n++
			}
		}
	}
	return n == 1
}

func shareG(a, b *event) bool {
	for _, g := range a.gs {
		for _, h := range b.gs {
			if g == h {
				return true
			}
		}
	}
	return false
}

func sharesG(a, b *event) bool { return shareG(a, b) }

func isUnlock(e *event) bool {
	for _, k := range e.kinds {
		switch k {
		case engine.OpUnlock, engine.OpWUnlock, engine.OpRUnlock, engine.OpOnceDone:
			return true
		}
	}
	return false
}

func isAcquire(e *event) bool {
	for _, k := range e.kinds {
		switch k {
		case engine.OpLock, engine.OpWLock, engine.OpWLockWait, engine.OpRLock, engine.OpOnce:
			return true
		}
	}
	return false
}

// waitsFor reports whether x, after the release e, cannot run before e:
// a Lock after an Unlock, an RLock or a writer's claim after the writer's
// Unlock, the writer's wait for readers after an RUnlock, a Once.Do after
// the completion of the running one. Such a race is not reversible; it is
// reversed at the acquire that e releases.
func waitsFor(e, x *event) bool {
	switch {
	case hasKind(e, engine.OpUnlock):
		return hasKind(x, engine.OpLock)
	case hasKind(e, engine.OpWUnlock):
		return hasKind(x, engine.OpRLock) || hasKind(x, engine.OpWLock)
	case hasKind(e, engine.OpRUnlock):
		return hasKind(x, engine.OpWLockWait)
	case hasKind(e, engine.OpOnceDone):
		return hasKind(x, engine.OpOnce)
	}
	return false
}

// mayWait reports whether e is a channel, WaitGroup or Cond operation:
// one that may have waited, enabled by some step between its announcement
// and its execution.
func mayWait(e *event) bool {
	for _, k := range e.kinds {
		switch k {
		case engine.OpSend, engine.OpRecv, engine.OpSelect, engine.OpWGWait, engine.OpCondBlocked:
			return true
		}
	}
	return false
}

func hasKind(e *event, k engine.OpKind) bool {
	for _, x := range e.kinds {
		if x == k {
			return true
		}
	}
	return false
}

// isTryAcquire reports whether e is a TryLock: it acquires without
// waiting when it succeeds.
func isTryAcquire(e *event) bool {
	for _, k := range e.kinds {
		switch k {
		case engine.OpTryLock, engine.OpRWTryLock, engine.OpRWTryRLock:
			return true
		}
	}
	return false
}

func isSignal(e *event) bool {
	for _, k := range e.kinds {
		if k == engine.OpCondSignal || k == engine.OpCondBroadcast {
			return true
		}
	}
	return false
}

func sameObj(a, b *event) bool {
	for _, x := range a.acc {
		if pseudo(x.obj) {
			continue
		}
		for _, y := range b.acc {
			if x.obj == y.obj {
				return true
			}
		}
	}
	return false
}

// reverse plans the reversal of the race between prefix[i] and x.
func (d *DPOR) reverse(nodeAt map[int]*dnode, prefix []*event, i int, x *event) {
	nd := nodeAt[i]
	if nd == nil {
		return // only one choice was enabled there
	}
	e := prefix[i]
	if d.guide != nil && d.guide.covered(x, e) {
		return
	}
	// Reversible: x's goroutine was enabled, with x, where e ran — or it
	// moved since, and x does not wait for e (checked by the caller).
	moved := false
	for k := i + 1; k < len(prefix); k++ {
		if !shareG(prefix[k], x) {
			continue
		}
		if before(e, prefix[k], false) {
			// x's goroutine took a step after e that e's step must
			// precede (a step that was not x's race, x being another
			// choice of it): x cannot run before e.
			return
		}
		moved = true
	}
	if !moved && len(x.gs) == 1 && x.gs[0].Flusher() && !hasG(e, x.gs[0].Parent) && nd.keyFor(x) == "" {
		// A store buffer's flusher (engine/storebuf.go) was not enabled
		// where e, a step of another goroutine than the buffer's, ran
		// because the buffer was empty, not because x waited for e: the
		// store x commits was issued since, in v unless after e (then x
		// would be too), as a new goroutine's first step follows the
		// step that made it. (x does wait for its own store.)
		moved = true
	}
	// v = notdep(e).x
	var v []*event
	for k := i + 1; k < len(prefix); k++ {
		if !before(e, prefix[k], false) {
			v = append(v, prefix[k])
		}
	}
	if !moved {
		k := nd.keyFor(x)
		if k == "" && hasKind(x, engine.OpSelect) && len(x.gs) == 1 && len(v) > 0 && (!d.Optimal || dependsOnAny(x, v)) {
			// A select that was blocked where e ran may be enabled after
			// the steps that do not depend on e (a case made ready by
			// another goroutine): E'.notdep(e).x is still a run. Only
			// if a step of v touches its channels: else it is as
			// blocked after v as where e ran (its case made ready by e
			// itself, a close), and optimal DPOR would insert a
			// sequence whose last step never runs (a sleep-set blocked
			// run).
			moved = true
		} else if k == "" {
			return
		} else if hasKind(x, engine.OpSelect) && len(x.gs) == 1 && otherPhase(x, nd.pend[k]) && dependsOnAny(x, v) {
			// The same for a select that arrives where e ran: after
			// steps of v, one of its cases may be ready, and it takes it
			// without arriving.
			moved = true
		}
	}
	if !moved {
		k := nd.keyFor(x)
		if y := nd.pend[k]; !x.matchesEvent(y) && !partnerMoves(x, y, v) && !readiedBy(x, e, v) {
			// x is a select that takes another case (or its default)
			// where e ran, and v does not make x's case ready, or a
			// step whose partner there is another: reverse with that.
			phase := otherPhase(x, y)
			y = cloneEvent(y)
			y.vc, y.proc, y.idx = x.vc, x.proc, x.idx
			if phase {
				// x's goroutine arrives there instead of completing,
				// or the reverse: the other phase has dependences of
				// its own, which decide what in v precedes it.
				seq := append(append([]*event(nil), prefix[:i]...), v...)
				extendHB(seq, y, d.created, len(x.vc)-1)
			}
			x = y
		}
	}
	if moved && (arrivesInstead(e, x) || d.Optimal && closesCase(e, x)) {
		// x completed with the partner whose arrival e is: run before
		// e, x's goroutine finds no partner there, and arrives. So
		// does a receive that completed alone on an unbuffered channel
		// e closes: it waited for e. (Before, optimal DPOR inserted x
		// itself, which runs there as the arrival, a step the sequence
		// did not say: its run could end sleep-set blocked,
		// TestOptimalDPOROneRunPerClass.)
		y := &event{key: x.gs[0].ID}
		y.addSide(x.gs[0], engine.OpArrive, 0, 0, -1, x.chans[0], false, false)
		seq := append(append([]*event(nil), prefix[:i]...), v...)
		extendHB(seq, y, d.created, len(x.vc)-1)
		x = y
	}
	v = append(v, x)
	if d.Optimal {
		if d.sleepCovers(nd, v) {
			return
		}
		pv := make([]*pevent, len(v))
		for k, y := range v {
			pv[k] = d.portable(y)
		}
		d.insert(nd, pv)
		return
	}
	// Source-DPOR: I(v) ∩ backtrack(E') = ∅ ? add one initial.
	cands := nd.initialKeys(v, x)
	for _, c := range cands {
		if contains(nd.bt, c) {
			return
		}
	}
	if len(cands) > 0 {
		nd.bt = append(nd.bt, cands[0])
		return
	}
	for _, k := range nd.keys {
		nd.bt = appendNew(nd.bt, k)
	}
}

// dependsOnAny reports whether x depends on a step of v of another
// goroutine.
func dependsOnAny(x *event, v []*event) bool {
	for _, z := range v {
		if !shareG(z, x) && dependent(z, x, false) {
			return true
		}
	}
	return false
}

// arrivesInstead reports whether x, a channel operation of one goroutine
// that had not arrived, pairs with a partner whose arrival is e: for the
// case it took, x reads the queue e joined.
func arrivesInstead(e, x *event) bool {
	if len(e.gs) != 1 || e.kinds[0] != engine.OpArrive || len(x.gs) != 1 {
		return false
	}
	switch x.kinds[0] {
	case engine.OpSend, engine.OpRecv, engine.OpSelect:
	default:
		return false
	}
	k := x.cases[0]
	if k < 0 {
		k = 0
	}
	if k < len(x.chans[0]) && x.chans[0][k].Cap() != 0 {
		// A buffered case is ready without the partner (a value or a
		// slot): run before e, x completes alone.
		return false
	}
	for _, ax := range x.acc {
		if ax.tag != tagPartner+k || ax.write {
			continue // not the partner of the case x took
		}
		for _, ay := range e.acc {
			if ay.obj == ax.obj && ay.write {
				return true
			}
		}
	}
	return false
}

// closesCase reports whether e closes the unbuffered channel of the case
// the receive x (of one goroutine, which had not arrived) took: without a
// partner, only the close made that case ready.
func closesCase(e, x *event) bool {
	if len(e.gs) != 1 || e.kinds[0] != engine.OpClose || len(x.gs) != 1 {
		return false
	}
	k := x.cases[0]
	switch x.kinds[0] {
	case engine.OpRecv:
		k = 0
	case engine.OpSelect:
	default:
		return false
	}
	if k < 0 || k >= len(x.chans[0]) {
		return false
	}
	c := x.chans[0][k]
	if c.IsSend() || c.Cap() != 0 {
		return false
	}
	ch := uintptr(c.Chan())
	for _, a := range e.acc {
		if a.obj == ch && a.write {
			return true
		}
	}
	return false
}

// readiedBy reports whether the case x took, not ready where e ran, is
// made ready by the steps v that do not depend on e, and not by e: then x
// runs as it is after them (generated seed 3573: a receive from a
// buffered channel, filled by a send in v, was reversed as the select's
// other case, and the class where it takes the receive before the step e
// was never explored).
func readiedBy(x, e *event, v []*event) bool {
	if len(x.gs) != 1 || x.kinds[0] != engine.OpSelect || x.cases[0] < 0 || ownConflict(e, x) {
		return false
	}
	for _, z := range v {
		if ownConflict(z, x) {
			return true
		}
	}
	return false
}

// sleepCovers reports whether a step asleep at nd (inherited, or a choice
// explored there before the one taken) is a weak initial of v: sleep(E')
// ∩ WI(v) ≠ ∅, and v need not be inserted into nd's wakeup tree.
func (d *DPOR) sleepCovers(nd *dnode, v []*event) bool {
	for _, s := range nd.sleep {
		if weakInitial(s, v) {
			return true
		}
	}
	for _, k := range nd.done {
		if k != nd.taken && weakInitial(nd.pend[k], v) {
			return true
		}
	}
	return false
}

// partnerMoves reports whether y, the step x's choice makes at the
// reversal point, pairs x's goroutine with a partner that takes a step of
// its own in v (before x in the reversed run): then x's choice pairs it
// with another partner there.
func partnerMoves(x, y *event, v []*event) bool {
	for _, g := range y.gs {
		if hasG(x, g) {
			continue
		}
		for _, z := range v {
			if hasG(z, g) {
				return true
			}
		}
	}
	return false
}

// matchesEvent reports whether e and f are the same step: the same
// goroutines with the same cases (for an unbuffered rendezvous, the same
// pair, whichever side initiated it), comparing goroutines by id. A
// rendezvous of a sender with another receiver is another step: the
// receivers compete for it.
func (e *event) matchesEvent(f *event) bool {
	if f == nil {
		return false
	}
	if e.timer != "" || f.timer != "" {
		return e.timer == f.timer
	}
	if len(e.gs) != len(f.gs) {
		return false
	}
	for i, g := range e.gs {
		found := false
		for j, h := range f.gs {
			if g.ID == h.ID && e.cases[i] == f.cases[j] && (e.kinds[i] == engine.OpArrive) == (f.kinds[j] == engine.OpArrive) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// weakInitial reports whether the pending step s (of a sleeping choice) is
// a weak initial of v: it is v's first step of its goroutine with nothing
// in v before it, or it is independent of all of v.
func weakInitial(s *event, v []*event) bool {
	for k, y := range v {
		if shareG(s, y) || (s.timer != "" && s.timer == y.timer) {
			if !s.matchesEvent(y) {
				return false
			}
			for _, z := range v[:k] {
				if before(z, y, false) || dependent(z, y, false) {
					return false
				}
			}
			return true
		}
	}
	for _, y := range v {
		if dependent(s, y, false) {
			return false
		}
	}
	return true
}

// SpinBound implements SpinBounder.
func (d *DPOR) SpinBound() int { return d.spin.bound() }

// Proven implements Prover.
func (d *DPOR) Proven() string {
	if !d.over && d.od == nil || d.diverged || d.guide != nil || d.Lazy || d.CutRuns > 0 {
		// (A unit of a split optimal DPOR hands what it has not
		// explored to other units: odsplit.go.)
		return ""
	}
	if d.boundSkipped {
		return fmt.Sprintf("all schedules explored (up to equivalence) among those with ≤ %d preemptions", d.PBound)
	}
	return "all schedules explored (up to equivalence)"
}

// Stats describes the exploration: runs, complete runs, sleep-set
// blocked runs.
func (d *DPOR) Stats() string {
	return fmt.Sprintf("%d runs, %d complete, %d sleep-set blocked", d.Runs, d.Complete, d.Blocked)
}

// --- wakeup trees -----------------------------------------------------

// pevent is a step in a portable form that outlives its run: goroutines by
// id and objects by stable names (see unionFind).
type pevent struct {
	gids  []string
	cases []int
	sel   []bool // the goroutine's operation is a select
	arr   []bool // the step is the goroutine's arrival
	timer string
	acc   []pacc
}

type pacc struct {
	name        int
	write, mutx bool
}

type laterInsert struct {
	nd *dnode
	e  *event
}

type wnode struct {
	ev       *pevent
	raw      *event // until the run's objects are named
	children []*wnode
	// wake are the steps before it that the insertion which made it
	// found not to be weak initials of its sequence, under the objects'
	// names: following it wakes them if asleep (see wakeAt).
	wake []*pevent
}

func (p *pevent) matches(e *event) bool {
	if e == nil {
		return false
	}
	if p.timer != "" || e.timer != "" {
		return p.timer == e.timer
	}
	if len(p.gids) != len(e.gs) {
		return false
	}
	for i, g := range e.gs {
		if !containsID(p, g.ID, e.cases[i], e.kinds[i] == engine.OpArrive) {
			return false
		}
	}
	return true
}

// standsForItself reports whether w's step is a choice at nd, not another
// step that keyOf would take for it.
func (nd *dnode) standsForItself(w *wnode) bool {
	for _, k := range nd.keys {
		if w.matches(nd.pend[k]) {
			return true
		}
	}
	return false
}

// keyOf returns the key of the choice at nd that takes w's step, or
// failing that another case of w's select, or "".
func (nd *dnode) keyOf(w *wnode) string {
	for _, k := range nd.keys {
		if w.matches(nd.pend[k]) {
			return k
		}
	}
	for _, k := range nd.keys {
		if w.matchesSelect(nd.pend[k]) {
			return k
		}
	}
	for _, k := range nd.keys {
		if w.matchesPhase(nd.pend[k]) {
			return k
		}
	}
	return ""
}

// keyFor is keyOf for a step of a run.
func (nd *dnode) keyFor(x *event) string {
	for _, k := range nd.keys {
		if x.matchesEvent(nd.pend[k]) {
			return k
		}
	}
	for _, k := range nd.keys {
		if sameSelect(x, nd.pend[k]) {
			return k
		}
	}
	for _, k := range nd.keys {
		if otherPhase(x, nd.pend[k]) {
			return k
		}
	}
	return ""
}

// otherPhase reports whether the pending step b (of the goroutine that
// chooses it, its first) is the other phase of a's goroutine's channel
// operation: its arrival where a completes it, or its completion where a
// is its arrival. Whether the operation must arrive, or can complete,
// depends on where it runs (on whether a partner arrived before).
func otherPhase(a, b *event) bool {
	if a == nil || b == nil || a.timer != "" || b.timer != "" || len(b.gs) == 0 {
		return false
	}
	for i, g := range a.gs {
		if g.ID == b.gs[0].ID && (a.kinds[i] == engine.OpArrive) != (b.kinds[0] == engine.OpArrive) {
			return true
		}
	}
	return false
}

// matchesPhase is otherPhase for a wakeup node.
func (w *wnode) matchesPhase(e *event) bool {
	if w.raw != nil {
		return otherPhase(w.raw, e)
	}
	if e == nil || e.timer != "" || w.ev.timer != "" || len(e.gs) == 0 {
		return false
	}
	for i, g := range w.ev.gids {
		if g == e.gs[0].ID && w.ev.arr[i] != (e.kinds[0] == engine.OpArrive) {
			return true
		}
	}
	return false
}

// sameSelect reports whether a and b are steps of the same select (in
// some goroutine both perform a select), perhaps with different cases:
// which case is ready depends on where the select runs, and the other
// ready cases are explored as local alternatives.
func sameSelect(a, b *event) bool {
	if a == nil || b == nil || a.timer != "" || b.timer != "" {
		return false
	}
	if len(a.gs) == 1 && len(b.gs) == 2 {
		// A blocked operation seen at the end of a run, and the
		// rendezvous it makes once a partner arrives.
		for j, h := range b.gs {
			if h.ID == a.gs[0].ID && b.cases[j] == a.cases[0] {
				return true
			}
		}
	}
	for i, g := range a.gs {
		if a.kinds[i] != engine.OpSelect {
			continue
		}
		for j, h := range b.gs {
			if g.ID == h.ID && b.kinds[j] == engine.OpSelect {
				return true
			}
		}
	}
	return false
}

func (w *wnode) matchesSelect(e *event) bool {
	if w.raw != nil {
		return sameSelect(w.raw, e)
	}
	if e == nil || e.timer != "" || w.ev.timer != "" {
		return false
	}
	if len(w.ev.gids) == 1 && len(e.gs) == 2 {
		for j, h := range e.gs {
			if h.ID == w.ev.gids[0] && e.cases[j] == w.ev.cases[0] {
				return true
			}
		}
	}
	for i, g := range w.ev.gids {
		if !w.ev.sel[i] {
			continue
		}
		for j, h := range e.gs {
			if g == h.ID && e.kinds[j] == engine.OpSelect {
				return true
			}
		}
	}
	return false
}

func (w *wnode) hasChild(e *event) bool {
	for _, c := range w.children {
		if c.matches(e) {
			return true
		}
	}
	return false
}

func (w *wnode) matches(e *event) bool {
	if w.raw != nil {
		return w.raw.matchesEvent(e)
	}
	return w.ev.matches(e)
}

func containsID(p *pevent, id string, c int, arr bool) bool {
	for i, x := range p.gids {
		if x == id && p.cases[i] == c && p.arr[i] == arr {
			return true
		}
	}
	return false
}

func (d *DPOR) portable(e *event) *pevent {
	p := &pevent{timer: e.timer}
	for i, g := range e.gs {
		p.gids = append(p.gids, g.ID)
		p.cases = append(p.cases, e.cases[i])
		p.sel = append(p.sel, e.kinds[i] == engine.OpSelect)
		p.arr = append(p.arr, e.kinds[i] == engine.OpArrive)
	}
	for _, a := range e.acc {
		p.acc = append(p.acc, pacc{name: d.names.nameOf(a.obj), write: a.write, mutx: a.mutex})
	}
	return p
}

func pdependent(a, b *pevent, uf *unionFind) bool {
	if a.timer != "" && b.timer != "" {
		return true
	}
	for _, g := range a.gids {
		for _, h := range b.gids {
			if g == h {
				return true
			}
		}
	}
	for _, x := range a.acc {
		for _, y := range b.acc {
			if (x.write || y.write) && uf.find(x.name) == uf.find(y.name) {
				return true
			}
		}
	}
	return false
}

func psame(a, b *pevent) bool {
	if a.timer != "" || b.timer != "" {
		return a.timer == b.timer
	}
	if len(a.gids) != len(b.gids) {
		return false
	}
	for i, g := range a.gids {
		if !containsID(b, g, a.cases[i], a.arr[i]) {
			return false
		}
	}
	return true
}

// checkInitial is Concuerror's step of wakeup-tree insertion: if x is an
// initial of w, w without x; if x is independent of all of w, w; else not ok.
// w is not changed: without x, it is w's own rest when x comes first (an
// insertion along a branch that starts as w does, level after level,
// copies nothing), else a copy.
func (d *DPOR) checkInitial(x *pevent, w []*pevent) ([]*pevent, bool) {
	k, ok := d.initialAt(x, w)
	return without(w, k), ok
}

// initialAt is checkInitial's test: x is w's step k, an initial of w (k,
// true), or independent of all of w (-1, true), or neither (not ok).
func (d *DPOR) initialAt(x *pevent, w []*pevent) (int, bool) {
	for k, y := range w {
		if psame(x, y) {
			// x's step is in w: it must not depend on anything before it
			// in w (transitively: anything before it it depends on).
			for _, z := range w[:k] {
				if d.hbIn(w[:k+1], z, y) {
					return 0, false
				}
			}
			return k, true
		}
	}
	for _, y := range w {
		if pdependent(x, y, d.names) {
			return 0, false
		}
	}
	return -1, true
}

// without is w without its step k (w itself if k < 0, its own rest if k
// is 0: an insertion along a branch that starts as w does, level after
// level, copies nothing).
func without[T any](w []T, k int) []T {
	switch {
	case k < 0:
		return w
	case k == 0:
		return w[1:]
	}
	return append(append([]T(nil), w[:k]...), w[k+1:]...)
}

// hbIn reports whether z happens before y within the sequence w (z, y in w).
func (d *DPOR) hbIn(w []*pevent, z, y *pevent) bool {
	reach := map[*pevent]bool{z: true}
	started := false
	for _, u := range w {
		if u == z {
			started = true
			continue
		}
		if !started {
			continue
		}
		for r := range reach {
			if pdependent(r, u, d.names) {
				reach[u] = true
				break
			}
		}
		if u == y {
			return reach[y]
		}
	}
	return false
}

// insert puts the wakeup sequence w into nd's wakeup tree (Algorithm 2's
// insert[E']): it descends into a child whose step is an initial of what
// is left of w, or independent of all of it, and appends the rest. The
// steps are compared by the objects' names (initialAt). (Comparing nd's
// own children with this run's steps instead, as dependence does for the
// sleep sets, took TestCloseWakesSelects' model from 2,930 to 2,892 runs,
// but names that include the operation kind do that alone, and with it
// optimal DPOR made 102 runs for 80 classes on a late-wake program, 80
// without: TestLateWakeCommutes.)
func (d *DPOR) insert(nd *dnode, w []*pevent) {
	n := nd.wut
	var failed []*pevent // a unit's: the children w was not put under (wakeAt)
	for {
		if len(w) == 0 {
			return
		}
		descended := false
		for _, c := range n.children {
			if n == nd.wut && !nd.standsForItself(c) {
				// A child that runs another step here (a select case not
				// ready here, the arrival of an operation inserted as its
				// completion) covers nothing: its own step never runs
				// at this point.
				continue
			}
			k, ok := d.initialAt(c.ev, w)
			if !ok {
				if d.od != nil {
					failed = append(failed, c.ev)
				}
				continue
			}
			if len(c.children) == 0 {
				return // a leaf covers w
			}
			n, w = c, without(w, k)
			descended = true
			break
		}
		if !descended {
			if d.od != nil && d.odLate(n, w) {
				return
			}
			var wake [][]*pevent
			if d.od != nil {
				// A unit of a split exploration (odsplit.go): see wakeAt.
				wake = wakeAt(w, failed, d.names)
			}
			for i, x := range w {
				c := &wnode{ev: x}
				if wake != nil {
					c.wake = wake[i]
				}
				n.children = append(n.children, c)
				n = c
			}
			return
		}
	}
}

// wakeAt assigns each step of failed, a child that an insertion of w
// found not to be a weak initial of w (at the node w is appended to, or
// at a node above where it went under a later child), to the step of w
// that wakes it: the first one it depends on, or its own, under the
// objects' names (pdependent), else w's first step. The insertion
// decides with the names, which merge the objects touched by the same
// step in different runs, and can be coarser than the dependence of the
// steps that run, which keeps the sleep sets: such a child, explored
// before w and asleep, could stay asleep along w where the insertion
// took it to wake, and make w's run sleep-set blocked, or its races
// look covered by the sleeping child (a class lost: generated seed 2233
// split across workers, whose units learn names of runs the sequential
// exploration makes later or never). Following w wakes them as the
// insertion assumed (wakes). Only the children that depend on w through
// names learned from other units' runs are woken: under the names of
// the unit's own runs the sequential exploration does not wake them, and
// waking them too explored classes again (a child woken by a step it
// does not depend on runs after it in a class explored already; gen2233
// one worker: 462 runs for 423, features.txt's TestReflectPipeline on
// two workers past 20,000 runs for 1,549).
func wakeAt(w, failed []*pevent, uf *unionFind) [][]*pevent {
	out := make([][]*pevent, len(w))
	for _, f := range failed {
		if dependsOwn(f, w, uf) {
			continue // the names of this process's runs say so too
		}
		k := 0
		for i, x := range w {
			if psame(f, x) || pdependent(f, x, uf) {
				k = i
				break
			}
		}
		out[k] = append(out[k], f)
	}
	return out
}

// wakes reports whether the sleeping step s is one of wake.
func wakes(wake []*pevent, s *event) bool {
	for _, p := range wake {
		if p.matches(s) {
			return true
		}
	}
	return false
}

// findOwn is find with the merges of this process's runs only.
func (u *unionFind) findOwn(x int) int {
	for u.own[x] != x {
		u.own[x] = u.own[u.own[x]]
		x = u.own[x]
	}
	return x
}

// dependsOwn reports whether f is a step of w or depends on one under the
// names of this process's runs alone (findOwn): the dependence the
// sequential exploration, which names objects from its own runs, would
// see too.
func dependsOwn(f *pevent, w []*pevent, uf *unionFind) bool {
	for _, x := range w {
		if psame(f, x) {
			return true
		}
		for _, g := range f.gids {
			for _, h := range x.gids {
				if g == h {
					return true
				}
			}
		}
		if f.timer != "" && x.timer != "" {
			return true
		}
		for _, a := range f.acc {
			for _, b := range x.acc {
				if (a.write || b.write) && uf.findOwn(a.name) == uf.findOwn(b.name) {
					return true
				}
			}
		}
	}
	return false
}

// --- stable object names ------------------------------------------------

// unionFind names objects across runs: an object is named by the steps
// (goroutine id and index) that touched it; steps that touched the same
// object in some run name the same object in every run.
type unionFind struct {
	parent []int
	// own is parent with only the merges of this process's runs (not
	// those imported from other units: importEdges).
	own    []int
	byStep map[string]int
	cur    map[interface{}]int // object -> name, in the current run
	// For units of a split exploration (odsplit.go): the step that made
	// each name (a token for a name no step made), and, with track, the
	// equivalences of steps learned since the log was taken.
	sid   []string
	track bool
	log   [][2]string
	tok   string
}

func newUnionFind() *unionFind { return &unionFind{byStep: map[string]int{}} }

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) fresh() int {
	u.own = append(u.own, len(u.parent))
	u.parent = append(u.parent, len(u.parent))
	u.sid = append(u.sid, "")
	return len(u.parent) - 1
}

func (u *unionFind) nameOf(obj interface{}) int {
	if n, ok := u.cur[obj]; ok {
		return n
	}
	n := u.fresh()
	if u.cur == nil {
		u.cur = map[interface{}]int{}
	}
	u.cur[obj] = n
	return n
}

// nameObjects names the objects of a run's events and merges the names
// with those of earlier runs through the steps that touched them: an
// object is named by the access (its goroutine's step and its tag) that
// touched it.
func (d *DPOR) nameObjects(a *analysis) {
	u := d.names
	u.cur = map[interface{}]int{}
	u.init()
	u.cur[world] = 0
	u.cur[clock] = u.importSid("@clock") // a fixed name, as the world's
	counts := map[string]int{}
	for _, e := range a.ev {
		steps := []string{"@" + e.timer}
		if e.timer == "" {
			steps = steps[:0]
			for _, g := range e.gs {
				counts[g.ID]++
				steps = append(steps, g.ID+":"+strconv.Itoa(counts[g.ID]))
			}
		}
		for _, ac := range e.acc {
			if pseudo(ac.obj) {
				continue
			}
			id := steps[0]
			if ac.side < len(steps) {
				id = steps[ac.side]
			}
			id += "/" + strconv.Itoa(ac.tag)
			if ac.side < len(e.kinds) {
				id += "/" + strconv.Itoa(int(e.kinds[ac.side]))
			}
			n, ok := u.cur[ac.obj]
			if m, seen := u.byStep[id]; seen {
				if ok {
					if a, b := u.findOwn(m), u.findOwn(n); a != b {
						u.own[a] = b
					}
				}
				if !ok {
					n, ok = m, true
					u.cur[ac.obj] = n
				} else if u.find(m) != u.find(n) {
					u.parent[u.find(m)] = u.find(n)
					if u.track {
						u.log = append(u.log, [2]string{u.sidOf(m), u.sidOf(n)})
					}
				}
			}
			if !ok {
				n = u.fresh()
				u.sid[n] = id
				u.cur[ac.obj] = n
			}
			if _, seen := u.byStep[id]; !seen {
				u.byStep[id] = n
				if u.track && u.sid[n] != id {
					u.log = append(u.log, [2]string{id, u.sidOf(n)})
				}
			}
		}
	}
}

// initialKeys returns the keys at nd of the initials of the sequence v,
// which ends with x: the steps of v that no earlier step of v precedes
// (same goroutine or happens-before) and, for x, that no earlier step is
// dependent with (seed-004's I(v), as source-DPOR's backtracking reads it).
func (nd *dnode) initialKeys(v []*event, x *event) []string {
	var keys []string
	for k, y := range v {
		initial := true
		for _, z := range v[:k] {
			if shareG(z, y) || before(z, y, false) || (y == x && dependent(z, y, false)) {
				initial = false
				break
			}
		}
		if !initial {
			continue
		}
		if key := nd.keyFor(y); key != "" {
			keys = append(keys, key)
		}
	}
	return keys
}
