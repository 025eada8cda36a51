package strategy

import (
	"fmt"

	"heddle.dev/internal/engine"
)

// Iterative is iterative preemption bounding (IPB) or iterative delay
// bounding (IDB), seed-004 §2.2–2.3, Algorithm 3: a bounded depth-first
// search with bound c = 0, 1, 2, ..., until a pass skips no schedule (the
// whole space is covered) or MaxBound is passed.
//
// Each pass re-executes the schedules of cost < c (they are the paths to
// the new ones), but only terminal schedules whose cost is exactly c are
// counted in pass c, so no schedule is counted twice across passes.
// When pass c completes, Proven says so: every schedule with at most c
// preemptions (delays) has been explored.
type Iterative struct {
	delay    bool
	MaxBound int // last bound to explore; negative: no limit

	pass     *DFS
	bound    int
	proven   int // highest bound whose pass completed, -1: none
	complete bool
	counted  []int // terminal schedules counted in each pass
	Diverged bool
	// spinBound is the passes' SpinBound: a spinning goroutine was left
	// out in one of them.
	spinBound int
}

// NewIPB returns iterative preemption bounding.
func NewIPB(maxBound int) *Iterative { return newIterative(false, maxBound) }

// NewIDB returns iterative delay bounding.
func NewIDB(maxBound int) *Iterative { return newIterative(true, maxBound) }

func newIterative(delay bool, maxBound int) *Iterative {
	it := &Iterative{delay: delay, MaxBound: maxBound, proven: -1}
	it.pass = NewBoundedDFS(delay, 0)
	it.counted = []int{0}
	return it
}

// Begin implements engine.Strategy.
func (it *Iterative) Begin(run int) bool {
	if it.complete || it.Diverged {
		return false
	}
	if it.pass.done {
		it.proven = it.bound
		if !it.pass.skipped {
			it.complete = true
			return false
		}
		if it.MaxBound >= 0 && it.bound >= it.MaxBound {
			return false
		}
		it.bound++
		it.pass = NewBoundedDFS(it.delay, it.bound)
		it.counted = append(it.counted, 0)
	}
	return it.pass.Begin(run)
}

// Choose implements engine.Strategy.
func (it *Iterative) Choose(p *engine.Point) int {
	i := it.pass.Choose(p)
	if i == engine.Diverged {
		it.Diverged = true
	}
	return i
}

// End implements engine.Strategy.
func (it *Iterative) End(r *engine.Result) {
	before := it.pass.terminal
	it.pass.End(r)
	it.spinBound = max(it.spinBound, it.pass.SpinBound())
	it.counted[it.bound] += it.pass.terminal - before
	if it.pass.done {
		it.proven = it.bound
		if !it.pass.skipped {
			it.complete = true
		}
	}
}

// SpinBound implements SpinBounder: of the passes so far.
func (it *Iterative) SpinBound() int { return it.spinBound }

// Bound is the bound of the pass in progress (or of the last pass).
func (it *Iterative) Bound() int { return it.bound }

// Counted returns the number of terminal schedules counted in each pass:
// Counted()[c] is the number of schedules with exactly c preemptions
// (delays). Their sum counts every explored schedule once.
func (it *Iterative) Counted() []int { return append([]int(nil), it.counted...) }

// Schedules is the number of distinct terminal schedules explored.
func (it *Iterative) Schedules() int {
	n := 0
	for _, c := range it.counted {
		n += c
	}
	return n
}

// Proven states what the search proved so far: "all schedules with ≤ c
// preemptions explored" once pass c completed, or "all schedules explored"
// when a pass skipped nothing. Empty before the first pass completes.
func (it *Iterative) Proven() string {
	if it.Diverged || it.proven < 0 {
		return ""
	}
	if it.complete {
		return "all schedules explored"
	}
	unit := "preemptions"
	if it.delay {
		unit = "delays"
	}
	return fmt.Sprintf("all schedules with ≤ %d %s explored", it.proven, unit)
}
