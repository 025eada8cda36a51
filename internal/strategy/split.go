package strategy

import (
	"fmt"
	"os"
	"strings"
	"time"

	"heddle.dev/internal/engine"
)

// Splitting one test's exploration into units (issue 12): heddle test
// -parallel explores the units of a test in several worker processes, and
// -shard in several jobs. A unit is a range of run numbers for the
// randomized strategies, whose runs depend only on the seed and the run
// number (runRNG), and a subtree of the exploration tree for DFS and
// source DPOR (ETA's n-partitioned DFS, seed-000 ch.5, with the sleep-set
// order of seed-002's digest, §4.4: an entry split off at a node sleeps
// only the entries explored there before it).

// RunBlock is the alignment of the run ranges Split makes: PCT learns its
// bounds within blocks of RunBlock runs (so that a run's schedule depends
// only on the seed and its number), and a range that starts a block needs
// nothing from the runs before it.
const RunBlock = 64

// Unit is one share of one test's exploration, serializable as JSON.
type Unit struct {
	Strategy string `json:"strategy"`
	// From and To are, for a randomized strategy, the runs From..To-1
	// (the run numbers of the sequential exploration). To 0: no end.
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
	// Frag is, for a systematic strategy, the subtree the unit explores.
	Frag *Fragment `json:"frag,omitempty"`
	// Pass is, for iterative preemption or delay bounding (ipb, idb),
	// the bound of the pass the subtree is of: the units of pass c+1 are
	// explored once every unit of pass c is finished (Coordinate), as
	// the sequential passes follow each other.
	Pass int `json:"pass,omitempty"`
	// OD is, for optimal DPOR, the unit (odsplit.go).
	OD *ODFrag `json:"od,omitempty"`
}

// Fragment is a subtree of a DFS or source-DPOR exploration: the stack of
// scheduling points from the root down (each with the choice taken now),
// of which the unit owns, at Nodes[Floor], the choices still to explore
// there (all of them at DFS's node; Own at source DPOR's, all when Own is
// nil) and everything below them. The nodes above Floor are context: only
// their choice taken is replayed. No nodes: the whole tree.
type Fragment struct {
	Floor int        `json:"floor"`
	Nodes []FragNode `json:"nodes,omitempty"`
	Own   []string   `json:"own,omitempty"`
	// Fresh: the choice taken at Floor was split off and has not run yet
	// (the other cases of its select are to be added when it does).
	Fresh bool `json:"fresh,omitempty"`
	// Skipped: a bounded DFS left out a choice of this subtree (over its
	// bound, or past its depth bound) in a slice explored before.
	Skipped bool `json:"skipped,omitempty"`
}

// FragNode is one scheduling point of a Fragment.
type FragNode struct {
	// DFS: the choices in exploration order, their costs, the position of
	// the one taken now, the number of choices and the cost before.
	Order []int `json:"order,omitempty"`
	Costs []int `json:"costs,omitempty"`
	Next  int   `json:"next,omitempty"`
	N     int   `json:"n,omitempty"`
	Base  int   `json:"base,omitempty"`
	// Source DPOR (see dnode).
	Pos      int      `json:"pos,omitempty"`
	NChoice  int      `json:"nchoice,omitempty"`
	PCBefore int      `json:"pcb,omitempty"`
	PrevG    string   `json:"prevg,omitempty"`
	Keys     []string `json:"keys,omitempty"`
	Idx      []int    `json:"idx,omitempty"`
	Taken    string   `json:"taken,omitempty"`
	Done     []string `json:"done,omitempty"`
	BT       []string `json:"bt,omitempty"`
	// Given are choices split off to other units while the one taken
	// runs: not explored here, and asleep for the choices taken after it.
	Given []string `json:"given,omitempty"`
}

// SplitKind says how the exploration of strategy name splits: "runs"
// (random, pct, pos), "tree" (dfs, sdpor, ipb, idb) or "" (not split).
//
// Optimal DPOR (odpor) splits into subtrees only with HEDDLE_SPLIT_ODPOR
// set (odsplit.go): the split is sound (TestParallelEqualsSequential), but
// its units explore some tests several times over (readers(11): 9,782
// runs for 2,048), so by default an odpor test runs in one worker.
func SplitKind(name string) string {
	switch name {
	case "random", "pct", "pos":
		return "runs"
	case "dfs", "sdpor", "ipb", "idb":
		return "tree"
	case "odpor":
		if os.Getenv("HEDDLE_SPLIT_ODPOR") != "" {
			return "tree" // opt-in: see odsplit.go
		}
	}
	return ""
}

