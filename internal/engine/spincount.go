package engine

// Counted loops: the rewriter marks a loop whose trip count is bounded by
// a small constant (internal/rewrite/countloop.go: `for i := 0; i < 3 &&
// !seen; i++`, i written nowhere else; `for range 3`), and announces its
// polls (an atomic load, a Gosched, a select, directly in the loop, not in
// a nested loop or a call) with bound, the number of polls the whole loop
// can run: trips times the polls of its body, plus trips+1 times those of
// its condition (rt.CountR, rt.CountGosched, rt.CountSelect: MarkCounted
// around the step). At such an operation a goroutine is not spinning
// (dropSpinners; the strategies' spinTracker, G.Counted) before it polled
// spinDrop+bound times in a row: the loop ends before that, so a search
// explores every iteration, and an ending before the others moved (the
// native outcome the spin bound hid: "seen false" of TestGoschedSpin) is
// not left out.
//
// Why this is sound, whatever the rewriter marked. A mark never makes a
// drop uncounted: it only raises the number of polls in a row after which
// the goroutine is dropped, from spinDrop (the strategies: spinLimit) to
// spinDrop+bound, for that operation. Every drop still counts
// (Result.SpinDrops, the strategies' drops) unless it is at a marked poll
// loop's operation (spinmark.go), so an exhaustive search that says
// "exhausted" left out no goroutine at any point, as before. A wrong mark
// (a loop that is not counted) could only cost runs, never a claim.
//
// Why searches still terminate. spins counts the polls in a row, and
// grows by one at each; a marked operation is exempt only while spins <
// spinDrop+bound, bound at most MaxCountBound (MarkCounted clamps it). A goroutine that
// polls without end, whether the counted loop sits inside an unbounded
// one (`for { for i := 0; i < 3; i++ { runtime.Gosched() } }`: each entry
// of the inner loop polls again, spins keeps growing) or it polls
// elsewhere after the loop, is dropped once its streak passes that, as
// any spinner: the drop counts, and the claim says "up to the spin
// bound". Nothing resets the streak but progress, which a spin makes
// none of.

// dropAt is the number of polls in a row after which g is spinning at its
// pending operation: spinDrop, more at a counted loop's (countBound).
//
//go:norace
func (g *G) dropAt() int { return spinDrop + int(g.countBound) }

// MarkCounted marks the current goroutine's next operation as one of a
// counted loop that polls at most bound times, or unmarks it (bound 0). rt
// calls it around the step (rt.CountGosched).
//
//go:norace
func (e *Exec) MarkCounted(bound int) {
	if g := e.cur; g != nil {
		g.countBound = int32(max(0, min(bound, MaxCountBound)))
	}
}

// MaxCountBound is the largest bound of polls of a counted loop
// (MarkCounted): the rewriter marks no loop that can poll more often.
const MaxCountBound = 64

// Counted reports whether g's pending operation is a counted loop's and g
// has not yet polled as many times in a row as the loop can
// (spinDrop+bound, MarkCounted): a strategy must not take g for a spinner
// there.
//
//go:norace
func (g *G) Counted() bool { return g.countBound > 0 && g.spins < g.dropAt() }
