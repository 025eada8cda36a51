package strategy

import (
	"fmt"

	"heddle.dev/internal/engine"
)

// DFS is unbounded depth-first search over the scheduling choices
// (seed-004 §2.1, Algorithm 1), and with a cost function and a bound it is
// preemption bounding or delay bounding (§2.2–2.3, Algorithm 2); see
// NewIPB and NewIDB for the iterative versions (Algorithm 3).
//
// Children are ordered round-robin in creation order, starting from the
// goroutine that ran last, so that the first schedule is the non-preemptive
// round-robin one. It re-executes the program from the start for every
// schedule, replaying the prefix it backtracks to. Spinning goroutines are
// deprioritized (see allowed), so that the search terminates on programs
// that terminate under fair scheduling.
//
// MaxDepth, if positive, bounds the number of scheduling points explored
// per run: past it, the first choice in round-robin order is always taken
// (and the search no longer proves anything about deeper points).
type DFS struct {
	MaxDepth int

	cost  costsFunc // nil: unbounded
	bound int
	// delay is set when cost is delayCosts: a node's choices within the
	// bound are then found without a pass over every choice
	// (delayChoices).
	delay bool
	unit  string // "preemptions", "delays"

	stack []dfsNode
	spin  spinTracker
	cache *hbrCache // HBR caching, if set
	depth int
	cur   int // cost of the run so far
	done  bool
	// skipped is set when a choice was left out because of the bound or
	// the depth bound in the current pass.
	skipped bool
	// Diverged is set when a replayed prefix offered a different number of
	// choices than when it was first explored: the program is not
	// deterministic under a fixed schedule.
	Diverged bool

	runs     int
	terminal int // runs whose cost equals the bound (all runs when unbounded)
	bugs     int

	sub *unitInfo // the subtree explored, when restricted to one (split.go)

	// Scratch slices of Choose, kept from point to point: it ran at
	// every point of a run and allocated them each time.
	okBuf, orderBuf, costBuf []int
}

type dfsNode struct {
	order []int // choice indices in exploration order
	costs []int // the cost of each
	next  int   // position in order of the choice taken now
	n     int   // number of choices, to detect divergence
	base  int   // cost of the run before this point
	// keys are the choices' keys, kept for a unit (split.go): the order
	// of equal choices may differ in another process.
	keys []string
	// off is, for a unit's node, the position in the node's whole
	// exploration order of order[0] (a unit split off at this node has
	// its later choices only): off+next is the sequential position of the
	// choice taken, by which units are ordered (split.go, UnitLess).
	off int
	// For a unit's estimates of its size (split.go): the runs ended and
	// the position next when the node was pushed or restored, and the
	// runs per choice below it known from its fragment (0: unknown).
	start, next0, avg int
}

// NewDFS returns a depth-first search.
func NewDFS(maxDepth int) *DFS { return &DFS{MaxDepth: maxDepth} }

// NewBoundedDFS returns a depth-first search of the schedules whose cost
// (preemptions when delay is false, delays otherwise) is at most bound.
func NewBoundedDFS(delay bool, bound int) *DFS {
	d := &DFS{bound: bound, cost: preemptionCosts, unit: "preemptions"}
	if delay {
		d.cost, d.unit, d.delay = delayCosts, "delays", true
	}
	return d
}

// Begin implements engine.Strategy.
func (d *DFS) Begin(run int) bool {
	d.depth = 0
	d.cur = 0
	if d.cache != nil {
		d.cache.begin()
	}
	return !d.done
}