// RootUnit is the whole exploration of strategy name with a budget of
// runs runs (0: no bound in runs).
func RootUnit(name string, runs int) Unit {
	u := Unit{Strategy: name}
	if name == "odpor" {
		u.OD = &ODFrag{}
		return u
	}
	switch SplitKind(name) {
	case "runs":
		u.From = 1
		if runs > 0 {
			u.To = runs + 1
		}
	case "tree":
		u.Frag = &Fragment{}
	}
	return u
}

// Runs is the number of runs of a run range (0 if it has no end).
func (u Unit) Runs() int {
	if u.Frag != nil || u.OD != nil || u.To == 0 {
		return 0
	}
	return u.To - u.From
}

// String describes the unit for logs.
func (u Unit) String() string {
	if u.OD != nil {
		return fmt.Sprintf("%s subtree at depth %d", u.Strategy, len(u.OD.Path))
	}
	if u.Frag == nil {
		if u.To == 0 {
			return fmt.Sprintf("%s runs %d..", u.Strategy, u.From)
		}
		return fmt.Sprintf("%s runs %d..%d", u.Strategy, u.From, u.To-1)
	}
	var p []string
	for i, n := range u.Frag.Nodes {
		if i > u.Frag.Floor {
			break
		}
		if n.Order == nil {
			p = append(p, n.Taken)
		} else if len(n.Order) > 0 {
			p = append(p, fmt.Sprint(n.Order[n.Next]))
		}
	}
	return fmt.Sprintf("%s subtree [%s]", u.Strategy, strings.Join(p, " "))
}

// Split divides u into at most n disjoint units whose union is u: a run
// range into ranges aligned to RunBlock, a subtree at its shallowest
// nodes with choices left. A unit that cannot be split (a range of one
// block, a subtree before its first run) is returned alone.
func Split(u Unit, n int) []Unit {
	if n <= 1 || u.OD != nil {
		return []Unit{u} // optimal DPOR: a unit's rest comes as units (Spawned)
	}
	if u.Frag == nil {
		return splitRuns(u, n)
	}
	units := []Unit{u}
	for len(units) < n {
		grew := false
		for i := 0; i < len(units) && len(units) < n; i++ {
			a, b, ok := splitFrag(units[i])
			if !ok {
				continue
			}
			units[i] = a
			units = append(units, b)
			grew = true
		}
		if !grew {
			break
		}
	}
	return units
}

func splitRuns(u Unit, n int) []Unit {
	if u.To == 0 {
		return []Unit{u}
	}
	runs := u.To - u.From
	blocks := (runs + RunBlock - 1) / RunBlock
	if blocks < n {
		n = blocks
	}
	if n <= 1 {
		return []Unit{u}
	}
	var out []Unit
	from := u.From
	for i := 0; i < n; i++ {
		// Blocks per unit, as even as possible; ranges start at block
		// boundaries of the sequential numbering when u does.
		nb := blocks / n
		if i < blocks%n {
			nb++
		}
		to := from + nb*RunBlock
		if to > u.To || i == n-1 {
			to = u.To
		}
		out = append(out, Unit{Strategy: u.Strategy, From: from, To: to})
		from = to
	}
	return out
}

