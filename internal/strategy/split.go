package strategy

import (
	"fmt"
	"math"
	"os"
	"sort"
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
	// Off is the position of Order[0] in the node's whole exploration
	// order: a unit split off at this node has the later choices only.
	Off int `json:"off,omitempty"`
	// Avg is the runs below one choice of the node, as measured by the
	// choices explored below it (0: none yet): SplitWithin's estimates.
	// Est is, when none were, the product of the numbers of choices
	// below it on the path of the fragment this one was split from: a
	// guess, off by ten times on the DPOR families (splitChunk splits
	// the part a worker keeps where it is measured).
	Avg int `json:"avg,omitempty"`
	Est int `json:"est,omitempty"`
	// EstR is, for a unit of a pass of ipb or idb, at the last node of
	// its path, the runs below it with r of the pass's bound left
	// (EstR[r]), as estimated on the path of the fragment this one was
	// split from (splitbound.go); nil: one run (the end of a run).
	EstR []int `json:"estr,omitempty"`
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
// Optimal DPOR (odpor) splits into subtrees (odsplit.go) unless
// HEDDLE_SPLIT_ODPOR=0: the split is sound (TestParallelEqualsSequential,
// TestODSplitSweep) and makes the sequential runs on indexer and lastzero,
// 9-12% more on the corpus, 17-24% more on features.txt's
// TestReflectPipeline with two workers (benchmarks.md). GoKer's Hugo3251 (100 goroutines,
// 40,199 steps) was slow split for two causes outside the per-step work,
// both fixed in explore: a run longer than the 10 s time slice was cut
// and its unit handed back as it came, without end; and a unit's rest,
// one unit per wakeup child on the stack each with the path down to it,
// is quadratic in the run's depth (4.5 GB there), now not made after a
// bug that stops the exploration, and a unit whose rest would be too big
// is explored on where it is (KeepUnit). The rest now shares the
// stack's path (linear in the depth), and wakeup trees go through JSON
// flat. On GoKer's Grpc3017 (50,015 steps) the coordinator's routing
// of a unit's 10,000 late sequences took far longer than one worker's
// whole exploration: each copied the reporter's path and looked its
// 30,000 nodes up; only the few that make a unit or wait do that now
// (route), and a unit whose run is deeper than 10,000 nodes is explored
// in its worker (KeepUnit). The split is the default.
func SplitKind(name string) string {
	switch name {
	case "random", "pct", "pos":
		return "runs"
	case "dfs", "sdpor", "ipb", "idb":
		return "tree"
	case "odpor":
		if os.Getenv("HEDDLE_SPLIT_ODPOR") != "0" {
			return "tree" // HEDDLE_SPLIT_ODPOR=0: one worker (odsplit.go)
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
		return fmt.Sprintf("%s subtree at depth %d", u.Strategy, u.OD.Depth())
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
// nodes with choices left (a subtree of a pass of ipb or idb: in halves
// by its estimated runs within the bound, splitBounded). A unit that
// cannot be split (a range of one block, a subtree before its first
// run) is returned alone.
func Split(u Unit, n int) []Unit { return SplitWithin(u, n, 0) }

// SplitWithin is Split for a DFS, IPB or IDB unit of which at most within
// runs are to be explored (0: no bound; CoordinateWork's Work.Runs): the
// runs of an ordered split with a budget are the budget's first, so the
// order is explored front to back in chunks of them (splitChunk).
func SplitWithin(u Unit, n, within int) []Unit {
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
			a, more, ok := splitFrag(units[i], within)
			if !ok {
				continue
			}
			units[i] = a
			units = append(units, more...)
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

// maxEst caps the estimates of runs (products of numbers of choices):
// 2^40, or 2^30 where int has 32 bits. estMul and estAdd saturate at it.
const maxEst = min(1<<40, math.MaxInt>>1)

// estMul is a*b for estimates of runs (a, b >= 0), at most maxEst.
func estMul(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > maxEst/b {
		return maxEst
	}
	return min(a*b, maxEst)
}

// estAdd is a+b for estimates of runs (a, b >= 0), at most maxEst.
func estAdd(a, b int) int {
	return min(min(a, maxEst)+min(b, maxEst), maxEst)
}

// childRuns estimates the runs below one choice of node k of a DFS
// fragment: as measured there (Avg), or the product of the numbers of
// choices of the nodes below it on the fragment's path (or, for a node
// the fragment's path ends at, on its parent's: Est).
func childRuns(f *Fragment, k int) int {
	if a := f.Nodes[k].Avg; a > 0 {
		return a
	}
	if e := f.Nodes[k].Est; e > 0 {
		return e
	}
	below := 1
	for j := k + 1; j < len(f.Nodes); j++ {
		below = estMul(below, max(len(f.Nodes[j].Order), 1))
	}
	return below
}

// allChildRuns is childRuns(f, k) for every node k, in time linear in the
// fragment's depth (the products of the choices below each node, from
// the deepest up): childRuns at each node of a path 30,000 nodes deep
// (GoKer's Grpc3017 under IDB) kept the coordinator busy for a minute
// between two units.
func allChildRuns(f *Fragment) []int {
	out := make([]int, len(f.Nodes))
	below := 1
	for k := len(f.Nodes) - 1; k >= 0; k-- {
		out[k] = below
		if a := f.Nodes[k].Avg; a > 0 {
			out[k] = a
		} else if e := f.Nodes[k].Est; e > 0 {
			out[k] = e
		}
		below = estMul(below, max(len(f.Nodes[k].Order), 1))
	}
	return out
}

// measured reports whether childRuns(f, k) is measured: node k had
// choices explored below it, or it is the end of the fragment's path,
// whose choices are runs that branch no more than the run that made it
// (as far as it is known).
func measured(f *Fragment, k int) bool {
	n := f.Nodes[k]
	return n.Avg > 0 || k == len(f.Nodes)-1 && n.Est == 0
}

// fillAvg sets the estimated runs per choice (Est) of the nodes of dst
// that have no measured ones from those estimated on src, the fragment
// dst was split from (whose path may go deeper).
func fillAvg(dst, src *Fragment) {
	var each []int // allChildRuns(src), made when needed
	for k := range dst.Nodes {
		if k >= len(src.Nodes) || dst.Nodes[k].Avg > 0 || dst.Nodes[k].Est > 0 {
			continue
		}
		if k < len(src.Nodes)-1 || src.Nodes[k].Est > 0 {
			if each == nil {
				each = allChildRuns(src)
			}
			dst.Nodes[k].Est = each[k]
		}
	}
}

// below estimates, for each node k of a DFS fragment from its floor
// down, the runs left below the choice taken at k (runs[k]) and whether
// they are measured (known[k]): the choices left at the nodes below k by
// the runs below each, and the runs below the choice taken at the last
// node; when node k's runs per choice are measured (Avg), at most those,
// and measured (the choice taken holds about as many runs as those
// explored before it; the estimates of the nodes below it a run made
// and none explored are products, off by ten times on the DPOR
// families).
func below(f *Fragment) (runs []int, known []bool) {
	last := len(f.Nodes) - 1
	runs, known = make([]int, len(f.Nodes)), make([]bool, len(f.Nodes))
	each := allChildRuns(f)
	runs[last], known[last] = each[last], measured(f, last)
	for k := last; k >= f.Floor; k-- {
		if k < last {
			rem := max(len(f.Nodes[k+1].Order)-f.Nodes[k+1].Next-1, 0)
			runs[k] = estAdd(runs[k+1], estMul(rem, each[k+1]))
			known[k] = known[k+1] && (rem < 1 || measured(f, k+1))
		}
		if a := f.Nodes[k].Avg; a > 0 && k < last {
			runs[k], known[k] = min(runs[k], a), true
		}
	}
	return runs, known
}

// estimate is the number of runs of an ordered DFS unit, estimated: the
// runs below the choice taken at its floor node (below) and those of the
// choices left there. 0 for other units. sure reports whether the
// estimate is measured.
func estimate(u Unit) int { n, _ := estimateSure(u); return n }

func sure(u Unit) bool { _, ok := estimateSure(u); return ok }

func estimateSure(u Unit) (int, bool) {
	f := u.Frag
	if f == nil || len(f.Nodes) == 0 || f.Nodes[0].Order == nil {
		return 0, true
	}
	if bound := boundOf(u); bound >= 0 {
		return newBoundedRuns(f, bound).estimate(), boundedExact(u, bound)
	}
	runs, known := below(f)
	k := f.Floor
	rem := max(len(f.Nodes[k].Order)-f.Nodes[k].Next-1, 0)
	return estAdd(runs[k], estMul(rem, childRuns(f, k))), known[k] && (rem < 1 || measured(f, k))
}

// splitFrag splits off some choices of the shallowest owned node that
// has choices left besides the one taken now (with within, SplitWithin's
// node): more[0] explores them, a keeps the rest (and more[1], a DFS
// split below a node with choices left, the choices left above).
func splitFrag(u Unit, within int) (a Unit, more []Unit, ok bool) {
	f := u.Frag
	if len(f.Nodes) > 0 && f.Nodes[0].Order != nil {
		// DFS: the shallowest node with choices left; with within, the
		// shallowest whose part kept is estimated to hold fewer runs
		// (the runs after it are the ones given away), or the deepest.
		if within > 0 {
			return splitChunk(u, within)
		}
		if bound := boundOf(u); bound >= 0 {
			// ipb, idb: halves, as estimated within the bound (the
			// shallowest node's choices left are often one run each).
			return splitBounded(u, bound, 0)
		}
		for i := f.Floor; i < len(f.Nodes); i++ {
			if len(f.Nodes[i].Order)-f.Nodes[i].Next-1 < 1 {
				continue
			}
			a, more := splitDFSAt(u, i, -1)
			return a, more, true
		}
		return u, nil, false
	}
	for i := f.Floor; i < len(f.Nodes); i++ {
		nd := f.Nodes[i]
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
		return Unit{Strategy: u.Strategy, Frag: fa}, []Unit{{Strategy: u.Strategy, Frag: fb}}, true
	}
	return u, nil, false
}

// ChunkMin is the fewest runs splitChunk gives a unit by its estimate: a
// unit replays its prefix and checks determinism, and without served
// workers is a process of its own (some 10 ms to start).
var ChunkMin = 2000

// chunkOf is the runs of a chunk (splitChunk) when within runs are to
// be explored.
func chunkOf(within int) int { return max(within/4, ChunkMin) }

// splitChunk is splitFrag for an ordered DFS unit of which at most
// within runs are to be explored (the budget's first runs): the workers
// explore the sequential order front to back in chunks, so that the runs
// a worker explores past the budget's end (which only the runs of the
// units before it tell) are at most about a chunk. a keeps the choice
// taken at the shallowest node whose part below it is measured (below)
// to hold at most a chunk (chunkOf; half the unit when it is measured
// to be within a chunk), more[0] explores the choices after it there
// that fit in a chunk, more[1] the others there, and the last the
// choices left above. (Giving away the later half of the choices of a
// node, as Split does, put the second worker's unit where the estimates
// of the sizes of the subtrees before it said the budget's end lies;
// they were off by half on readers, and the second worker's runs past
// the end were all lost; and a part kept estimated, not measured, was
// off by twenty times on lastzero.)
func splitChunk(u Unit, within int) (a Unit, more []Unit, ok bool) {
	f := u.Frag
	chunk := chunkOf(within)
	if est := estimate(u); est <= ChunkMin && sure(u) {
		return u, nil, false // too small to be worth a worker process
	} else if est <= chunk && sure(u) {
		chunk = est / 2 // a chunk already: halves, for the idle workers
	}
	if bound := boundOf(u); bound >= 0 {
		return splitBounded(u, bound, max(chunk, 1))
	}
	// The shallowest node whose part kept is measured to hold at most
	// a chunk, or the deepest with choices left.
	kept, known := below(f)
	i := -1
	for k := len(f.Nodes) - 1; k >= f.Floor; k-- {
		if len(f.Nodes[k].Order)-f.Nodes[k].Next-1 >= 1 && (i < 0 || kept[k] <= chunk && known[k]) {
			i = k
		}
	}
	if i < 0 {
		return u, nil, false
	}
	nd := f.Nodes[i]
	each := max(childRuns(f, i), 1)
	give := max(1, chunk/each)
	a, more = splitDFSAt(u, i, min(nd.Next+1+give, len(nd.Order)))
	return a, more, true
}

// splitDFSAt splits a DFS unit at node i, which has choices left after
// the one taken: more[0] explores the later half of them (with upto
// positive, those before position upto, and more[1] those from upto on);
// a keeps the others (and the last of more, when a node above i has
// choices left, those).
func splitDFSAt(u Unit, i, upto int) (a Unit, more []Unit) {
	f := u.Frag
	nd := f.Nodes[i]
	rem := len(nd.Order) - nd.Next - 1
	cut := nd.Next + 1 + rem/2
	if upto >= 0 {
		cut = nd.Next + 1
	}
	fa, fb := f.clone(i+1), f.clone(i+1)
	fa.Nodes = f.cloneNodes()
	fa.Nodes[i].Order = append([]int(nil), nd.Order[:cut]...)
	fa.Nodes[i].Costs = append([]int(nil), nd.Costs[:cut]...)
	end := len(nd.Order)
	if upto >= 0 {
		end = upto
	}
	fb.Nodes[i].Order = append([]int(nil), nd.Order[cut:end]...)
	fb.Nodes[i].Costs = append([]int(nil), nd.Costs[cut:end]...)
	fb.Nodes[i].Next = 0
	fb.Nodes[i].Off = nd.Off + cut
	fb.Floor = i
	fill := func(dst *Fragment) { fillAvg(dst, f) }
	if bound := boundOf(u); bound >= 0 {
		fill = newBoundedRuns(f, bound).setEstR // ipb, idb
	}
	fill(fa)
	fill(fb)
	more = []Unit{{Strategy: u.Strategy, Frag: fb, Pass: u.Pass}}
	if end < len(nd.Order) {
		fd := f.clone(i + 1)
		fd.Nodes[i].Order = append([]int(nil), nd.Order[end:]...)
		fd.Nodes[i].Costs = append([]int(nil), nd.Costs[end:]...)
		fd.Nodes[i].Next = 0
		fd.Nodes[i].Off = nd.Off + end
		fd.Floor = i
		fill(fd)
		more = append(more, Unit{Strategy: u.Strategy, Frag: fd, Pass: u.Pass})
	}
	if i > f.Floor {
		// Split below a node with choices left (SplitWithin):
		// those come after b's, a unit of their own (c: the
		// path to the deepest such node, advanced to its next
		// choice, as DFS is once the subtree below is done),
		// and a keeps node i's first choices only. Each is an
		// interval of the sequential order: a < b < c.
		fa.Floor = i
		for j := i - 1; j >= f.Floor; j-- {
			if f.Nodes[j].Next+1 < len(f.Nodes[j].Order) {
				fc := f.clone(j + 1)
				fill(fc)
				fc.Nodes[j].Next++
				more = append(more, Unit{Strategy: u.Strategy, Frag: fc, Pass: u.Pass})
				break
			}
		}
	}
	return Unit{Strategy: u.Strategy, Frag: fa, Pass: u.Pass}, more
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
	c.EstR = append([]int(nil), n.EstR...)
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

// UnitClassReporter is a unit's strategy that names the classes of its
// complete runs (DPOR: a hash of each run's happens-before relation), so
// that the merged exploration can count the classes two runs explored:
// the split's duplicated work.
type UnitClassReporter interface {
	// ExploredClasses returns, and forgets, the classes of the complete
	// runs made since the last call (runs longer than classKeyMax steps
	// are left out), and the sleep-set blocked runs.
	ExploredClasses() (classes []uint64, blocked int)
}

// classKeyMax bounds the steps of a run whose class a unit reports.
const classKeyMax = 20000

// ExploredClasses implements UnitClassReporter.
func (d *DPOR) ExploredClasses() ([]uint64, int) {
	c, b := d.classes, d.Blocked-d.blockedSeen
	d.classes, d.blockedSeen = nil, d.Blocked
	return c, b
}

// UnitKeeper is a unit's strategy whose rest can be too big to hand
// back: while KeepUnit is true, the explorer goes on with the unit past
// its time slice and a yield (odpor: DPOR.KeepUnit).
type UnitKeeper interface {
	KeepUnit() bool
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
		d.stack = append(d.stack, dfsNode{order: append([]int(nil), n.Order...), costs: append([]int(nil), n.Costs...), next: n.Next, n: n.N, base: n.Base, keys: append([]string(nil), n.Keys...), off: n.Off, next0: n.Next, avg: n.Avg})
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
		f.Nodes = append(f.Nodes, FragNode{Order: append([]int(nil), n.order...), Costs: append([]int(nil), n.costs...), Next: n.next, N: n.n, Base: n.base, Keys: append([]string(nil), n.keys...), Off: n.off, Avg: d.avg(n)})
	}
	return u
}

// avg is the runs below one choice of node n: measured over the choices
// explored below it in this process, or as its fragment said.
func (d *DFS) avg(n dfsNode) int {
	if n.next > n.next0 {
		return max(1, (d.runs-n.start)/(n.next-n.next0))
	}
	return n.avg
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
//
// The nodes are a prefix tree of the choices taken from the root: a
// unit's path is walked down once, so that recording or claiming a unit
// costs time and memory linear in its depth, and the tree holds one node
// per distinct path prefix recorded. (Keys made of the whole path down to
// each node were quadratic in the depth: 4.6 GB on GoKer's Grpc3017,
// whose runs are 30,000 nodes deep.)
type Frontier struct {
	root fnode
}

// fnode is a node of a Frontier: the choices claimed there, those taken
// in order, and the nodes below each choice taken (the first child
// inline, the others in a map: most paths do not branch). A node has
// few choices (a slice is a third of a map's size).
type fnode struct {
	claimed []string
	taken   []string
	key     string
	kid     *fnode
	kids    map[string]*fnode
}

// NewFrontier returns an empty frontier.
func NewFrontier() *Frontier {
	return &Frontier{}
}

// child is the node below choice k of n, made if add is set (nil if not
// and there is none).
func (n *fnode) child(k string, add bool) *fnode {
	if n.kid != nil && n.key == k {
		return n.kid
	}
	if c := n.kids[k]; c != nil || !add {
		return c
	}
	c := &fnode{}
	if n.kid == nil {
		n.key, n.kid = k, c
		return c
	}
	if n.kids == nil {
		n.kids = map[string]*fnode{}
	}
	n.kids[k] = c
	return c
}

// node is the node of fr at the end of the first i choices taken on f's
// path, made with the nodes above it as needed.
func (fr *Frontier) node(f *Fragment, i int) *fnode {
	n := &fr.root
	for j := 0; j < i; j++ {
		n = n.child(f.Nodes[j].Taken, true)
	}
	return n
}

func (n *fnode) claim(k string) { n.claimed = appendNew(n.claimed, k) }

// Record notes the choices a source-DPOR unit owns or has taken.
func (fr *Frontier) Record(u Unit) {
	f := u.Frag
	if f == nil || len(f.Nodes) == 0 || f.Nodes[0].Order != nil {
		return
	}
	p := &fr.root
	for i, n := range f.Nodes {
		if i > 0 {
			p = p.child(f.Nodes[i-1].Taken, true)
		}
		for _, k := range n.Done {
			p.claim(k)
			p.taken = appendNew(p.taken, k)
		}
		if i < f.Floor {
			continue
		}
		for _, k := range n.BT {
			if i > f.Floor || f.Own == nil || contains(f.Own, k) {
				p.claim(k)
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
	p, k := fr.node(f, f.Floor), f.Own[0]
	if contains(p.claimed, k) {
		return u, false
	}
	p.claim(k)
	nd := &f.Nodes[f.Floor]
	for _, t := range p.taken {
		nd.Done = appendNew(nd.Done, t)
	}
	nd.Done = appendNew(nd.Done, k)
	p.taken = appendNew(p.taken, k)
	return u, true
}

// Outcome is what a worker reports after exploring (part of) a unit.
type Outcome struct {
	Rest    *Unit  // what is left of the unit, nil when it is finished
	Spawned []Unit // work found outside the unit (UnitState.Spawned)
	Stop    bool   // stop the whole exploration (an error, an interrupt)
	// Found: the unit stopped at a bug (without -keep-going) or found
	// the test nondeterministic, at its last run. In an ordered split
	// (Ordered) only the units after it in the sequential order stop: the
	// units before it go on, since one of them may find an earlier bug,
	// which is the one a sequential exploration reports. Otherwise it
	// stops the whole exploration, as Stop.
	Found bool
	// Runs is the number of runs the unit made.
	Runs int
}

// Work is one unit handed to a worker by CoordinateWork.
type Work struct {
	Unit Unit
	// Yield is closed when an idle worker wants the unit's rest: the
	// worker should stop after its current run and return the rest.
	Yield <-chan struct{}
	// Kill is closed when the unit's work is no longer needed: in an
	// ordered split, a unit before it found a bug, or the budget's runs
	// are all before it. The worker should stop at once.
	Kill <-chan struct{}
	// Runs, if positive, bounds the unit's runs: in an ordered split
	// with a budget, the budget less the runs of the finished prefix of
	// the sequential order (the unit's runs come after them).
	Runs int
}

// Ordered reports whether the units of strategy name's tree split are
// ordered as the runs of the sequential exploration: DFS and each pass
// of IPB and IDB. Split gives away the later choices of the shallowest
// node with choices left, so every unit, and every rest, is an interval
// of the sequential run order, and the units of one split partition it;
// the passes of IPB and IDB follow each other. Source DPOR's units are
// not (a spawned unit's backtrack choice is inserted at a node above
// others' subtrees, and its runs are not an interval).
func Ordered(name string) bool {
	switch name {
	case "dfs", "ipb", "idb":
		return true
	}
	return false
}

// unitKey is the place of an ordered unit in the sequential order: its
// pass, then the sequential position of the choice taken at each node of
// its fragment. The unit's first run is the leftmost run below that path,
// and its runs are an interval from there: between disjoint units,
// comparing keys compares their runs.
//
// A run range's key is its first run.
func unitKey(u Unit) []int {
	if u.Frag == nil {
		return []int{u.From}
	}
	k := []int{u.Pass}
	if u.Frag != nil {
		for _, n := range u.Frag.Nodes {
			k = append(k, n.Off+n.Next)
		}
	}
	return k
}

// keyLess orders keys lexicographically, a prefix first.
func keyLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// UnitLess reports whether the runs of unit a come before those of unit
// b in the sequential exploration; a and b are disjoint units of one
// ordered split (Ordered). A unit's runs are then the sequential runs
// from one plus the runs of the units before it.
func UnitLess(a, b Unit) bool { return keyLess(unitKey(a), unitKey(b)) }

// RunOffsets returns, for units of one ordered split that were explored
// with runs[i] runs each, the number of sequential runs before each: the
// runs of the units before it (UnitLess). Unit i's k-th run is the
// sequential run offsets[i]+k when no unit before it is missing, as after
// CoordinateWork, where every unit before the first bug, and before the
// end of the budget, is explored.
func RunOffsets(units []Unit, runs []int) []int {
	keys := make([][]int, len(units))
	for i, u := range units {
		keys[i] = unitKey(u)
	}
	return RunOffsetsByKey(keys, runs)
}

// UnitKey is the place of a unit of an ordered split in the sequential
// order (RunOffsetsByKey): a copy of what of the unit a merge of the
// units' runs needs, without their paths' choices.
func UnitKey(u Unit) []int { return unitKey(u) }

// RunOffsetsByKey is RunOffsets for the units whose keys (UnitKey) are
// keys.
func RunOffsetsByKey(keys [][]int, runs []int) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keyLess(keys[idx[a]], keys[idx[b]]) })
	off := make([]int, len(keys))
	n := 0
	for _, i := range idx {
		off[i] = n
		n += runs[i]
	}
	return off
}

// CoordStats counts what a Coordinate did, for measuring a split: none of
// it depends on the load of the machine but Idle.
type CoordStats struct {
	Units   int // units explored (by served worker processes, unit after unit, in heddle test)
	Yields  int // units asked to hand their rest back early
	Spawned int // units found outside a unit (source DPOR)
	Dropped int // of those, choices another unit had claimed already
	// Runs are the runs the units made (but units killed), those past
	// the end included: against the runs reported, the work a split
	// wasted (an ordered split with a budget: runs past it).
	Runs int
	// Idle is the time workers waited for work while others explored
	// (summed over workers): the imbalance of the split.
	Idle time.Duration
}

func (s CoordStats) String() string {
	return fmt.Sprintf("%d units, %d yields, %d spawned (%d dropped as claimed), %d runs made, idle %.2fs", s.Units, s.Yields, s.Spawned, s.Dropped, s.Runs, s.Idle.Seconds())
}

// YieldAfter is how long a unit explores before Coordinate may ask it to
// hand its rest back for an idle worker: enough for its first run, which
// makes the tree a rest can be split from.
var YieldAfter = 20 * time.Millisecond

// Coordinate is CoordinateWork without a budget and without Kill.
func Coordinate(root Unit, workers int, explore func(u Unit, yield <-chan struct{}) Outcome) (finished bool, st CoordStats) {
	return CoordinateWork(root, workers, 0, func(w Work) Outcome { return explore(w.Unit, w.Yield) })
}

// CoordinateWork explores root with workers workers, each calling explore
// on one unit at a time, until every unit is finished or a worker says
// stop: ETA's master (seed-000 §5.2.2), with at most 2×workers units
// waiting, split from the shallowest nodes, and spawned units kept when
// their choice is not claimed yet (Frontier). It reports whether every
// unit was finished (false after a stop or a bug). explore runs
// concurrently from workers goroutines; it must return the unit's rest
// when it explored only part of it (a time or run slice, or a yield), so
// that the rest can be split again.
//
// Instead of waiting for a time slice to end, a worker with nothing to do
// makes Coordinate close the yield channel of the unit explored longest
// (after YieldAfter): explore should then stop after its current run and
// return the rest, which is split for the idle worker. So the first unit,
// the root, is split as soon as its first run has made a tree, and at the
// end no worker waits for another's slice.
//
// Run ranges (random, pct, pos) are ordered by their first run, and so
// is an ordered tree split (Ordered). An ordered split makes what the
// sequential exploration makes:
// units are started in the sequential order; a unit that finds a bug
// (Outcome.Found) kills the units after it (Work.Kill) and drops the
// waiting ones, while those before it go on until they finish or one
// finds an earlier bug; with a budget of runs (positive), it explores
// the budget's first runs of the sequential order: each unit may make
// the budget less the runs of the finished prefix (Work.Runs), and once
// that prefix holds the budget, the units after it are killed. The bug a
// sequential exploration reports is then the first (in UnitLess order)
// unit's bug, at the sequential run of the runs of the units before it
// plus its own.
func CoordinateWork(root Unit, workers, budget int, explore func(w Work) Outcome) (finished bool, st CoordStats) {
	if workers < 1 {
		workers = 1
	}
	ordered := Ordered(root.Strategy) && root.Frag != nil || root.Frag == nil && SplitKind(root.Strategy) == "runs"
	// HEDDLE_PARTRACE prints each unit started and ended (its key, runs
	// estimated and allowed, and made) and each yield asked, with the
	// seconds since the start: a diagnostic of the split (where workers
	// wait).
	trace := os.Getenv("HEDDLE_PARTRACE") != ""
	t0 := time.Now()
	fr := NewFrontier()
	od := NewODCoord() // optimal DPOR's tree (odsplit.go)
	queue := []Unit{root}
	fr.Record(root)
	type out struct {
		id int
		o  Outcome
	}
	type running struct {
		start  time.Time
		yield  chan struct{}
		kill   chan struct{}
		key    []int
		est    int  // ordered, with a budget: the unit's runs, estimated
		sure   bool // est is measured (sure)
		asked  bool
		killed bool
		od     Unit // optimal DPOR: the unit as dispatched (odsplit.go)
	}
	type piece struct {
		key  []int
		runs int
	}
	results := make(chan out)
	live := map[int]*running{}
	pass, next := root.Pass, (*Unit)(nil) // ipb, idb: the pass explored, the next one
	id, stopped := 0, false
	var limit []int    // ordered: the key of the first unit that found a bug
	var pieces []piece // ordered: the units explored, each a run interval
	full := false      // ordered: the budget's runs are all explored
	// prefix is the number of runs of the sequential order explored: the
	// runs of the pieces before the first unit waiting or running.
	prefix := func() int {
		first := []int(nil)
		for _, r := range live {
			if !r.killed && (first == nil || keyLess(r.key, first)) {
				first = r.key
			}
		}
		for _, u := range queue {
			if k := unitKey(u); first == nil || keyLess(k, first) {
				first = k
			}
		}
		if first == nil && next != nil {
			first = unitKey(*next)
		}
		n := 0
		for _, p := range pieces {
			if first == nil || keyLess(p.key, first) {
				n += p.runs
			}
		}
		return n
	}
	// before is the runs of the sequential order before u, as known:
	// the runs of the pieces explored before it, and the runs estimated
	// of the units running or waiting before it; ahead, whether a unit
	// running before it is not finished; far, the same with the
	// estimates that are not measured (sure) multiplied by guess: the
	// most a unit finished held for its estimate not measured (at least
	// once it; 4 times before any is known).
	guess, guessed := 4.0, false
	before := func(u Unit) (n int, ahead bool, far int) {
		k := unitKey(u)
		add := func(est int, ok bool) {
			n = estAdd(n, est)
			if ok {
				far = estAdd(far, est)
			} else {
				far = estAdd(far, int(min(float64(est)*guess, maxEst)))
			}
		}
		for _, p := range pieces {
			if keyLess(p.key, k) {
				add(p.runs, true)
			}
		}
		for _, r := range live {
			if !r.killed && keyLess(r.key, k) {
				add(r.est, r.sure)
				ahead = true
			}
		}
		for _, q := range queue {
			if keyLess(unitKey(q), k) {
				est, ok := estimateSure(q)
				add(est, ok)
			}
		}
		return n, ahead, far
	}
	// after reports whether key k is past the ordered exploration's end:
	// after the first bug, or after the budget's runs.
	after := func(k []int) bool {
		return full || limit != nil && keyLess(limit, k)
	}
	prune := func() {
		if !ordered {
			return
		}
		if budget > 0 && !full && prefix() >= budget {
			full = true
		}
		kept := queue[:0]
		for _, u := range queue {
			if !after(unitKey(u)) {
				kept = append(kept, u)
			}
		}
		queue = kept
		for _, r := range live {
			if !r.killed && after(r.key) {
				r.killed = true
				close(r.kill)
			}
		}
		if full || limit != nil {
			next = nil
		}
	}
	idleSince, idle := time.Now(), 0
	// backoff is how long a unit explores before it is asked to yield:
	// it doubles while the rests yielded cannot be split (a subtree
	// with one branch left), so that a worker does not restart every
	// YieldAfter for nothing.
	backoff, yielded := YieldAfter, false
	spare := 2 * workers // units to keep waiting
	var retry <-chan time.Time
	for {
		if !stopped {
			st.Idle += time.Duration(idle) * time.Since(idleSince)
		}
		idleSince = time.Now()
		prune()
		if root.Frag == nil && st.Units > 0 {
			// Run ranges, once started: each range is a worker process
			// (a start and a determinism check), so they are split
			// only for a worker left with nothing (a rest it yielded).
			spare = workers - len(live) + 1
		}
		if !stopped && len(live) < workers && len(queue) > 0 && ordered && budget > 0 {
			// The budget's first runs: split the earliest unit waiting
			// for the idle workers, within the runs it may make.
			sort.SliceStable(queue, func(i, j int) bool { return UnitLess(queue[i], queue[j]) })
			n := len(queue)
			if n, _, _ := before(queue[0]); budget-n > 0 {
				left := budget - n
				sp := SplitWithin(queue[0], 1+workers-len(live), left)
				queue = append(sp, queue[1:]...)
			}
			if yielded && len(queue) == n {
				backoff = min(2*backoff, 2*time.Second)
			} else if yielded {
				backoff = YieldAfter
			}
		} else if !stopped && len(live) < workers && len(queue) < spare && len(queue) > 0 {
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
		if ordered {
			// The earliest units first: the prefix, and the first bug,
			// are known sooner.
			sort.SliceStable(queue, func(i, j int) bool { return UnitLess(queue[i], queue[j]) })
		}
		held := false // units waiting that are likely past the budget
		for !stopped && len(live) < workers && len(queue) > 0 {
			runs := 0
			if ordered && budget > 0 {
				// The runs of the next unit within the budget: what the
				// budget leaves after the runs before it (explored, or
				// estimated of the units not finished). The first unit
				// has the rest of the budget; a later one is explored
				// before the runs before it are known, and its runs
				// past the budget's end are lost: it is held back when
				// none are left or when it may start more than a chunk
				// past the front of the order (by the estimates not
				// measured times guess: they are off by ten times on
				// the DPOR families): the idle worker asks a unit to
				// yield instead, whose rest is split in chunks at the
				// front. It stops after a chunk (its rest waits).
				n, ahead, far := before(queue[0])
				runs = budget - n
				if ahead && (runs <= 0 || far-prefix() > chunkOf(budget-prefix())) {
					held = true
					break
				}
				if ahead {
					runs = min(runs, chunkOf(budget-prefix()))
				}
			}
			u := od.Dispatch(queue[0])
			queue = queue[1:]
			id++
			r := &running{start: time.Now(), yield: make(chan struct{}), kill: make(chan struct{}), od: u}
			w := Work{Unit: u, Yield: r.yield, Kill: r.kill, Runs: runs}
			live[id] = r
			if ordered {
				r.key, r.est, r.sure = unitKey(u), estimate(u), sure(u)
			}
			st.Units++
			if trace {
				fmt.Fprintf(os.Stderr, "TRACE %.3f start %d %v key=%v est=%d sure=%v runs=%d prefix=%d\n", time.Since(t0).Seconds(), id, u, r.key, r.est, r.sure, runs, prefix())
			}
			go func(id int, w Work) { results <- out{id, explore(w)} }(id, w)
		}
		if len(live) == 0 && len(queue) == 0 && next != nil && !stopped {
			// Every unit of the pass is finished: the next pass.
			queue, pass, next = []Unit{*next}, next.Pass, nil
			continue
		}
		if len(live) == 0 {
			return !stopped && limit == nil && !full && len(queue) == 0, st
		}
		retry = nil
		if !stopped && len(live) < workers && (len(queue) == 0 || held) {
			// A worker is idle: ask the unit explored longest for its
			// rest, unless one was asked already and has not answered.
			var oldest *running
			asked := false
			for _, r := range live {
				if r.killed {
					continue
				}
				if ordered && budget > 0 && r.sure && r.est > 0 && r.est <= ChunkMin {
					// Its rest is too small to split (splitChunk): a
					// yield would only restart it in another process.
					continue
				}
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
					if trace {
						fmt.Fprintf(os.Stderr, "TRACE %.3f yield backoff=%v held=%v queue=%d\n", time.Since(t0).Seconds(), backoff, held, len(queue))
					}
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
		rn := live[r.id]
		st.Runs += r.o.Runs
		if trace {
			fmt.Fprintf(os.Stderr, "TRACE %.3f end %d runs=%d killed=%v asked=%v rest=%v found=%v\n", time.Since(t0).Seconds(), r.id, r.o.Runs, rn.killed, rn.asked, r.o.Rest != nil, r.o.Found)
		}
		yielded = rn.asked && r.o.Rest != nil
		delete(live, r.id)
		if ordered && (rn.killed || after(rn.key)) {
			continue // not needed: past a bug or the budget
		}
		if r.o.Stop || r.o.Found && !ordered {
			stopped = true
		}
		if stopped {
			continue
		}
		if ordered && r.o.Found {
			limit = rn.key // before any limit set: after() is false
			continue
		}
		if ordered {
			pieces = append(pieces, piece{rn.key, r.o.Runs})
			if r.o.Rest == nil && !rn.sure && rn.est > 0 {
				// A unit finished: how far off its guessed estimate was.
				g := max(1, float64(r.o.Runs)/float64(rn.est))
				if !guessed || g > guess {
					guess, guessed = g, true
				}
			}
		}
		if r.o.Rest != nil {
			fr.Record(*r.o.Rest)
			queue = append(queue, *r.o.Rest)
		}
		for _, s := range r.o.Spawned {
			if s.OD != nil {
				us, late, covered := od.Accept(s)
				queue = append(queue, us...)
				st.Spawned += late
				st.Dropped += covered
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
		// Optimal DPOR: the late sequences that waited for this unit's
		// rest, and the units being explored that late sequences wait
		// for, asked for their rest at once.
		queue = append(queue, od.Finish(rn.od)...)
		for _, f := range od.Yield() {
			for _, r := range live {
				if r.od.OD == f && !r.asked && !r.killed {
					r.asked = true
					st.Yields++
					close(r.yield)
				}
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
