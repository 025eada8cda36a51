package strategy

import (
	"encoding/json"
	"testing"
)

// TestODWakeupTreeJSONDeep (issue 12): a unit whose wakeup tree holds a
// sequence as long as a run goes through JSON (a worker's report, a unit
// dispatched) and comes back the same tree. Nested, a 33,000-step
// sequence of GoKer's Grpc3017 passed encoding/json's 10,000 levels: the
// worker's summary did not parse, and the coordinator took the unit for
// finished with 0 runs ("1 exhausted").
func TestODWakeupTreeJSONDeep(t *testing.T) {
	names := newUnionFind()
	names.init()
	ev := func(g string) *pevent { return &pevent{gids: []string{g}} }
	// A chain of 20,000 steps below a first child, and a second child
	// with two leaves.
	root := &wnode{}
	n := &wnode{ev: ev("a")}
	root.children = append(root.children, n)
	const depth = 20000
	for i := 0; i < depth; i++ {
		c := &wnode{ev: ev("g")}
		n.children = []*wnode{c}
		n = c
	}
	b2 := &wnode{ev: ev("b"), wake: []*pevent{ev("w")}}
	b2.children = []*wnode{{ev: ev("c")}, {ev: ev("d")}}
	root.children = append(root.children, b2)

	f := &ODFrag{W: exportW(root, names)}
	b, err := json.Marshal(Unit{Strategy: "odpor", OD: f})
	if err != nil {
		t.Fatal(err)
	}
	var u Unit
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatalf("a unit with a %d-step wakeup sequence: %v", depth, err)
	}
	got := importW(u.OD.W, newUnionFind())
	if len(got.children) != 2 {
		t.Fatalf("%d children at the top, want 2", len(got.children))
	}
	k := 0
	for m := got.children[0]; len(m.children) > 0; m = m.children[0] {
		if len(m.children) != 1 {
			t.Fatalf("chain node %d has %d children", k, len(m.children))
		}
		k++
	}
	if k != depth {
		t.Errorf("chain of %d steps, want %d", k, depth)
	}
	s := got.children[1]
	if s.ev.gids[0] != "b" || len(s.wake) != 1 || len(s.children) != 2 || s.children[0].ev.gids[0] != "c" || s.children[1].ev.gids[0] != "d" {
		t.Errorf("second child: %+v", s)
	}
}

// TestODEventJSONRoundTrip: a step goes through a unit's JSON and comes
// back the same (psame, and each field), whether its per-goroutine
// entries are the usual ones (left out) or not; an ordinary step is
// encoded without them.
func TestODEventJSONRoundTrip(t *testing.T) {
	names := newUnionFind()
	names.init()
	evs := []*pevent{
		{gids: []string{"g1"}, cases: []int{-1}, sel: []bool{false}, arr: []bool{false}, acc: []pacc{{name: 0}}},
		{gids: []string{"g1", "g2"}, cases: []int{2, -1}, sel: []bool{true, false}, arr: []bool{false, false}},
		{gids: []string{"g3"}, cases: []int{-1}, sel: []bool{false}, arr: []bool{true}},
		{gids: []string{"g4", "g5"}, cases: []int{-1, 0}, sel: []bool{false, false}, arr: []bool{false, true}},
		{timer: "t1"},
	}
	b, err := json.Marshal(exportEvs(evs, names))
	if err != nil {
		t.Fatal(err)
	}
	var back []ODEvent
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := importEvs(back, names)
	for i, p := range evs {
		q := got[i]
		if !psame(p, q) || !psame(q, p) || q.timer != p.timer || len(q.acc) != len(p.acc) {
			t.Errorf("step %d: %+v came back %+v", i, p, q)
			continue
		}
		for k := range p.gids {
			if q.cases[k] != p.cases[k] || q.sel[k] != p.sel[k] || q.arr[k] != p.arr[k] {
				t.Errorf("step %d goroutine %d: %+v came back %+v", i, k, p, q)
			}
		}
	}
	if e := back[0]; e.C != nil || e.S != nil || e.A != nil {
		t.Errorf("an ordinary step is encoded with its usual entries: %s", b)
	}
}
