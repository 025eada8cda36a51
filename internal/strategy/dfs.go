package strategy

import "heddle.dev/internal/engine"

// DFS is unbounded depth-first search over the scheduling choices
// (seed-004 §2.1). Children are ordered round-robin in creation order,
// starting from the goroutine that ran last, so that the first schedule is
// the non-preemptive round-robin one. It re-executes the program from the
// start for every schedule, replaying the prefix it backtracks to.
//
// MaxDepth, if positive, bounds the number of scheduling points explored
// per run: past it, the first choice in round-robin order is always taken.
type DFS struct {
	MaxDepth int

	stack []dfsNode
	depth int
	done  bool
	// Diverged is set when a replayed prefix offered a different number of
	// choices than when it was first explored: the program is not
	// deterministic under a fixed schedule.
	Diverged bool
}

type dfsNode struct {
	order []int // choice indices in exploration order
	next  int   // position in order of the choice taken now
	n     int   // number of choices, to detect divergence
}

// NewDFS returns a depth-first search.
func NewDFS(maxDepth int) *DFS { return &DFS{MaxDepth: maxDepth} }

// Begin implements engine.Strategy.
func (d *DFS) Begin(run int) bool {
	d.depth = 0
	return !d.done
}

// Choose implements engine.Strategy.
func (d *DFS) Choose(p *engine.Point) int {
	i := d.depth
	d.depth++
	if i < len(d.stack) {
		nd := d.stack[i]
		if nd.n != len(p.Choices) {
			d.Diverged = true
			return engine.Diverged
		}
		return nd.order[nd.next]
	}
	order := roundRobin(p)
	if d.MaxDepth > 0 && i >= d.MaxDepth {
		return order[0]
	}
	d.stack = append(d.stack, dfsNode{order: order, n: len(p.Choices)})
	return order[0]
}

// End implements engine.Strategy: it backtracks to the deepest point with a
// choice left.
func (d *DFS) End(*engine.Result) {
	// Points deeper than this run reached are stale (the run ended earlier).
	if d.depth < len(d.stack) {
		d.stack = d.stack[:d.depth]
	}
	for len(d.stack) > 0 {
		top := &d.stack[len(d.stack)-1]
		top.next++
		if top.next < len(top.order) {
			return
		}
		d.stack = d.stack[:len(d.stack)-1]
	}
	d.done = true
}

// roundRobin orders the choices of p: goroutines in creation order starting
// from the one that ran last (wrapping round), each goroutine's select
// cases in order, then timers.
func roundRobin(p *engine.Point) []int {
	order := make([]int, 0, len(p.Choices))
	start := 0
	if p.Prev >= 0 {
		start = p.Prev
	} else if cur := p.Exec.Cur(); cur != nil {
		// The previous goroutine is blocked: continue with the next one in
		// creation order.
		for i, c := range p.Choices {
			if c.G != nil && c.G.Index > cur.Index {
				start = i
				break
			}
		}
	}
	ng := 0
	for _, c := range p.Choices {
		if c.G != nil {
			ng++
		}
	}
	for k := 0; k < ng; k++ {
		order = append(order, (start+k)%ng)
	}
	for i := ng; i < len(p.Choices); i++ {
		order = append(order, i)
	}
	return order
}
