package strategy

import (
	"strconv"
	"testing"
)

// TestWakeupInsertAlongABranchCopiesNothing: inserting a sequence into
// an optimal-DPOR wakeup tree whose branch already starts with it
// descends one node per step of the sequence, each time without its
// first step. That was a copy of the rest at each level, quadratic in the
// sequence: a 50,000-step run of GoKer's Grpc3017 inserted a sequence of
// 50,000 steps along a branch as long, copying 1.25 billion pointers,
// and odpor spent 20 to 30 s per run there.
func TestWakeupInsertAlongABranchCopiesNothing(t *testing.T) {
	const n = 2000
	ev := make([]*pevent, n+1)
	for i := range ev {
		ev[i] = &pevent{timer: "g0/t" + strconv.Itoa(i)}
	}
	// The tree holds the branch ev[0], ..., ev[n-1].
	root := &wnode{}
	at := root
	for _, e := range ev[:n] {
		c := &wnode{ev: e}
		at.children = append(at.children, c)
		at = c
	}
	nd := &dnode{keys: []string{"k"}, pend: map[string]*event{"k": {timer: ev[0].timer}}, wut: root}
	d := &DPOR{}
	w := append([]*pevent(nil), ev...) // the branch, then one step more
	allocs := testing.AllocsPerRun(5, func() { d.insert(nd, w) })
	if allocs > 1 {
		t.Errorf("inserting %d steps along a branch of %d allocated %v times, want none", len(w), n, allocs)
	}
	// The leaf covers the sequence: the tree is unchanged.
	depth := 0
	for at := root; len(at.children) > 0; at = at.children[0] {
		if len(at.children) != 1 {
			t.Fatalf("a node at depth %d has %d children after the insertion", depth, len(at.children))
		}
		depth++
	}
	if depth != n {
		t.Fatalf("the branch is %d deep after the insertion, want %d", depth, n)
	}
	for i, e := range w {
		if e != ev[i] {
			t.Fatalf("the inserted sequence changed at %d", i)
		}
	}
}

// TestCheckInitial: an initial of w found further in it is taken out of
// a copy (w is left as it was); found first, the rest is w's.
func TestCheckInitial(t *testing.T) {
	step := func(g string) *pevent {
		return &pevent{gids: []string{g}, cases: []int{-1}, sel: []bool{false}, arr: []bool{false}}
	}
	a, b, c := step("g0.1"), step("g0.2"), step("g0.3") // independent steps
	d := &DPOR{}
	w := []*pevent{a, b, c}
	got, ok := d.checkInitial(step("g0.1"), w)
	if !ok || len(got) != 2 || got[0] != b || got[1] != c {
		t.Fatalf("checkInitial(a, abc) = %v %v, want bc", got, ok)
	}
	got, ok = d.checkInitial(step("g0.2"), w)
	if !ok || len(got) != 2 || got[0] != a || got[1] != c {
		t.Fatalf("checkInitial(b, abc) = %v %v, want ac", got, ok)
	}
	if w[0] != a || w[1] != b || w[2] != c {
		t.Fatalf("checkInitial changed w")
	}
}
