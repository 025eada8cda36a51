package engine

// Marked poll loops: the rewriter marks a loop whose iterations, all but
// the one that leaves it, change nothing (internal/rewrite/pollloop.go):
// its condition and the path back to it read (atomic loads, a select that
// takes its default, Gosched) and write nothing, no variable that outlives
// the iteration. From its second iteration on, the loop's operations are
// announced marked (rt.PollR, rt.PollGosched, rt.PollSelect: MarkPoll
// around the step), and a goroutine dropped at a marked operation
// (dropSpinners; the strategies' spinTracker) does not bound the claim of
// an exhaustive search (Result.SpinDrops, PollDrops).
//
// Why such a drop leaves out no outcome. Take any schedule σ, and in it a
// goroutine's run through a marked loop: iterations 1..n, n the one that
// leaves (or none leaves: the run ends inside). Iterations 1..n-1 read
// shared state and change none of it, nor the goroutine's locals: the
// goroutine is at the loop's head, with the same locals, after each of
// them. Remove their steps from σ: what is left, σ', is a schedule too
// (no other goroutine's step depended on a read; a fence of heddle -racy
// the first iteration waited at is taken before iteration n instead,
// where the buffer is as empty: the loop buffers no store), and iteration n
// starts at the head with the same locals and reads the same shared state
// at the same place: it ends as in σ, and so does the run. Do so for every
// marked loop of every goroutine: σ' runs each marked loop's last
// iteration as its first, so no step of σ' is a marked operation (they
// are those of second and later iterations). A search whose drops were all
// at marked operations therefore left out no step of σ': it ran σ' (up to
// the strategy's equivalence), which ends as σ does. Drops at unmarked
// operations still bound the claim, as before: a loop with a counter, or
// with any write on its way back to its head, is never marked.
//
// What σ' changes besides: the polls' virtual time (poll moves the clock
// a microsecond a poll so that a loop waiting for a deadline sees time
// pass; natively a poll takes any time, and the time bound does not count
// it either) and heddle's own counters (spins, the loads a goroutine
// remembers).
//
// The mark is per operation, set by the rt function of the operation just
// before its step and cleared after it, with no user code between: a
// goroutine parked at its pending operation is marked exactly when that
// operation is a marked one. A panic in the loop's own code (a nil
// pointer in the condition) comes after the step and leaves no mark
// behind. rt.PollSelect takes receive cases only (a send on a closed
// channel panics in the step).

// MarkPoll marks (on) or unmarks the current goroutine's next operation as
// one of a marked poll loop's second or later iteration. rt calls it
// around the step (rt.PollR).
//
//go:norace
func (e *Exec) MarkPoll(on bool) {
	if g := e.cur; g != nil {
		g.pollMark = on
	}
}

// PollMarked reports whether g's pending operation is marked: an operation
// of a marked poll loop's second or later iteration (MarkPoll). A
// strategy that leaves g out there does not bound its claim.
//
//go:norace
func (g *G) PollMarked() bool { return g.pollMark }

// countedDrop reports whether dropSpinners, which dropped goroutines for
// spinning from e.choices (still all of them), dropped one that is not at
// a marked operation: the drop then bounds an exhaustive claim
// (Result.SpinDrops). It looks again, after the fact, so that the pass
// itself reads no more than before: with ants' pools' hundreds of
// Gosched spinners, each goroutine on a cache line of its own, it stops
// at the first.
//
//go:norace
func (e *Exec) countedDrop() bool {
	for i := range e.choices {
		c := &e.choices[i]
		switch c.spin {
		case spinNo:
		case spinSure:
			if !c.G.pollMark {
				return true
			}
		default:
			g := c.G
			if g == nil || g.pollMark || (g.spins < g.dropAt() && g.selStreak < selectStreak) {
				continue
			}
			if !e.unfair(c) && e.spinning(c) {
				return true
			}
		}
	}
	return false
}
