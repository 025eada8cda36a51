package strategy

import (
	"fmt"

	"heddle.dev/internal/engine"
)

// CheckOrderAndCosts compares, at point p, rrOrder and the one-pass
// costs (preemptionCosts, delayCosts) with the definitions they replaced:
// an insertion sort, and one walk of the order per choice.
func CheckOrderAndCosts(p *engine.Point) error {
	ok := make([]int, len(p.Choices))
	for i := range ok {
		ok[i] = i
	}
	order := rrOrder(p, ok)
	if want := refOrder(p, ok); fmt.Sprint(order) != fmt.Sprint(want) {
		return fmt.Errorf("round-robin order %v, want %v", order, want)
	}
	pc, dc := preemptionCosts(nil, p, ok, order), delayCosts(nil, p, ok, order)
	for k, j := range order {
		if want := refPreemptionCost(p, ok, j); pc[k] != want {
			return fmt.Errorf("preemption cost of choice %d (%s) is %d, want %d", j, p.Choices[j].Key(), pc[k], want)
		}
		if want := refDelayCost(p, ok, j); dc[k] != want {
			return fmt.Errorf("delay cost of choice %d (%s) is %d, want %d", j, p.Choices[j].Key(), dc[k], want)
		}
	}
	return nil
}

// refOrder is rrOrder as first written: an insertion sort.
func refOrder(p *engine.Point, idx []int) []int {
	start := rrStart(p)
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
	out := append([]int(nil), idx...)
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && dist(out[b]) < dist(out[b-1]); b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// refPreemptionCost is seed-004 §2.2 for one choice i.
func refPreemptionCost(p *engine.Point, ok []int, i int) int {
	if p.Prev < 0 {
		return 0
	}
	prev := p.Choices[p.Prev].G
	if yielding(prev) {
		return 0 // a Gosched gives the turn away
	}
	in := false
	for _, j := range ok {
		if j == p.Prev {
			in = true
		}
	}
	if !in {
		return 0
	}
	c := p.Choices[i]
	if c.G == prev && c.Early == 0 {
		return 0
	}
	return 1
}

// refDelayCost is seed-004 §2.3 for one choice i: one walk of the order.
func refDelayCost(p *engine.Point, ok []int, i int) int {
	order := refOrder(p, ok)
	cost := 0
	var lastG *engine.G
	for _, j := range order {
		c := p.Choices[j]
		if j == i {
			return cost
		}
		if isTimerChoice(c) {
			cost++
			continue
		}
		if c.G == p.Choices[i].G && !isTimerChoice(p.Choices[i]) {
			cost++ // an earlier case of the chosen select
			continue
		}
		if c.G != lastG {
			cost++
			lastG = c.G
		}
	}
	return cost
}

// DelayChecker compares delayChoices with what it replaced in DFS.Choose:
// allowedTo, rrOrderFrom from yieldStart, delayCosts over the whole order,
// and the choices whose cost is over the budget dropped.
type DelayChecker struct{ spin spinTracker }

// Check compares the two at p for budgets 0 to maxBudget, and returns the
// number of choices the two passes looked at (the whole order's length,
// once) and delayChoices kept, over the budgets.
func (c *DelayChecker) Check(p *engine.Point, maxBudget int) (full, kept int, err error) {
	c.spin.observe(p)
	ok := c.spin.allowedTo(nil, p)
	order := rrOrderFrom(nil, p, ok, yieldStart(p))
	costs := delayCosts(nil, p, ok, order)
	for b := 0; b <= maxBudget; b++ {
		var wo, wc []int
		wleft := false
		for k, j := range order {
			if costs[k] > b {
				wleft = true
				continue
			}
			wo, wc = append(wo, j), append(wc, costs[k])
		}
		o, cs, left := c.spin.delayChoices(nil, nil, p, yieldStart(p), b)
		if fmt.Sprint(o, cs, left) != fmt.Sprint(wo, wc, wleft) {
			return 0, 0, fmt.Errorf("budget %d, %d choices, start %d: delayChoices gives order %v costs %v left %v, want %v %v %v", b, len(p.Choices), yieldStart(p), o, cs, left, wo, wc, wleft)
		}
		kept += len(o)
	}
	return len(order), kept, nil
}

// NodeInts returns the number of nodes on d's stack and the ints their
// order and cost arrays hold (their capacities).
func NodeInts(d *DFS) (nodes, ints int) {
	for _, nd := range d.stack {
		ints += cap(nd.order) + cap(nd.costs)
	}
	return len(d.stack), ints
}
