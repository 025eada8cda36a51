package strategy

// The estimates of the runs of a unit of iterative preemption or delay
// bounding (ipb, idb). A pass with bound c explores only the schedules
// whose cost is at most c: below a choice that spends the bound, delay
// bounding makes one run (only the round-robin choice costs nothing), and
// pass 1 of delay bounding makes about one run per scheduling point of
// its first run. The product of the numbers of choices on the path
// (childRuns) does not know the bound: on GoKer's Grpc3017 (runs of 30,000
// scheduling points) it was the cap, 2^40, for every unit of pass 1, the
// ordered split held every unit after the first as past the budget, the
// idle worker had the first one yield after each run and its rest was
// split at its deepest node: one-run units, each a worker process and a
// replay of a 30,000-node prefix, until the coordinator's heap grew past
// its bound at 402 units.
//
// The estimate here counts the schedules within the bound. With r of the
// bound left before node k, the runs of the subtree at node k are
//
//	S_k(r) = sum over the choices p of node k with cost c_p <= r of S_{k+1}(r - c_p)
//
// where the nodes of the fragment's path stand for those of every branch
// (as they do in the product), and S past the deepest node is one run
// (the end of a run), or what the fragment the unit was split from knew
// (FragNode.EstR). Below a choice that spends the bound of delay bounding
// this is exact (one run), and so it is for pass 1 below a choice that
// costs nothing, as far as the path's nodes are the branch's.

// boundOf is the bound of the pass a tree unit of ipb or idb explores
// (u.Pass), or -1 for other units: a DFS unit's estimates are products.
func boundOf(u Unit) int {
	if u.Frag == nil || len(u.Frag.Nodes) == 0 || u.Frag.Nodes[0].Order == nil {
		return -1
	}
	switch u.Strategy {
	case "ipb", "idb":
		return max(u.Pass, 0)
	}
	return -1
}

// boundedExact reports whether the bounded estimates of u's runs are
// exact as far as the path's nodes are every branch's: passes 0 and 1 of
// delay bounding, where below the choice that costs nothing is the path
// (one choice costs nothing at a node) and below a delay that spends the
// bound is one run. Elsewhere the branches below a choice that costs
// something may interleave longer than the path: on two goroutines'
// loops of 40 steps each, idb's pass 2 after its first run makes 1,681
// runs, estimated 861; those estimates are guesses (sure false).
func boundedExact(u Unit, bound int) bool {
	return u.Strategy == "idb" && bound <= 1
}

// boundedRuns is S_k(r) of a fragment of a pass with bound bound, for the
// nodes k from the fragment's floor+1 down to the end of its path.
type boundedRuns struct {
	f    *Fragment
	w    int // bound+1: r is 0..bound
	from int // the first node k whose S is kept
	s    []int
}

func newBoundedRuns(f *Fragment, bound int) *boundedRuns {
	b := &boundedRuns{f: f, w: bound + 1, from: f.Floor + 1}
	b.s = make([]int, (len(f.Nodes)-b.from+1)*b.w)
	tail := b.at(len(f.Nodes))
	var est []int
	if len(f.Nodes) > 0 {
		est = f.Nodes[len(f.Nodes)-1].EstR
	}
	for r := range tail {
		tail[r] = 1
		if r < len(est) && est[r] > 0 {
			tail[r] = est[r]
		}
	}
	for k := len(f.Nodes) - 1; k >= b.from; k-- {
		cur, next := b.at(k), b.at(k+1)
		n := &f.Nodes[k]
		for r := range cur {
			s := 0
			for p := range n.Order {
				if c := cost(n, p); c <= r {
					s = estAdd(s, next[r-c])
				}
			}
			cur[r] = max(s, 1)
		}
	}
	return b
}

// cost is the cost of the choice at position p of n's order.
func cost(n *FragNode, p int) int {
	if p < len(n.Costs) {
		return max(n.Costs[p], 0)
	}
	return 0
}

// at is S_k, for k from b.from to len(b.f.Nodes).
func (b *boundedRuns) at(k int) []int {
	i := (k - b.from) * b.w
	return b.s[i : i+b.w]
}

