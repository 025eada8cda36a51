package strategy

import (
	"os"
	"sort"
	"strconv"
	"time"
)

// Splitting optimal DPOR (issue 12, seed-002 §6 with the digest's fix):
// a unit is the subtree at the end of a path of wakeup steps, each level
// with the steps taken before it there (asleep), and the wakeup tree the
// unit starts with at its end. A race whose reversal goes into the
// wakeup tree of a node on the path is inserted there by the unit as the
// sequential insert does, descending along the path; if it falls off the
// path at a node above the unit's own, it is reported (late), and the
// coordinator runs it through its tree T, from the child after the
// reporter's, with the same insert rule: a T leaf covers it; if it ends
// in the wakeup tree of a unit not started, it goes there; if it ends
// below the node of a unit being explored, it waits for that unit's rest
// (asked for at once) and is routed again then; otherwise it becomes a
// new unit where it ends, asleep at each level only for the steps it was
// checked against there (and, at the reporter's node, what the reporter
// had asleep) — unless a complete run a unit reported (ODFrag.Ran) has it
// as a prefix up to equivalence (coveredByRun), or took its first step
// where it ends (exploredAt: the new unit is asleep too for the steps the
// reported runs took there, explored before it). A unit whose step stands
// at its node for a choice taken there before (odTakenBefore) explores
// nothing, as the sequential backtrack skips such a wakeup child.

// odLevel is one level of a unit's path: the step taken and the steps
// before it at that node, asleep.
type odLevel struct {
	take   *pevent
	before []*pevent
	ran    bool      // the node was run before (its other select cases were inserted then)
	wake   []*pevent // the path step's wakeup node's (wnode.wake)
}

// odUnit is a unit of optimal DPOR. Its path is pre then own: the units
// of one rest share pre, the path of the stack down to their level (read
// only), so that a rest is linear in the depth of the run, not quadratic.
type odUnit struct {
	pre, own []odLevel
	w        *wnode // the wakeup tree at the end of the path (its children)
	// The coordinator's T node of each level, 0..depth: tpre then town
	// (tpre shared as pre is).
	tpre, town []*tnode
}

// depth is the number of levels of u's path.
func (u *odUnit) depth() int { return len(u.pre) + len(u.own) }

// lv is level j of u's path.
func (u *odUnit) lv(j int) *odLevel {
	if j < len(u.pre) {
		return &u.pre[j]
	}
	return &u.own[j-len(u.pre)]
}

// levels is a copy of the first j levels of u's path.
func (u *odUnit) levels(j int) []odLevel {
	out := make([]odLevel, 0, j)
	if j <= len(u.pre) {
		return append(out, u.pre[:j]...)
	}
	return append(append(out, u.pre...), u.own[:j-len(u.pre)]...)
}

// tp is the T node of level j of u's path (j = depth: its node).
func (u *odUnit) tp(j int) *tnode {
	if j < len(u.tpre) {
		return u.tpre[j]
	}
	return u.town[j-len(u.tpre)]
}

// tps is a copy of the T nodes of the first j levels.
func (u *odUnit) tps(j int) []*tnode {
	out := make([]*tnode, 0, j)
	for i := 0; i < j; i++ {
		out = append(out, u.tp(i))
	}
	return out
}

// odInfo is what an optimal DPOR restricted to a unit keeps.
type odInfo struct {
	levels []odLevel
	wn     []*wnode // the wakeup node at each level 0..len(levels)
	ctx    map[*wnode]int
	late   []odLateIns
	// The state after the last run ended (a run cut by a time slice
	// changes the stack's pending steps): the stack's length, each
	// node's pending steps and the objects' names of that run.
	n    int
	pend []map[string]*event
	cur  map[interface{}]int
	// In a worker: the unit as received, and whether its rest was
	// handed over.
	frag   *ODFrag
	handed bool
	ran    bool // a run ended
	// explored is the trie of the complete runs made below the unit's
	// node (their steps at the nodes below it), reported with the rest
	// so that the coordinator drops a late sequence one of them covers;
	// xn counts its nodes (at most odExploredMax).
	explored *wnode
	xn       int
}

func (d *DPOR) odSnapshot() {
	od := d.od
	od.ran = true
	od.n = len(d.stack)
	od.pend = od.pend[:0]
	for _, nd := range d.stack {
		od.pend = append(od.pend, nd.pend)
	}
	od.cur = d.names.cur
}

// odExploredMax bounds the nodes of the runs a unit reports as explored
// (odInfo.explored), and odCoveredMax those the coordinator keeps and
// the nodes one covering search visits: past them a late sequence is
// routed as if nothing covered it (a unit more, perhaps explored twice,
// never one lost).
const (
	odExploredMax = 1 << 16
	odCoveredMax  = 1 << 21
	odSearchMax   = 1 << 14
)

// odExplored adds the complete run a (not sleep-set blocked) to the
// unit's explored runs: its steps at the nodes below the unit's node.
func (d *DPOR) odExplored(a *analysis) {
	od := d.od
	m := len(od.levels)
	n := min(d.depth, len(d.stack))
	if n <= m || od.xn+n-m > odExploredMax {
		return
	}
	if od.explored == nil {
		od.explored = &wnode{}
	}
	x := od.explored
	for i := m; i < n; i++ {
		nd := d.stack[i]
		if nd.pos >= len(a.ev) {
			return
		}
		p := d.portable(a.ev[nd.pos])
		var next *wnode
		for _, c := range x.children {
			if psame(c.ev, p) {
				next = c
				break
			}
		}
		if next == nil {
			next = &wnode{ev: p}
			x.children = append(x.children, next)
			od.xn++
		}
		x = next
	}
}