// splitFrag splits off some choices of the shallowest owned node that
// has choices left besides the one taken now: b explores them, a keeps
// the rest.
func splitFrag(u Unit) (a, b Unit, ok bool) {
	f := u.Frag
	for i := f.Floor; i < len(f.Nodes); i++ {
		nd := f.Nodes[i]
		if nd.Order != nil {
			// DFS: the choices after Next are left.
			rem := len(nd.Order) - nd.Next - 1
			if rem < 1 {
				continue
			}
			cut := nd.Next + 1 + rem/2
			fa, fb := f.clone(i+1), f.clone(i+1)
			fa.Nodes = f.cloneNodes()
			fa.Nodes[i].Order = append([]int(nil), nd.Order[:cut]...)
			fa.Nodes[i].Costs = append([]int(nil), nd.Costs[:cut]...)
			fb.Nodes[i].Order = append([]int(nil), nd.Order[cut:]...)
			fb.Nodes[i].Costs = append([]int(nil), nd.Costs[cut:]...)
			fb.Nodes[i].Next = 0
			fb.Floor = i
			return Unit{Strategy: u.Strategy, Frag: fa, Pass: u.Pass}, Unit{Strategy: u.Strategy, Frag: fb, Pass: u.Pass}, true
		}
		// Source DPOR: the owned backtrack choices not explored yet.
		var rem []string
		for _, k := range nd.BT {
			if k == nd.Taken || contains(nd.Done, k) || contains(nd.Given, k) {
				continue
			}
			if i == f.Floor && f.Own != nil && !contains(f.Own, k) {
				continue
			}
			rem = append(rem, k)
		}
		if len(rem) < 1 {
			continue
		}
		give := rem[len(rem)-(len(rem)+1)/2:]
		fa := f.clone(len(f.Nodes))
		fa.Nodes = f.cloneNodes()
		fa.Nodes[i].Given = append(fa.Nodes[i].Given, give...)
		if i == f.Floor && fa.Own != nil {
			var own []string
			for _, k := range fa.Own {
				if !contains(give, k) {
					own = append(own, k)
				}
			}
			fa.Own = own
		}
		// b explores give[0] first, then the others, each asleep for the
		// later ones; every choice explored or taken at the node before
		// (Done, which holds the one taken now) sleeps for them all. The
		// choices a keeps sleep the given ones (Given), not the reverse:
		// the order is Done < give < a's rest (seed-002's digest: a
		// mutual split loses classes).
		fb := f.clone(i + 1)
		fb.Floor = i
		fb.Own = append([]string(nil), give...)
		fb.Fresh = true
		nb := &fb.Nodes[i]
		nb.Taken = give[0]
		nb.Done = append(append([]string(nil), nd.Done...), give[0])
		nb.Given = nil
		return Unit{Strategy: u.Strategy, Frag: fa}, Unit{Strategy: u.Strategy, Frag: fb}, true
	}
	return u, Unit{}, false
}

// clone copies the fragment with its first n nodes (deep).
func (f *Fragment) clone(n int) *Fragment {
	c := &Fragment{Floor: f.Floor, Own: append([]string(nil), f.Own...), Fresh: f.Fresh, Skipped: f.Skipped}
	if f.Own == nil {
		c.Own = nil
	}
	for i := 0; i < n && i < len(f.Nodes); i++ {
		c.Nodes = append(c.Nodes, f.Nodes[i].clone())
	}
	return c
}

func (f *Fragment) cloneNodes() []FragNode {
	var ns []FragNode
	for _, n := range f.Nodes {
		ns = append(ns, n.clone())
	}
	return ns
}

func (n FragNode) clone() FragNode {
	c := n
	c.Order = append([]int(nil), n.Order...)
	c.Costs = append([]int(nil), n.Costs...)
	c.Keys = append([]string(nil), n.Keys...)
	c.Idx = append([]int(nil), n.Idx...)
	c.Done = append([]string(nil), n.Done...)
	c.BT = append([]string(nil), n.BT...)
	c.Given = append([]string(nil), n.Given...)
	return c
}

// UnitState is implemented by the strategies NewForUnit returns for
// subtrees, read after the exploration stopped.
type UnitState interface {
	// Rest is what is left of the unit, nil when it is finished.
	Rest() *Unit
	// Spawned returns, and forgets, the units of work found outside the
	// unit (source DPOR's backtrack points above its subtree): someone
	// must explore them for the union of the units to be the sequential
	// exploration (Frontier.Claim keeps one of each).
	Spawned() []Unit
}

