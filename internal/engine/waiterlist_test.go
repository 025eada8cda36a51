package engine

import "testing"

// TestWaiterListScan checks waiterList.scan against its definition: the
// two oldest current waiters that did not commit, in announce order, and
// a list that stays bounded when waiters behind the oldest two go stale.
func TestWaiterListScan(t *testing.T) {
	var gs []*G
	var l waiterList
	add := func() *G {
		g := &G{Index: len(gs), state: gParked, opSeq: uint64(len(gs) + 1), committed: -1}
		gs = append(gs, g)
		l.ws = append(l.ws, waiter{g: g, seq: g.opSeq})
		return g
	}
	// want is the definition: a pass over every waiter ever added (each
	// announced once, with opSeq Index+1), not over what l kept.
	want := func() [2]*G {
		var out [2]*G
		n := 0
		for _, g := range gs {
			if g.state == gParked && g.opSeq == uint64(g.Index+1) && g.committed < 0 && n < 2 {
				out[n] = g
				n++
			}
		}
		return out
	}
	check := func(what string) {
		t.Helper()
		exp := want()
		var out [2]waiter
		l.scan(&out)
		if out[0].g != exp[0] || out[1].g != exp[1] {
			t.Fatalf("%s: scan found %v, %v; want %v, %v", what, out[0].g, out[1].g, exp[0], exp[1])
		}
	}
	for i := 0; i < 10; i++ {
		add()
	}
	check("ten waiters")
	gs[0].opSeq++ // moved on
	gs[1].committed = 0
	check("the oldest moved on, the second committed")
	gs[2].state = gDone
	check("the third done")
	// Waiters behind the oldest two go stale, again and again: without
	// the sweep, the list would keep every one of them.
	for round := 0; round < 1000; round++ {
		g := add()
		check("one more")
		g.opSeq++
	}
	live := 0
	for _, g := range gs {
		if g.state == gParked && g.opSeq == uint64(g.Index+1) {
			live++
		}
	}
	if len(l.ws) > 2*live+8+1 {
		t.Errorf("%d entries kept for %d current waiters", len(l.ws), live)
	}
	// The oldest current ones go, one by one: each time, the next two
	// must be found behind them.
	for _, g := range gs {
		if g.state == gParked && g.opSeq == uint64(g.Index+1) && g.committed < 0 {
			add()
			check("before the oldest moves on")
			g.opSeq++
		}
	}
	for _, g := range gs[3:] {
		g.opSeq = 0
	}
	check("all moved on")
}