// odLateIns is a sequence a race inserts at the node of level level,
// after the unit's path step there: outside the unit.
type odLateIns struct {
	level int
	w     []*pevent
}

// copyW copies a wakeup tree, without the steps a run cut short added.
func copyW(w *wnode) *wnode {
	c := &wnode{ev: w.ev, wake: w.wake}
	for _, x := range w.children {
		if x.ev != nil {
			c.children = append(c.children, copyW(x))
		}
	}
	return c
}

// newODUnitDPOR is an optimal DPOR that explores u, naming objects with names.
func newODUnitDPOR(u *odUnit, names *unionFind) *DPOR {
	d := NewOptimalDPOR()
	d.names = names
	od := &odInfo{levels: u.levels(u.depth()), ctx: map[*wnode]int{}}
	n := &wnode{}
	for j, l := range od.levels {
		od.wn = append(od.wn, n)
		od.ctx[n] = j
		c := &wnode{ev: l.take, wake: l.wake}
		n.children = []*wnode{c}
		n = c
	}
	od.wn = append(od.wn, n)
	if u.w != nil {
		for _, x := range u.w.children {
			n.children = append(n.children, copyW(x))
		}
	}
	d.od = od
	return d
}

// odContext handles a new node at level i of the path: the steps before
// the path step there are asleep. It reports whether the node ran before.
func (d *DPOR) odContext(i int, nd *dnode) bool {
	if i >= len(d.od.levels) {
		return false
	}
	l := d.od.levels[i]
	for _, b := range l.before {
		for _, k := range nd.keys {
			if k != nd.taken && b.matches(nd.pend[k]) && !contains(nd.done, k) {
				nd.done = append(nd.done, k)
				d.sleep = append(d.sleep, nd.pend[k])
			}
		}
	}
	return l.ran
}

// odTakenBefore reports whether take, the key of the unit's step at its
// node (level i, the path's last), is the key of one of the steps before
// it there: taken by other units first, so that the sequential
// backtrack finds take explored already (contains(nd.done, k)). The
// coordinator's tree compares steps as they are written (psame), and a
// late sequence whose first step is a select case not ready at the node
// it ends at, or an arrival where the rendezvous runs, became a unit
// beside the sibling that took the choice it stands for: the split's
// classes explored twice on programs with selects.
func (d *DPOR) odTakenBefore(i int, nd *dnode, take string) bool {
	for _, b := range d.od.levels[i].before {
		if nd.keyOf(&wnode{ev: b}) == take {
			return true
		}
	}
	return false
}

// odLate reports w, falling off the path at n, if n is above the unit's node.
func (d *DPOR) odLate(n *wnode, w []*pevent) bool {
	j, ok := d.od.ctx[n]
	if !ok {
		return false
	}
	// The same sequence reported again (another run's race) would be
	// covered by the first where T routes it: it is reported once.
	for _, l := range d.od.late {
		if l.level == j && psameSeq(l.w, w) {
			return true
		}
	}
	d.od.late = append(d.od.late, odLateIns{level: j, w: append([]*pevent(nil), w...)})
	return true
}

func psameSeq(a, b []*pevent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !psame(a[i], b[i]) {
			return false
		}
	}
	return true
}

// odRest is what is left of the unit, as units: each wakeup child not
// started yet at the nodes of the unit's own subtree on the stack. The
// units share the path of the stack (levels, which their pre are
// prefixes of) and own one level each.
func (d *DPOR) odRest() (levels []odLevel, out []*odUnit) {
	if d.over || d.diverged || !d.od.ran {
		return nil, nil
	}
	m := len(d.od.levels)
	t := d.od.n - 1
	levels = append([]odLevel(nil), d.od.levels...)
	cur := d.names.cur
	d.names.cur = d.od.cur
	defer func() { d.names.cur = cur }()
	for i := m; i <= t; i++ {
		nd := d.stack[i]
		ch := nd.wut.children
		var before []*pevent
		for _, k := range nd.done {
			if e := d.od.pend[i][k]; k != nd.taken && e != nil {
				before = append(before, d.portable(e))
			}
		}
		start := 0
		if i < t {
			start = 1
			levels = append(levels, odLevel{take: ch[0].ev, before: before, ran: true, wake: ch[0].wake})
		}
		b := append([]*pevent(nil), before...)
		if i < t {
			b = append(b, ch[0].ev)
		}
		// The keys explored here by the time each child would be: a
		// child that takes one of them is skipped, as backtrack does.
		at := &dnode{keys: nd.keys, pend: d.od.pend[i]}
		done := append([]string(nil), nd.done...)
		if i < t {
			done = appendNew(done, nd.taken)
		}
		var followed *wnode
		if i < t {
			// The child the run followed (the step that ran matched
			// it, not always ch[0]: an arrival inserted runs as the
			// rendezvous another child is), whose subtree is the
			// nodes below, handed out from them: backtrack removes
			// ch[0] and finds the child followed a leaf explored by
			// then. Handed out whole, it was explored twice.
			followed = d.stack[i+1].wut
		}
		for c := start; c < len(ch); c++ {
			if ch[c] == followed {
				continue
			}
			k := at.keyOf(ch[c])
			if k != "" && contains(done, k) {
				continue
			}
			if k != "" && d.runsAsleep(nd.sleep, ch[c], at.pend[k]) {
				// Its step runs asleep here: backtrack drops it (a
				// unit of it would make one sleep-set blocked run).
				continue
			}
			if k != "" {
				done = appendNew(done, k)
			}
			// levels only grows: levels[:i] stays the stack's path.
			own := []odLevel{{take: ch[c].ev, before: append([]*pevent(nil), b...), wake: ch[c].wake}}
			out = append(out, &odUnit{pre: levels[:i:i], own: own, w: copyW(ch[c])})
			b = append(b, ch[c].ev)
		}
	}
	return levels, out
}