// Choose implements engine.Strategy.
func (d *DFS) Choose(p *engine.Point) int {
	d.spin.observe(p)
	if d.cache != nil {
		d.cache.re.observe(p.Exec) // at every point, to place goroutine creations
	}
	i := d.depth
	d.depth++
	if i < len(d.stack) {
		nd := &d.stack[i]
		if nd.n != len(p.Choices) {
			d.Diverged = true
			return engine.Diverged
		}
		d.cur = nd.base + nd.costs[nd.next]
		if nd.keys != nil {
			j := keyIndex(p, nd.keys[nd.order[nd.next]])
			if j == engine.Diverged {
				d.Diverged = true
			}
			return j
		}
		return nd.order[nd.next]
	}
	var order, costs []int
	left := false // an allowed choice is not in order (delay: its cost)
	if d.delay {
		// The choices within the bound only, with their costs.
		order, costs, left = d.spin.delayChoices(d.orderBuf, d.costBuf, p, yieldStart(p), d.bound-d.cur)
		d.orderBuf, d.costBuf = order, costs
	} else {
		ok := d.spin.allowedTo(d.okBuf, p)
		order = rrOrderFrom(d.orderBuf, p, ok, yieldStart(p))
		d.okBuf, d.orderBuf = ok, order
		if d.cost != nil {
			costs = d.cost(d.costBuf, p, ok, order)
			d.costBuf = costs
		}
	}
	if d.MaxDepth > 0 && i >= d.MaxDepth {
		if len(order) > 1 || left {
			d.skipped = true
		}
		if costs != nil {
			d.cur += costs[0]
		}
		d.depth--
		return order[0]
	}
	if d.cache != nil && d.cache.seen(p) {
		// The state is one an explored prefix reached (same HBR):
		// finish the run without branching (seed-004 Algorithm 4).
		d.depth--
		return order[0]
	}
	nd := dfsNode{n: len(p.Choices), base: d.cur}
	if len(d.stack) < cap(d.stack) {
		// The node that was here was popped (End): nothing else holds
		// its arrays (split.go copies a node's), so this one reuses them.
		old := d.stack[:len(d.stack)+1][len(d.stack)]
		nd.order, nd.costs = old.order[:0], old.costs[:0]
	}
	if cap(nd.order) < len(order) || cap(nd.costs) < len(order) {
		// One array for both, at their largest.
		buf := make([]int, 2*len(order))
		nd.order, nd.costs = buf[:0:len(order)], buf[len(order):len(order)]
	}
	if d.sub != nil {
		nd.keys = choiceKeys(p)
	}
	if left {
		d.skipped = true
	}
	for k, j := range order {
		c := 0
		if costs != nil {
			c = costs[k]
			if d.cur+c > d.bound {
				d.skipped = true
				continue
			}
		}
		nd.order = append(nd.order, j)
		nd.costs = append(nd.costs, c)
	}
	if len(nd.order) == 0 {
		// Cannot happen: the round-robin choice costs nothing.
		nd.order, nd.costs = append(nd.order, order[0]), append(nd.costs, 0)
	}
	nd.start = d.runs
	d.stack = append(d.stack, nd)
	d.cur = nd.base + nd.costs[0]
	return nd.order[0]
}

// End implements engine.Strategy: it backtracks to the deepest point with a
// choice left.
func (d *DFS) End(r *engine.Result) {
	d.runs++
	if d.cache != nil && !d.cache.end(r) {
		// A pruned run is not a new terminal schedule.
	} else if d.cost == nil || d.cur == d.bound {
		d.terminal++
		if r.Bug != nil {
			d.bugs++
		}
	}
	// Points deeper than this run reached are stale (the run ended earlier).
	if d.depth < len(d.stack) {
		if d.sub != nil && d.depth <= d.sub.floor {
			// The run ended above the subtree it was to explore.
			d.Diverged, d.done = true, true
			return
		}
		d.stack = d.stack[:d.depth]
	}
	for len(d.stack) > 0 {
		top := &d.stack[len(d.stack)-1]
		top.next++
		if top.next < len(top.order) {
			return
		}
		if d.sub != nil && len(d.stack)-1 <= d.sub.floor {
			break // the unit's node is done: the nodes above are not its
		}
		d.stack = d.stack[:len(d.stack)-1]
	}
	d.done = true
}

// Terminal is the number of terminal schedules explored whose cost equals
// the bound (every schedule when unbounded): with IPB and IDB, the
// schedules new in this iteration.
func (d *DFS) Terminal() int { return d.terminal }

// Exhausted reports whether the search covered its whole space.
func (d *DFS) Exhausted() bool { return d.done }

// SpinBound implements SpinBounder.
func (d *DFS) SpinBound() int { return d.spin.bound() }

// Proven states what an exhausted search proved, or "" if it is not over.
func (d *DFS) Proven() string {
	if !d.done || d.Diverged {
		return ""
	}
	if d.skipped && d.sub != nil && d.cost != nil && d.morePasses() {
		// A subtree of a pass of ipb or idb: the passes after it
		// (Spawned) explore what it left out.
		return "all schedules explored"
	}
	if d.skipped {
		if d.cost == nil {
			return fmt.Sprintf("all schedules up to %d scheduling points explored", d.MaxDepth)
		}
		return fmt.Sprintf("all schedules with ≤ %d %s explored", d.bound, d.unit)
	}
	return "all schedules explored"
}
