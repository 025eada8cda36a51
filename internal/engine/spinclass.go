package engine

import (
	"fmt"
	"os"
)

// What a choice's spin says of its goroutine: spinUnknown (a timer's or
// sleeper's choice, made elsewhere than addChoice and merge's waiter path:
// dropSpinners looks at the goroutine), spinNo (it has
// not polled spinDrop times in a row (dropAt: more at a counted loop's
// operation, spincount.go) nor has a select streak of
// selectStreak: never dropped), spinSure (it polled spinDrop times and its
// operation, a Gosched, a len of a channel or a failed RWMutex TryLock,
// makes no progress whatever the others do: always spinning, never unfair).
const (
	spinUnknown uint8 = iota
	spinNo
	spinSure
)

// spinClass is the spin of a choice of g computed now (addChoice); sel
// tells whether it is a select case.
//
//go:norace
func spinClass(g *G, sel bool) uint8 {
	if g.spins < g.dropAt() {
		if g.selStreak < selectStreak {
			return spinNo
		}
		return spinUnknown
	}
	if !sel {
		switch g.op.Kind {
		case OpYield, OpChanLen, OpRWTryLock, OpRWTryRLock:
			return spinSure // as spinning says for them, with Early 0
		}
	}
	return spinUnknown
}

// checkSpin checks (HEDDLE_CHECKSET) that every choice's spin, set when
// the choice was computed and kept since, answers as the look at its
// goroutine would now: dropSpinners then keeps the same choices as a pass
// that looks at every goroutine.
//
//go:norace
func (e *Exec) checkSpin() {
	for i := range e.choices {
		c := &e.choices[i]
		g := c.G
		ok := true
		switch c.spin {
		case spinNo:
			ok = g != nil && g.spins < g.dropAt() && g.selStreak < selectStreak
		case spinSure:
			ok = g != nil && !e.unfair(c) && e.spinning(c)
		}
		if !ok {
			msg := fmt.Sprintf("engine: at step %d, choice %s has spin %d, stale: spins %d, select streak %d, operation %v", e.steps, c.Key(), c.spin, g.spins, g.selStreak, g.op.Kind)
			fmt.Fprintln(os.Stderr, msg)
			panic(msg)
		}
	}
}

// checkKinds checks (HEDDLE_CHECKSET) that every choice offered with a
// kept kind or index (Choice.PendingKind, GoIndex) has its goroutine's
// operation's kind and its index now.
//
//go:norace
func (e *Exec) checkKinds() {
	// Every goroutine choice kept in e.gch has its index: choicePos and
	// gallop search e.gch by it.
	for i := range e.gch {
		if c := &e.gch[i]; c.G == nil || int(c.gi) != c.G.Index+1 {
			msg := fmt.Sprintf("engine: at step %d, choice %s at %d of the enabled set has index %d kept", e.steps, c.Key(), i, int(c.gi)-1)
			fmt.Fprintln(os.Stderr, msg)
			panic(msg)
		}
	}
	for i := range e.choices {
		c := &e.choices[i]
		g := c.G
		if g == nil {
			if c.kind != OpNone || c.gi != 0 {
				panic(fmt.Sprintf("engine: at step %d, timer choice %s has a kind %v or index %d", e.steps, c.Key(), c.kind, int(c.gi)-1))
			}
			continue
		}
		if (c.kind != OpNone && c.kind != g.op.Kind) || (c.gi != 0 && int(c.gi) != g.Index+1) {
			msg := fmt.Sprintf("engine: at step %d, choice %s has kind %v and index %d kept, stale: operation %v, index %d", e.steps, c.Key(), c.kind, int(c.gi)-1, g.op.Kind, g.Index)
			fmt.Fprintln(os.Stderr, msg)
			panic(msg)
		}
	}
}