// odRestMax is the most levels and wakeup children the rest of a unit
// may hold (its stack's path and the children not started on it): past
// it, the unit is explored to its end where it is (KeepUnit).
const odRestMax = 1 << 20

// odKeepDepth is the depth of a run (its stack's nodes) past which its
// unit is explored to its end where it is (KeepUnit): each unit of its
// rest would replay a path about as deep and report the races of each
// run above it (GoKer's Grpc3017, 50,015 steps: units 30,000 levels deep
// reporting 10,000 late sequences per run), so that split, the units'
// runs cost several times one worker's, and the time to the bug went
// with the workers' timing from 12 s to 4 minutes.
const odKeepDepth = 10000

// KeepUnit reports whether the unit is to be explored to its end in this
// call rather than handed back at a yield or the end of a time slice: its
// rest, the wakeup children not started on the stack with the path they
// share, is linear in the run's depth, and is kept only when it holds
// more than odRestMax levels and children, or when its last run was
// deeper than odKeepDepth. (When each child was a unit
// with a copy of the path, the rest was quadratic in the depth: GoKer's
// Grpc3017 ran out of memory making it, and this kept such units.) A
// unit kept explores what one worker would.
func (d *DPOR) KeepUnit() bool {
	if d.od == nil || !d.od.ran || d.over || d.diverged {
		return false
	}
	if d.od.n > odKeepDepth {
		return true
	}
	n := 0
	for i := len(d.od.levels); i < d.od.n && i < len(d.stack); i++ {
		n += 1 + len(d.stack[i].wut.children)
		if n > odRestMax {
			return true
		}
	}
	return false
}

// tnode is a node of the coordinator's tree T: a step (a child of its
// parent) and the steps known after it.
type tnode struct {
	ev       *pevent
	children []*tnode
	// ran is the tree of the complete runs explored below the node by
	// the unit whose node it is (ODFrag.Ran), their steps as they ran.
	ran *wnode
}

func (n *tnode) child(ev *pevent) *tnode {
	for _, c := range n.children {
		if psame(c.ev, ev) {
			return c
		}
	}
	c := &tnode{ev: ev}
	n.children = append(n.children, c)
	return c
}

func (n *tnode) addW(w *wnode) {
	for _, x := range w.children {
		n.child(x.ev).addW(x)
	}
}

// odCoord is the coordinator's tree.
type odCoord struct {
	root *tnode
	d    *DPOR // for checkInitial, with the coordinator's names
	// waiting maps the T nodes of the wakeup trees of the units not
	// started yet to their units and wakeup nodes: a late sequence that
	// ends there goes into the unit's wakeup tree, as the sequential
	// insert puts it into the wakeup tree of a node not explored yet.
	waiting map[*tnode]wslot
	merged  int // late sequences put into a waiting unit's wakeup tree
	// unitAt maps the T node of each unit handed out to it; live holds
	// the units being explored, and deferred the late sequences that
	// end below the node of one of them, to route again once it has
	// handed its rest back (yield asks it to, at once).
	unitAt   map[*tnode]*odUnit
	live     map[*odUnit]bool
	deferred map[*odUnit][]odDeferred
	yield    []*odUnit
	defers   int // late sequences deferred
	// xn is the number of nodes of the runs the units reported
	// (tnode.ran); runCovered counts the late sequences one of them
	// covered (no new unit made).
	xn         int
	runCovered int
	// ranTaken counts the late sequences whose first step a reported
	// run took at the node they end at (exploredAt).
	ranTaken int
}

// odDeferred is a late sequence l of unit u, routed again later.
type odDeferred struct {
	u *odUnit
	l odLateIns
}

// wslot is a node of a waiting unit's wakeup tree.
type wslot struct {
	u *odUnit
	w *wnode
}

// wait records the T nodes of u's wakeup tree as waiting.
func (c *odCoord) wait(u *odUnit) {
	if u.w == nil {
		u.w = &wnode{}
	}
	var walk func(t *tnode, w *wnode)
	walk = func(t *tnode, w *wnode) {
		c.waiting[t] = wslot{u, w}
		for _, x := range w.children {
			walk(t.child(x.ev), x)
		}
	}
	walk(u.tp(u.depth()), u.w)
}

// start forgets u's wakeup tree as waiting: u is explored from now on.
func (c *odCoord) start(u *odUnit) {
	var walk func(t *tnode, w *wnode)
	walk = func(t *tnode, w *wnode) {
		if s, ok := c.waiting[t]; ok && s.u == u {
			delete(c.waiting, t)
		}
		for _, x := range w.children {
			walk(t.child(x.ev), x)
		}
	}
	walk(u.tp(u.depth()), u.w)
}

// register places u in T from its parent's T path (the first parent
// levels are those of the parent; shared, not copied, and not changed).
func (c *odCoord) register(u *odUnit, parent []*tnode) {
	u.tpre, u.town = parent[:len(parent):len(parent)], nil
	if len(parent) == 0 {
		u.town = []*tnode{c.root}
	}
	for j := len(u.tpre) + len(u.town) - 1; j < u.depth(); j++ {
		u.town = append(u.town, u.tp(j).child(u.lv(j).take))
	}
	if u.w != nil {
		u.tp(u.depth()).addW(u.w)
	}
}