// NewForUnit returns the strategy that explores exactly u: for a run
// range the ordinary strategy (the explorer numbers the runs), for a
// subtree a DFS or source DPOR restricted to it.
func NewForUnit(o Options, u Unit) (engine.Strategy, error) {
	if u.OD != nil {
		return newODForUnit(u.OD), nil
	}
	if u.Frag == nil {
		if SplitKind(u.Strategy) != "runs" {
			return nil, fmt.Errorf("strategy %s does not split by runs", u.Strategy)
		}
		return New(u.Strategy, o)
	}
	switch u.Strategy {
	case "dfs":
		d := NewDFS(o.MaxDepth)
		d.restore(u)
		return d, nil
	case "ipb", "idb":
		// A subtree of the pass with bound u.Pass: the bounded DFS of
		// that pass (Iterative's), which spawns the next pass's root
		// when it left out a choice over its bound.
		d := NewBoundedDFS(u.Strategy == "idb", u.Pass)
		d.restore(u)
		d.sub.maxBound = maxBound(o)
		return d, nil
	case "sdpor":
		d := NewSourceDPOR()
		d.restore(u.Frag)
		return d, nil
	}
	return nil, fmt.Errorf("strategy %s does not split into subtrees", u.Strategy)
}

// unitInfo is what a DFS or DPOR restricted to a fragment keeps.
type unitInfo struct {
	floor   int
	own     []string // DPOR: the choices owned at floor (nil: all)
	fresh   bool
	spawned []Unit
	// DFS: the unit's strategy and pass (ipb, idb), the last bound to
	// explore (negative: none) and whether the next pass was spawned.
	strategy string
	pass     int
	maxBound int
	next     bool
}

// DFS.

func (d *DFS) restore(u Unit) {
	f := u.Frag
	d.sub = &unitInfo{floor: f.Floor, strategy: u.Strategy, pass: u.Pass}
	d.skipped = f.Skipped
	for _, n := range f.Nodes {
		d.stack = append(d.stack, dfsNode{order: append([]int(nil), n.Order...), costs: append([]int(nil), n.Costs...), next: n.Next, n: n.N, base: n.Base, keys: append([]string(nil), n.Keys...)})
	}
	if len(f.Nodes) > 0 && f.Nodes[len(f.Nodes)-1].Next >= len(f.Nodes[len(f.Nodes)-1].Order) {
		d.done = true
	}
}

// Rest implements UnitState.
func (d *DFS) Rest() *Unit {
	if d.done || d.Diverged {
		return nil
	}
	f := &Fragment{Skipped: d.skipped}
	u := &Unit{Strategy: "dfs", Frag: f}
	if d.sub != nil {
		f.Floor = d.sub.floor
		u.Strategy, u.Pass = d.sub.strategy, d.sub.pass
	}
	for _, n := range d.stack {
		f.Nodes = append(f.Nodes, FragNode{Order: append([]int(nil), n.order...), Costs: append([]int(nil), n.costs...), Next: n.next, N: n.n, Base: n.base, Keys: append([]string(nil), n.keys...)})
	}
	return u
}

// Spawned implements UnitState: a DFS subtree needs nothing outside it;
// a finished subtree of a pass of ipb or idb that left out a choice over
// the pass's bound needs the next pass (Iterative.Begin), which
// Coordinate starts once every subtree of this pass is finished.
func (d *DFS) Spawned() []Unit {
	if d.sub == nil || d.cost == nil || !d.done || d.Diverged || !d.skipped || d.sub.next || !d.morePasses() {
		return nil
	}
	d.sub.next = true
	return []Unit{{Strategy: d.sub.strategy, Pass: d.sub.pass + 1, Frag: &Fragment{}}}
}

// morePasses reports whether a unit of ipb or idb has passes after its own.
func (d *DFS) morePasses() bool {
	return d.sub.maxBound < 0 || d.sub.pass < d.sub.maxBound
}

// Source DPOR.

func (d *DPOR) restore(f *Fragment) {
	d.unit = &unitInfo{floor: f.Floor, own: append([]string(nil), f.Own...), fresh: f.Fresh}
	if f.Own == nil {
		d.unit.own = nil
	}
	for _, n := range f.Nodes {
		nd := &dnode{pos: n.Pos, nChoic: n.NChoice, pcBefore: n.PCBefore, prevG: n.PrevG, taken: n.Taken,
			keys: append([]string(nil), n.Keys...), idx: append([]int(nil), n.Idx...),
			done: append([]string(nil), n.Done...), bt: append([]string(nil), n.BT...),
			given: append([]string(nil), n.Given...), wut: &wnode{}, pend: map[string]*event{}}
		d.stack = append(d.stack, nd)
	}
}

