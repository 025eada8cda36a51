package strategy

import "testing"

// TestODKeepUnit: a unit whose rest would hold more than odRestMax path
// levels (one unit per wakeup child not started on the stack, each with
// the path down to it) is kept by its worker past its time slice and a
// yield; a shallower one is handed back; a unit before its first run and
// the sequential exploration never are.
func TestODKeepUnit(t *testing.T) {
	deep := func(depth int) *DPOR {
		d := newODUnitDPOR(&odUnit{}, newUnionFind())
		for i := 0; i < depth; i++ {
			d.stack = append(d.stack, &dnode{wut: &wnode{children: []*wnode{{}, {}}}})
		}
		d.od.n, d.od.ran = depth, true
		return d
	}
	if d := deep(2000); !d.KeepUnit() {
		t.Errorf("rest of a 2,000-deep stack with 2 children a level: not kept")
	}
	if d := deep(500); d.KeepUnit() {
		t.Errorf("rest of a 500-deep stack with 2 children a level: kept")
	}
	d := deep(2000)
	d.od.ran = false
	if d.KeepUnit() {
		t.Errorf("a unit before its first run: kept")
	}
	if NewOptimalDPOR().KeepUnit() {
		t.Errorf("the sequential optimal DPOR: kept")
	}
}