// route runs the late insertion l of unit u through T; it returns the new
// unit, or nil if the sequence is covered or deferred (deferred true).
func (c *odCoord) route(u *odUnit, l odLateIns) (nu *odUnit, deferred bool) {
	j := l.level
	w := l.w
	n, pc := u.tp(j), u.tp(j+1)
	// The levels and T nodes below the reporter's node on the way (its
	// path's first j levels and j+1 nodes come before them): a run can
	// be 50,000 steps deep and report 10,000 late sequences (GoKer's
	// Grpc3017), so nothing on the way is O(j) but what makes a new unit
	// or defers the sequence, which few do.
	var levels []odLevel
	var tp []*tnode
	pre := append(append([]*pevent(nil), u.lv(j).before...), u.lv(j).take)
	first := true
	var woken []*pevent // the steps failed at the levels above (wakeAt)
	// owner is the unit whose node is the deepest on the way (the
	// subtree the sequence ends in is its): below the reporter's node,
	// found as the sequence descends; above, looked up when needed.
	var owner *odUnit
	for {
		if len(w) == 0 {
			return nil, false
		}
		var next *tnode
		var w2 []*pevent
		failed := append([]*pevent(nil), pre...)
		for _, ch := range n.children {
			// At the reporter's node, the steps explored after its
			// own: not its own, nor those explored before it, asleep
			// for it. (Not the children after its own in T: T orders
			// children as they became known, and a unit's step as it
			// ran can be a child T learned after others, or the same
			// T child as a sibling: the insertion then skipped the
			// sequences units made there since, and each reporter of
			// the same race made the same unit again, without end on
			// gen2233.)
			if first && (ch == pc || pcontains(u.lv(j).before, ch.ev)) {
				continue
			}
			x, ok := c.d.checkInitial(ch.ev, w)
			if !ok {
				failed = append(failed, ch.ev)
				continue
			}
			if len(ch.children) == 0 {
				return nil, false
			}
			next, w2 = ch, x
			break
		}
		if next == nil {
			if len(w) == 1 && pcontains(failed, w[0]) {
				// A leaf that is a step taken here already (a select
				// case not ready here stands for a ready one): the
				// sequential exploration skips it (backtrack).
				return nil, false
			}
			if c.coveredByRun(u, l) {
				// A run explored already has it as a prefix (up to
				// equivalence): the sequential insert finds it in the
				// wakeup tree the run was explored from.
				c.runCovered++
				return nil, false
			}
			wake := wakeAt(w, append(woken, failed...), c.d.names)
			if s, ok := c.waiting[n]; ok {
				// The node is in the wakeup tree of a unit not started:
				// w is its last child there, as the sequential insert
				// makes it, asleep for the children before it.
				m, t := s.w, n
				for i, x := range w {
					k := &wnode{ev: x, wake: wake[i]}
					m.children = append(m.children, k)
					t = t.child(x)
					c.waiting[t] = wslot{s.u, k}
					m = k
				}
				c.merged++
				return nil, false
			}
			if owner == nil {
				owner = c.ownerAbove(u, j)
			}
			if owner != nil && c.live[owner] {
				// The subtree of a unit being explored: the sequential
				// insert would have put w into its wakeup tree before
				// it was explored. The unit is asked to hand its rest
				// back, and w is routed again then: into the wakeup
				// tree of a unit of that rest if it ends there.
				if len(c.deferred[owner]) == 0 {
					c.yield = append(c.yield, owner)
				}
				c.deferred[owner] = append(c.deferred[owner], odDeferred{u, l})
				c.defers++
				return nil, true
			}
			levels = append(u.levels(j), levels...)
			tp = append(u.tps(j+1), tp...)
			// The steps the finished units' runs took at n (their
			// reported runs, ODFrag.Ran): the sequential exploration
			// appends w to n's wakeup tree after them, so they are
			// explored there before w, done and asleep for it. T has
			// only the units' paths and starting wakeup trees, not the
			// children a unit's own races added at its nodes: without
			// them, a unit made of a late sequence whose first step a
			// finished unit had taken at n explored that step's classes
			// again (closeWakesSelectsNoTimer: the 40 classes below its
			// second worker's start, found by the unit of the first
			// worker's start from a race of its own, and later by a
			// late sequence of a unit beside it).
			if ex := c.exploredAt(tp); len(ex) > 0 {
				if pcontains(ex, w[0]) {
					// Its first step is a choice explored at n: the
					// sequential backtrack skips it, leaf or not.
					c.ranTaken++
					return nil, false
				}
				// A step that stands for one explored there (a select
				// case not ready at n) is skipped by the unit
				// (odTakenBefore), which knows the node's choices.
				failed = append(failed, ex...)
				wake = wakeAt(w, append(woken, failed...), c.d.names)
			}
			nu = &odUnit{own: append(levels, odLevel{take: w[0], before: failed, wake: wake[0]})}
			nu.w = &wnode{}
			m := nu.w
			for i, x := range w[1:] {
				k := &wnode{ev: x, wake: wake[i+1]}
				m.children = []*wnode{k}
				m = k
			}
			c.register(nu, tp)
			return nu, false
		}
		levels = append(levels, odLevel{take: next.ev, before: failed})
		woken = append(woken, failed...)
		tp = append(tp, next)
		if o, ok := c.unitAt[next]; ok {
			owner = o
		}
		n, w, pre, first = next, w2, nil, false
	}
}