// Rest implements UnitState.
func (d *DPOR) Rest() *Unit {
	if d.od != nil {
		return d.odRestUnit()
	}
	if d.over || d.diverged {
		return nil
	}
	f := &Fragment{}
	if d.unit != nil {
		f.Floor, f.Own, f.Fresh = d.unit.floor, append([]string(nil), d.unit.own...), d.unit.fresh
		if d.unit.own == nil {
			f.Own = nil
		}
	}
	for _, nd := range d.stack {
		f.Nodes = append(f.Nodes, FragNode{Pos: nd.pos, NChoice: nd.nChoic, PCBefore: nd.pcBefore, PrevG: nd.prevG, Taken: nd.taken,
			Keys: append([]string(nil), nd.keys...), Idx: append([]int(nil), nd.idx...),
			Done: append([]string(nil), nd.done...), BT: append([]string(nil), nd.bt...), Given: append([]string(nil), nd.given...)})
	}
	return &Unit{Strategy: "sdpor", Frag: f}
}

// Spawned implements UnitState.
func (d *DPOR) Spawned() []Unit {
	if d.od != nil {
		return d.odSpawned()
	}
	if d.unit == nil {
		return nil
	}
	s := d.unit.spawned
	d.unit.spawned = nil
	return s
}

// owns reports whether the unit explores choice k at stack index i.
func (d *DPOR) owns(i int, k string) bool {
	u := d.unit
	if u == nil || i > u.floor {
		return true
	}
	return i == u.floor && (u.own == nil || contains(u.own, k))
}

// btLens is the number of backtrack choices at the nodes the unit does
// not own entirely, before the race analysis.
func (d *DPOR) btLens() []int {
	if d.unit == nil {
		return nil
	}
	var l []int
	for i := 0; i <= d.unit.floor && i < len(d.stack); i++ {
		l = append(l, len(d.stack[i].bt))
	}
	return l
}

// spawn turns the backtrack choices the race analysis added at nodes the
// unit does not own into units of their own: the node's context, with
// the choice taken there and every choice explored there before asleep.
func (d *DPOR) spawn(before []int) {
	for i, n := range before {
		nd := d.stack[i]
		for _, k := range nd.bt[n:] {
			if d.owns(i, k) {
				continue
			}
			f := &Fragment{Floor: i, Own: []string{k}, Fresh: true}
			for j := 0; j <= i; j++ {
				c := d.stack[j]
				f.Nodes = append(f.Nodes, FragNode{Pos: c.pos, NChoice: c.nChoic, PCBefore: c.pcBefore, PrevG: c.prevG, Taken: c.taken,
					Keys: append([]string(nil), c.keys...), Idx: append([]int(nil), c.idx...),
					Done: append([]string(nil), c.done...), BT: append([]string(nil), c.bt...)})
			}
			last := &f.Nodes[i]
			last.Taken = k
			last.Done = appendNew(last.Done, k)
			d.unit.spawned = append(d.unit.spawned, Unit{Strategy: "sdpor", Frag: f})
		}
	}
}

// freshCases adds, on the first run of a split-off choice, the other
// cases of its select to the backtrack set (as backtrack does when it
// takes a choice), owned by the unit.
func (d *DPOR) freshCases(i int, nd *dnode) {
	if d.unit == nil || !d.unit.fresh || i != d.unit.floor {
		return
	}
	d.unit.fresh = false
	for _, k2 := range nd.keys {
		if otherCase(nd.pend[nd.taken], nd.pend[k2]) {
			nd.bt = appendNew(nd.bt, k2)
			if d.unit.own != nil {
				d.unit.own = appendNew(d.unit.own, k2)
			}
		}
	}
}

// Frontier is the coordinator's record of the units handed out (ETA's
// master copy, seed-000 §5.2.5): the choices claimed at each node, for
// "first claimer wins", and the order in which they were taken, for the
// sleep sets of the units claimed later.
type Frontier struct {
	claimed map[string]map[string]bool
	taken   map[string][]string
}

// NewFrontier returns an empty frontier.
func NewFrontier() *Frontier {
	return &Frontier{claimed: map[string]map[string]bool{}, taken: map[string][]string{}}
}

func pathKey(f *Fragment, i int) string {
	var b strings.Builder
	for j := 0; j < i; j++ {
		b.WriteString(f.Nodes[j].Taken)
		b.WriteByte(0)
	}
	return b.String()
}