// choice is the runs below the choice at position p of node k's order
// (k >= the floor).
func (b *boundedRuns) choice(k, p int) int {
	n := &b.f.Nodes[k]
	r := min(max(b.w-1-n.Base-cost(n, p), 0), b.w-1)
	return b.at(k + 1)[r]
}

// choices is the runs below the choices at positions p to q-1 of node k.
func (b *boundedRuns) choices(k, p, q int) int {
	s := 0
	for ; p < q; p++ {
		s = estAdd(s, b.choice(k, p))
	}
	return s
}

// below is below(f) for a bounded fragment: the runs left below the
// choice taken at each node from the floor down (the rest of its subtree
// past the choices explored), all of them counted, none measured.
func (b *boundedRuns) below() []int {
	f := b.f
	last := len(f.Nodes) - 1
	runs := make([]int, len(f.Nodes))
	runs[last] = b.choice(last, f.Nodes[last].Next)
	for k := last; k > f.Floor; k-- {
		n := &f.Nodes[k]
		runs[k-1] = estAdd(runs[k], b.choices(k, n.Next+1, len(n.Order)))
	}
	return runs
}

// estimate is the runs of the unit: those left below the choice taken at
// its floor and those of the choices after it there.
func (b *boundedRuns) estimate() int {
	k := b.f.Floor
	n := &b.f.Nodes[k]
	return estAdd(b.below()[k], b.choices(k, n.Next+1, len(n.Order)))
}

// setEstR gives the last node of dst, a fragment split from b's with the
// same path down to it, the runs b knows below it (when dst's path is the
// shorter).
func (b *boundedRuns) setEstR(dst *Fragment) {
	i := len(dst.Nodes) - 1
	if i < 0 || i+1 < b.from || i+1 > len(b.f.Nodes) {
		return
	}
	dst.Nodes[i].EstR = append([]int(nil), b.at(i+1)...)
}

// splitBounded is splitFrag for a unit of a pass of ipb or idb: a keeps
// the part below the choice taken at the shallowest node whose part is
// estimated to hold at most chunk runs (the deepest with choices left if
// none), more[0] the choices after it there that hold at most chunk runs
// (one at least), more[1] the others there, and the last the choices left
// above (splitDFSAt); when more[0] holds every choice left there, it
// holds those above too. chunk 0: half the unit's runs, as estimated.
func splitBounded(u Unit, bound, chunk int) (a Unit, more []Unit, ok bool) {
	f := u.Frag
	b := newBoundedRuns(f, bound)
	kept := b.below()
	if chunk <= 0 {
		n := f.Nodes[f.Floor]
		chunk = max(estAdd(kept[f.Floor], b.choices(f.Floor, n.Next+1, len(n.Order)))/2, 1)
	}
	i := -1
	for k := len(f.Nodes) - 1; k >= f.Floor; k-- {
		if len(f.Nodes[k].Order)-f.Nodes[k].Next-1 >= 1 && (i < 0 || kept[k] <= chunk) {
			i = k
		}
	}
	if i < 0 {
		return u, nil, false
	}
	nd := &f.Nodes[i]
	end, sum := nd.Next+1, 0
	for end < len(nd.Order) {
		c := b.choice(i, end)
		if end > nd.Next+1 && estAdd(sum, c) > chunk {
			break
		}
		sum = estAdd(sum, c)
		end++
	}
	if end == len(nd.Order) && i > f.Floor {
		// Every choice left at node i goes: with those left above it,
		// as one unit (DFS's own order after a's runs), not a unit
		// of their own beside one for the nodes above (splitDFSAt):
		// in pass 1 of idb a node's choices left are one delay, one run.
		fa := f.clone(len(f.Nodes))
		fa.Floor = i
		fa.Nodes[i].Order = append([]int(nil), nd.Order[:nd.Next+1]...)
		fa.Nodes[i].Costs = append([]int(nil), nd.Costs[:min(nd.Next+1, len(nd.Costs))]...)
		fb := f.clone(i + 1)
		fb.Nodes[i].Next++
		b.setEstR(fb)
		return Unit{Strategy: u.Strategy, Frag: fa, Pass: u.Pass}, []Unit{{Strategy: u.Strategy, Frag: fb, Pass: u.Pass}}, true
	}
	a, more = splitDFSAt(u, i, end)
	return a, more, true
}