// addExplored adds the runs ran, made below the T node t (a unit's), to
// the runs explored there (at most odCoveredMax nodes in all).
func (c *odCoord) addExplored(t *tnode, ran *wnode) {
	if t.ran == nil {
		t.ran = &wnode{}
	}
	var add func(x, r *wnode)
	add = func(x, r *wnode) {
		for _, rc := range r.children {
			if xc := c.xchild(x, rc.ev); xc != nil {
				add(xc, rc)
			}
		}
	}
	add(t.ran, ran)
}

// xchild is x's child of step ev, made if there is none and the bound
// allows (else nil).
func (c *odCoord) xchild(x *wnode, ev *pevent) *wnode {
	for _, k := range x.children {
		if psame(k.ev, ev) {
			return k
		}
	}
	if c.xn >= odCoveredMax {
		return nil
	}
	c.xn++
	k := &wnode{ev: ev}
	x.children = append(x.children, k)
	return k
}

// coveredByRun reports whether a complete run a unit explored below the
// node of level l.level of u's path has l's sequence w as a prefix up to
// equivalence (E.w ⊑ E.R: each step of R before the end of w is an
// initial of what is left of w, used up, or independent of all of it).
// The sequential insert of w finds it so in the wakeup tree R was
// explored from, or sleeps it for the step R took first there: seed-002
// §6 claims a sequence for a new owner when "it can be inserted into T,
// [so] nobody has an equivalent one", which holds only if T knows what
// the owners explored, not only the paths and wakeup trees they started
// with. The search goes through T (the units' paths and wakeup trees) to
// the runs reported at its nodes, and visits at most odSearchMax nodes.
func (c *odCoord) coveredByRun(u *odUnit, l odLateIns) bool {
	if c.xn == 0 {
		return false
	}
	budget := odSearchMax
	var inRuns func(x *wnode, w []*pevent) bool
	inRuns = func(x *wnode, w []*pevent) bool {
		if len(w) == 0 {
			return true
		}
		for _, k := range x.children {
			if budget--; budget < 0 {
				return false
			}
			if w2, ok := c.d.checkInitial(k.ev, w); ok && inRuns(k, w2) {
				return true
			}
		}
		return false
	}
	var inT func(t *tnode, w []*pevent) bool
	inT = func(t *tnode, w []*pevent) bool {
		if t.ran != nil && inRuns(t.ran, w) {
			return true
		}
		for _, ch := range t.children {
			if budget--; budget < 0 {
				return false
			}
			if w2, ok := c.d.checkInitial(ch.ev, w); ok && inT(ch, w2) {
				return true
			}
		}
		return false
	}
	return inT(u.tp(l.level), l.w)
}

// exploredAt is the steps taken at the last node of the T path tp (from
// the root) by the complete runs the units reported at the nodes of tp
// (tnode.ran), followed down to it by the path's steps.
func (c *odCoord) exploredAt(tp []*tnode) []*pevent {
	if c.xn == 0 || len(tp) == 0 {
		return nil
	}
	var out []*pevent
	for i, t := range tp {
		x := t.ran
		for k := i + 1; x != nil && k < len(tp); k++ {
			var next *wnode
			for _, ch := range x.children {
				if psame(ch.ev, tp[k].ev) {
					next = ch
					break
				}
			}
			x = next
		}
		if x == nil {
			continue
		}
		for _, ch := range x.children {
			if !pcontains(out, ch.ev) {
				out = append(out, ch.ev)
			}
		}
	}
	return out
}

// ownerAbove is the unit whose node is the deepest of the first j+1 T
// nodes of u's path, or nil.
func (c *odCoord) ownerAbove(u *odUnit, j int) *odUnit {
	for i := j; i >= 0; i-- {
		if o, ok := c.unitAt[u.tp(i)]; ok {
			return o
		}
	}
	return nil
}

func pcontains(s []*pevent, p *pevent) bool {
	for _, x := range s {
		if psame(x, p) {
			return true
		}
	}
	return false
}

// --- names shared by the units ------------------------------------------

// init makes name 0, the pseudo-object every event reads.
func (u *unionFind) init() {
	if len(u.parent) == 0 {
		u.fresh()
		u.sid[0] = "@world"
		u.byStep["@world"] = 0
	}
}