func (fr *Frontier) claim(p, k string) {
	m := fr.claimed[p]
	if m == nil {
		m = map[string]bool{}
		fr.claimed[p] = m
	}
	m[k] = true
}

// Record notes the choices a source-DPOR unit owns or has taken.
func (fr *Frontier) Record(u Unit) {
	f := u.Frag
	if f == nil || len(f.Nodes) == 0 || f.Nodes[0].Order != nil {
		return
	}
	for i, n := range f.Nodes {
		p := pathKey(f, i)
		for _, k := range n.Done {
			fr.claim(p, k)
			fr.taken[p] = appendNew(fr.taken[p], k)
		}
		if i < f.Floor {
			continue
		}
		for _, k := range n.BT {
			if i > f.Floor || f.Own == nil || contains(f.Own, k) {
				fr.claim(p, k)
			}
		}
	}
}

// Claim decides a spawned unit: false if its choice is claimed already
// (another unit explores it); otherwise the unit, with the choices taken
// at its node before it asleep, now claimed.
func (fr *Frontier) Claim(u Unit) (Unit, bool) {
	f := u.Frag
	if f == nil || len(f.Own) != 1 || f.Floor >= len(f.Nodes) {
		return u, true
	}
	p, k := pathKey(f, f.Floor), f.Own[0]
	if fr.claimed[p][k] {
		return u, false
	}
	fr.claim(p, k)
	nd := &f.Nodes[f.Floor]
	for _, t := range fr.taken[p] {
		nd.Done = appendNew(nd.Done, t)
	}
	nd.Done = appendNew(nd.Done, k)
	fr.taken[p] = appendNew(fr.taken[p], k)
	return u, true
}

// Outcome is what a worker reports after exploring (part of) a unit.
type Outcome struct {
	Rest    *Unit  // what is left of the unit, nil when it is finished
	Spawned []Unit // work found outside the unit (UnitState.Spawned)
	Stop    bool   // stop the whole exploration (a bug, without -keep-going)
}

// CoordStats counts what a Coordinate did, for measuring a split: none of
// it depends on the load of the machine but Idle.
type CoordStats struct {
	Units   int // units explored (one worker process each)
	Yields  int // units asked to hand their rest back early
	Spawned int // units found outside a unit (source DPOR)
	Dropped int // of those, choices another unit had claimed already
	// Idle is the time workers waited for work while others explored
	// (summed over workers): the imbalance of the split.
	Idle time.Duration
}

func (s CoordStats) String() string {
	return fmt.Sprintf("%d units, %d yields, %d spawned (%d dropped as claimed), idle %.2fs", s.Units, s.Yields, s.Spawned, s.Dropped, s.Idle.Seconds())
}

// YieldAfter is how long a unit explores before Coordinate may ask it to
// hand its rest back for an idle worker: enough for its first run, which
// makes the tree a rest can be split from.
var YieldAfter = 20 * time.Millisecond

// Coordinate explores root with workers workers, each calling explore on
// one unit at a time, until every unit is finished or a worker says stop:
// ETA's master (seed-000 §5.2.2), with at most 2×workers units waiting,
// split from the shallowest nodes, and spawned units kept when their
// choice is not claimed yet (Frontier). It reports whether every unit was
// finished (false after a stop). explore runs concurrently from workers
// goroutines; it must return the unit's rest when it explored only part
// of it (a time or run slice, or a yield), so that the rest can be split
// again.
//
// Instead of waiting for a time slice to end, a worker with nothing to do
// makes Coordinate close the yield channel of the unit explored longest
// (after YieldAfter): explore should then stop after its current run and
// return the rest, which is split for the idle worker. So the first unit,
// the root, is split as soon as its first run has made a tree, and at the
// end no worker waits for another's slice.
func Coordinate(root Unit, workers int, explore func(u Unit, yield <-chan struct{}) Outcome) (finished bool, st CoordStats) {
	if workers < 1 {
		workers = 1
	}
	fr := NewFrontier()
	od := NewODCoord() // optimal DPOR's tree (odsplit.go)
	queue := []Unit{root}
	fr.Record(root)
	type out struct {
		id int
		o  Outcome
	}
	type running struct {
		start time.Time
		yield chan struct{}
		asked bool
	}
	results := make(chan out)
	live := map[int]*running{}
	pass, next := root.Pass, (*Unit)(nil) // ipb, idb: the pass explored, the next one
	id, stopped := 0, false
	idleSince, idle := time.Now(), 0
	// backoff is how long a unit explores before it is asked to yield:
	// it doubles while the rests yielded cannot be split (a subtree
	// with one branch left), so that a worker does not restart every
	// YieldAfter for nothing.
	backoff, yielded := YieldAfter, false
	var retry <-chan time.Time
	for {
		if !stopped {
			st.Idle += time.Duration(idle) * time.Since(idleSince)
		}
		idleSince = time.Now()
		if !stopped && len(live) < workers && len(queue) < 2*workers && len(queue) > 0 {
			// Split the waiting units until there are enough for the
			// idle workers and some to spare.
			n := len(queue)
			var more []Unit
			for _, u := range queue {
				more = append(more, Split(u, 1+(2*workers-1)/len(queue))...)
			}
			queue = more
			if yielded && len(queue) == n {
				backoff = min(2*backoff, 2*time.Second)
			} else if yielded {
				backoff = YieldAfter
			}
		}
		yielded = false
		for !stopped && len(live) < workers && len(queue) > 0 {
			u := od.Dispatch(queue[0])
			queue = queue[1:]
			id++
			r := &running{start: time.Now(), yield: make(chan struct{})}
			live[id] = r
			st.Units++
			go func(id int, u Unit, y <-chan struct{}) { results <- out{id, explore(u, y)} }(id, u, r.yield)
		}
		if len(live) == 0 && len(queue) == 0 && next != nil && !stopped {
			// Every unit of the pass is finished: the next pass.
			queue, pass, next = []Unit{*next}, next.Pass, nil
			continue
		}
		if len(live) == 0 {
			return !stopped && len(queue) == 0, st
		}
		retry = nil
		if !stopped && len(live) < workers && len(queue) == 0 {
			// A worker is idle: ask the unit explored longest for its
			// rest, unless one was asked already and has not answered.
			var oldest *running
			asked := false
			for _, r := range live {
				asked = asked || r.asked
				if !r.asked && (oldest == nil || r.start.Before(oldest.start)) {
					oldest = r
				}
			}
			if oldest != nil && !asked {
				if wait := backoff - time.Since(oldest.start); wait > 0 {
					retry = time.After(wait)
				} else {
					oldest.asked = true
					st.Yields++
					close(oldest.yield)
				}
			}
		}
		idle = workers - len(live)
		var r out
		select {
		case r = <-results:
		case <-retry:
			continue
		}
		yielded = live[r.id].asked && r.o.Rest != nil
		delete(live, r.id)
		if r.o.Stop {
			stopped = true
		}
		if stopped {
			continue
		}
		if r.o.Rest != nil {
			fr.Record(*r.o.Rest)
			queue = append(queue, *r.o.Rest)
		}
		for _, s := range r.o.Spawned {
			if s.OD != nil {
				us, late, covered := od.Accept(s)
				queue = append(queue, us...)
				if late {
					st.Spawned++
				}
				if covered {
					st.Dropped++
				}
				continue
			}
			if s.Pass > pass {
				if next == nil {
					next = &s
				}
				continue
			}
			st.Spawned++
			if c, ok := fr.Claim(s); ok {
				fr.Record(c)
				queue = append(queue, c)
			} else {
				st.Dropped++
			}
		}
	}
}

// choiceKeys are the keys of p's choices.
func choiceKeys(p *engine.Point) []string {
	k := make([]string, len(p.Choices))
	for i, c := range p.Choices {
		k[i] = c.Key()
	}
	return k
}

// keyIndex is the index of the choice with key k at p, or engine.Diverged.
func keyIndex(p *engine.Point, k string) int {
	for i, c := range p.Choices {
		if c.Key() == k {
			return i
		}
	}
	return engine.Diverged
}

// remap sets the choice indices of a node of a unit from its keys: the
// order of the choices at a point may differ in another process.
func (d *DPOR) remap(nd *dnode, p *engine.Point) bool {
	for k, key := range nd.keys {
		j := keyIndex(p, key)
		if j == engine.Diverged {
			return false
		}
		nd.idx[k] = j
	}
	return true
}