// sidOf is the portable name of name n: the step that made it, or a
// token unique to this process.
func (u *unionFind) sidOf(n int) string {
	if u.sid[n] == "" {
		if u.tok == "" {
			u.tok = strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		u.sid[n] = "~" + u.tok + "." + strconv.Itoa(n)
		u.byStep[u.sid[n]] = n
	}
	return u.sid[n]
}

// importSid is the name of the portable name s.
func (u *unionFind) importSid(s string) int {
	u.init()
	if n, ok := u.byStep[s]; ok {
		return n
	}
	n := u.fresh()
	u.sid[n] = s
	u.byStep[s] = n
	return n
}

// importEdges merges the names of each pair.
func (u *unionFind) importEdges(es [][2]string) {
	for _, e := range es {
		a, b := u.find(u.importSid(e[0])), u.find(u.importSid(e[1]))
		if a != b {
			u.parent[a] = b
		}
	}
}

// --- units as JSON ------------------------------------------------------

// ODFrag is a unit of a split optimal DPOR (Unit.OD), or, from a unit, a
// report to the coordinator: the sequences its races insert above it
// (Late), or the equivalences of steps it learned (Names alone).
type ODFrag struct {
	// Path is the steps from the root to the unit's node, each with the
	// steps before it there (asleep); W the wakeup tree there.
	Path []ODLevel  `json:"path,omitempty"`
	W    []*ODWNode `json:"w,omitempty"`
	// Late are the sequences to be inserted at nodes of Path (the
	// reporter's), each after the reporter's step there.
	Late []ODLate `json:"late,omitempty"`
	// Names are pairs of steps that name the same object (unionFind).
	Names [][2]string `json:"names,omitempty"`
	// Rest is, from a unit, what is left of it: units that share Path
	// (the path of its stack), unit k's path being Path[:Rest[k].Level]
	// then Rest[k].Take. The coordinator keeps them so (ODCoord.Accept),
	// and gives a unit its whole path when it is dispatched.
	Rest []ODRest `json:"rest,omitempty"`
	// Ran is, from a unit, the complete runs it made below Path (its
	// node), as a tree of their steps (ODWNode): a late sequence one
	// of them covers is dropped by the coordinator (ODCoord.Accept).
	Ran []*ODWNode `json:"ran,omitempty"`

	// depth is, for a unit of a rest not dispatched yet (its Path not
	// filled in), its path's depth (Depth).
	depth int
}

// Depth is the depth of the unit's path.
func (f *ODFrag) Depth() int {
	if f.depth > len(f.Path) {
		return f.depth
	}
	return len(f.Path)
}

// ODRest is a unit of a rest (ODFrag.Rest): its level, its step there
// (with the steps before it, asleep), and the wakeup tree below it.
type ODRest struct {
	Level int        `json:"level"`
	Take  ODLevel    `json:"take"`
	W     []*ODWNode `json:"w,omitempty"`
}

// ODLate is a late sequence: Seq is to be inserted at the node of level
// Level of the reporter's path, after its step there.
type ODLate struct {
	Level int       `json:"level"`
	Seq   []ODEvent `json:"seq"`
}

// ODLevel is one level of a path.
type ODLevel struct {
	Take   ODEvent   `json:"take"`
	Before []ODEvent `json:"before,omitempty"`
	Ran    bool      `json:"ran,omitempty"`
	Wake   []ODEvent `json:"wake,omitempty"` // wnode.wake of Take's node
}

// ODWNode is a node of a wakeup tree. A tree is a list of its nodes in
// preorder, each with the index of its parent in the list (Up, -1 at the
// top), not nested: a wakeup sequence can be as long as a run (33,000
// steps on GoKer's Grpc3017), past encoding/json's 10,000 levels of
// nesting.
type ODWNode struct {
	Ev   ODEvent   `json:"ev"`
	Up   int       `json:"up"`
	Wake []ODEvent `json:"wake,omitempty"` // wnode.wake
}

// ODEvent is a step (pevent) with its objects named by steps. C, S and
// A, one entry per goroutine of G, are left out when each entry is the
// usual one (-1: not a select case; false): a unit's late sequences are
// most of what it reports (lastzero-11's units send up to 512 of them,
// some 27 steps each, in 1.2 MB), and the coordinator decodes them while
// the worker that sent them waits.
type ODEvent struct {
	G   []string `json:"g,omitempty"`
	C   []int    `json:"c,omitempty"`
	S   []bool   `json:"s,omitempty"`
	A   []bool   `json:"a,omitempty"`
	T   string   `json:"t,omitempty"`
	Acc []ODAcc  `json:"acc,omitempty"`
}

// ODAcc is an access of a step: the object's name, write, mutex.
type ODAcc struct {
	N string `json:"n"`
	W bool   `json:"w,omitempty"`
	M bool   `json:"m,omitempty"`
}

func exportEv(p *pevent, u *unionFind) ODEvent {
	e := ODEvent{G: p.gids, T: p.timer}
	for _, c := range p.cases {
		if c != -1 {
			e.C = p.cases
			break
		}
	}
	if anyTrue(p.sel) {
		e.S = p.sel
	}
	if anyTrue(p.arr) {
		e.A = p.arr
	}
	for _, a := range p.acc {
		e.Acc = append(e.Acc, ODAcc{N: u.sidOf(a.name), W: a.write, M: a.mutx})
	}
	return e
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

func importEv(e ODEvent, u *unionFind) *pevent {
	p := &pevent{gids: e.G, cases: e.C, sel: e.S, arr: e.A, timer: e.T}
	if n := len(e.G); n > 0 {
		// The entries left out (exportEv): the usual ones.
		if len(p.cases) == 0 {
			p.cases = make([]int, n)
			for i := range p.cases {
				p.cases[i] = -1
			}
		}
		if len(p.sel) == 0 {
			p.sel = make([]bool, n)
		}
		if len(p.arr) == 0 {
			p.arr = make([]bool, n)
		}
	}
	for _, a := range e.Acc {
		p.acc = append(p.acc, pacc{name: u.importSid(a.N), write: a.W, mutx: a.M})
	}
	return p
}

func exportEvs(ps []*pevent, u *unionFind) []ODEvent {
	var out []ODEvent
	for _, p := range ps {
		out = append(out, exportEv(p, u))
	}
	return out
}

func importEvs(es []ODEvent, u *unionFind) []*pevent {
	var out []*pevent
	for _, e := range es {
		out = append(out, importEv(e, u))
	}
	return out
}

// exportW is the wakeup tree below w as a list of nodes (ODWNode).
func exportW(w *wnode, u *unionFind) []*ODWNode {
	if w == nil {
		return nil
	}
	var out []*ODWNode
	type item struct {
		w  *wnode
		up int
	}
	// Preorder, without recursion: the tree can be a run deep.
	var todo []item
	push := func(w *wnode, up int) {
		for i := len(w.children) - 1; i >= 0; i-- {
			if c := w.children[i]; c.ev != nil {
				todo = append(todo, item{c, up})
			}
		}
	}
	push(w, -1)
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		out = append(out, &ODWNode{Ev: exportEv(it.w.ev, u), Up: it.up, Wake: exportEvs(it.w.wake, u)})
		push(it.w, len(out)-1)
	}
	return out
}

// importW is the wakeup tree of the list ws (exportW).
func importW(ws []*ODWNode, u *unionFind) *wnode {
	w := &wnode{}
	nodes := make([]*wnode, len(ws))
	for i, c := range ws {
		x := &wnode{ev: importEv(c.Ev, u), wake: importEvs(c.Wake, u)}
		nodes[i] = x
		parent := w
		if c.Up >= 0 && c.Up < i {
			parent = nodes[c.Up]
		}
		parent.children = append(parent.children, x)
	}
	return w
}

func exportPath(ls []odLevel, u *unionFind) []ODLevel {
	var out []ODLevel
	for _, l := range ls {
		out = append(out, ODLevel{Take: exportEv(l.take, u), Before: exportEvs(l.before, u), Ran: l.ran, Wake: exportEvs(l.wake, u)})
	}
	return out
}

func importPath(ls []ODLevel, u *unionFind) []odLevel {
	var out []odLevel
	for _, l := range ls {
		out = append(out, odLevel{take: importEv(l.Take, u), before: importEvs(l.Before, u), ran: l.Ran, wake: importEvs(l.Wake, u)})
	}
	return out
}

// --- a unit in a worker -------------------------------------------------

// newODForUnit is the optimal DPOR that explores the unit f.
func newODForUnit(f *ODFrag) *DPOR {
	names := newUnionFind()
	names.importEdges(f.Names)
	u := &odUnit{own: importPath(f.Path, names), w: importW(f.W, names)}
	d := newODUnitDPOR(u, names)
	d.od.frag = f
	names.track = true
	return d
}

// odRestUnit is UnitState.Rest: the unit itself if it has not run, else
// nil (what it has not explored is in Spawned).
func (d *DPOR) odRestUnit() *Unit {
	if !d.od.ran && !d.over && !d.diverged {
		f := *d.od.frag
		return &Unit{Strategy: "odpor", OD: &f}
	}
	return nil
}

// odSpawned is UnitState.Spawned: the units of what is left of the unit,
// the sequences its races insert above it, and the names it learned.
func (d *DPOR) odSpawned() []Unit {
	if !d.od.ran || d.od.handed {
		return nil
	}
	d.od.handed = true
	u := d.names
	var out []Unit
	if d.od.explored != nil {
		// First: the unit's late sequences, after it, are routed
		// knowing its runs.
		out = append(out, Unit{Strategy: "odpor", OD: &ODFrag{Path: exportPath(d.od.levels, u), Ran: exportW(d.od.explored, u)}})
		d.od.explored, d.od.xn = nil, 0
	}
	levels, rest := d.odRest()
	// The deepest units come first, each level's in order: they place
	// the steps being explored in T before their siblings.
	sort.SliceStable(rest, func(i, j int) bool { return len(rest[i].pre) > len(rest[j].pre) })
	if len(rest) > 0 {
		// One report for the whole rest: the path once, down to the
		// deepest unit's level, and each unit's own level.
		f := &ODFrag{Path: exportPath(levels[:len(rest[0].pre)], u)}
		for _, r := range rest {
			l := exportPath(r.own, u)[0]
			f.Rest = append(f.Rest, ODRest{Level: len(r.pre), Take: l, W: exportW(r.w, u)})
		}
		out = append(out, Unit{Strategy: "odpor", OD: f})
	}
	if len(d.od.late) > 0 {
		f := &ODFrag{Path: exportPath(d.od.levels, u)}
		for _, l := range d.od.late {
			f.Late = append(f.Late, ODLate{Level: l.level, Seq: exportEvs(l.w, u)})
		}
		out = append(out, Unit{Strategy: "odpor", OD: f})
	}
	d.od.late = nil
	if len(u.log) > 0 {
		out = append(out, Unit{Strategy: "odpor", OD: &ODFrag{Names: u.log}})
		u.log = nil
	}
	return out
}

// --- the coordinator ----------------------------------------------------

// ODCoord is the coordinator's side of a split optimal DPOR: the tree T
// of the steps known at each node (seed-002 §6), which the sequences
// races insert above their units are run through, and the names of
// objects learned by every unit.
type ODCoord struct {
	c     *odCoord
	names *unionFind
	edges [][2]string
	// units are the units handed out by Accept, not started yet: their
	// wakeup trees take the late sequences that end in them; running
	// are those being explored, by the unit Dispatch returned.
	units   map[*ODFrag]*odUnit
	running map[*ODFrag]*odUnit
}

// NewODCoord returns an empty coordinator tree.
func NewODCoord() *ODCoord {
	names := newUnionFind()
	names.init()
	c := &odCoord{root: &tnode{}, d: &DPOR{Optimal: true, names: names}, waiting: map[*tnode]wslot{},
		unitAt: map[*tnode]*odUnit{}, live: map[*odUnit]bool{}, deferred: map[*odUnit][]odDeferred{}}
	return &ODCoord{c: c, names: names, units: map[*ODFrag]*odUnit{}, running: map[*ODFrag]*odUnit{}}
}

// Merged is the number of late sequences put into the wakeup tree of a
// unit not started yet (counted as covered by Accept).
func (oc *ODCoord) Merged() int { return oc.c.merged }

// RunCovered is the number of late sequences a run a unit reported as
// explored covered (each a unit that would have explored it again).
func (oc *ODCoord) RunCovered() int { return oc.c.runCovered }

// RanTaken is the number of late sequences dropped because a run a unit
// reported took their first step at the node they end at (exploredAt).
func (oc *ODCoord) RanTaken() int { return oc.c.ranTaken }

// Deferred is the number of late sequences that ended below the node of
// a unit being explored, routed again once it handed its rest back.
func (oc *ODCoord) Deferred() int { return oc.c.defers }

// Accept takes a report of a unit: it returns the units to explore (a
// unit of its rest, placed in T; the new units late sequences make, none
// for those T covers or that are deferred), the number of late sequences
// in s and of those T covered.
func (oc *ODCoord) Accept(s Unit) (units []Unit, late, covered int) {
	f := s.OD
	if len(f.Names) > 0 {
		oc.names.importEdges(f.Names)
		oc.edges = append(oc.edges, f.Names...)
	}
	if len(f.Ran) > 0 {
		u := &odUnit{own: importPath(f.Path, oc.names)}
		oc.c.register(u, nil)
		oc.c.addExplored(u.tp(u.depth()), importW(f.Ran, oc.names))
		return nil, 0, 0
	}
	if len(f.Late) > 0 {
		u := &odUnit{own: importPath(f.Path, oc.names)}
		oc.c.register(u, nil)
		for _, l := range f.Late {
			nu, deferred := oc.c.route(u, odLateIns{level: l.Level, w: importEvs(l.Seq, oc.names)})
			if nu != nil {
				units = append(units, oc.add(nu))
			} else if !deferred {
				covered++
			}
		}
		return units, len(f.Late), covered
	}
	if len(f.Rest) > 0 {
		// A rest: its units share the path, here as in the worker;
		// each is given its whole path when dispatched.
		path := importPath(f.Path, oc.names)
		stack := &odUnit{own: path}
		oc.c.register(stack, nil)
		for _, r := range f.Rest {
			if r.Level > len(path) {
				continue // not made by odSpawned
			}
			own := importPath([]ODLevel{r.Take}, oc.names)
			u := &odUnit{pre: path[:r.Level:r.Level], own: own, w: importW(r.W, oc.names)}
			oc.c.register(u, stack.town[:r.Level+1])
			units = append(units, oc.wait(u, &ODFrag{depth: u.depth()}))
		}
		return units, 0, 0
	}
	if len(f.Path) == 0 && len(f.W) == 0 {
		return nil, 0, 0 // names only
	}
	u := &odUnit{own: importPath(f.Path, oc.names), w: importW(f.W, oc.names)}
	oc.c.register(u, nil)
	oc.wait(u, f)
	return []Unit{s}, 0, 0
}

// add makes the new unit nu a unit waiting.
func (oc *ODCoord) add(nu *odUnit) Unit {
	return oc.wait(nu, &ODFrag{Path: exportPath(nu.own, oc.names), W: exportW(nu.w, oc.names)})
}

// wait makes u, placed in T, a unit waiting, as f.
func (oc *ODCoord) wait(u *odUnit, f *ODFrag) Unit {
	oc.units[f] = u
	oc.c.unitAt[u.tp(u.depth())] = u
	oc.c.wait(u)
	return Unit{Strategy: "odpor", OD: f}
}

// Dispatch gives u, about to be explored, the names learned so far.
func (oc *ODCoord) Dispatch(u Unit) Unit {
	if u.OD == nil {
		return u
	}
	f := *u.OD
	ou, ok := oc.units[u.OD]
	if ok {
		// Its wakeup tree, with the late sequences put into it.
		delete(oc.units, u.OD)
		oc.c.start(ou)
		f.W = exportW(ou.w, oc.names)
		if len(f.Path) < ou.depth() {
			// A unit of a rest: its whole path, now.
			f.Path, f.depth = exportPath(ou.levels(ou.depth()), oc.names), 0
		}
	}
	if len(oc.edges) > 0 && os.Getenv("HEDDLE_X_NONAMES") == "" {
		f.Names = oc.edges
	}
	u.OD = &f
	if ok {
		oc.running[u.OD] = ou
		oc.c.live[ou] = true
	}
	return u
}

// Yield is the units (as Dispatch returned them) to ask for their rest
// at once: late sequences wait for it (Finish).
func (oc *ODCoord) Yield() []*ODFrag {
	var out []*ODFrag
	for _, ou := range oc.c.yield {
		for f, o := range oc.running {
			if o == ou {
				out = append(out, f)
			}
		}
	}
	oc.c.yield = nil
	return out
}

// Finish takes u (as Dispatch returned it) back, once its report was
// accepted: the late sequences deferred for it are routed again; it
// returns the units they make.
func (oc *ODCoord) Finish(u Unit) []Unit {
	ou, ok := oc.running[u.OD]
	if !ok {
		return nil
	}
	delete(oc.running, u.OD)
	delete(oc.c.live, ou)
	ds := oc.c.deferred[ou]
	delete(oc.c.deferred, ou)
	var out []Unit
	for _, d := range ds {
		if nu, _ := oc.c.route(d.u, d.l); nu != nil {
			out = append(out, oc.add(nu))
		}
	}
	return out
}
