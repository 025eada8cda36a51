package strategy

import "testing"

// TestODKeepUnit: a unit whose rest would hold more than odRestMax levels
// and wakeup children (the children not started on its stack, with the
// path they share) is kept by its worker past its time slice and a
// yield; a smaller one is handed back, even deep (the rest is linear in
// the depth: a 2,000-deep stack with 2 children a level was kept when
// each child had a copy of the path); a unit before its first run and
// the sequential exploration never are.
func TestODKeepUnit(t *testing.T) {
	deep := func(depth, width int) *DPOR {
		d := newODUnitDPOR(&odUnit{}, newUnionFind())
		kids := make([]*wnode, width) // shared: only their number counts
		for i := 0; i < depth; i++ {
			d.stack = append(d.stack, &dnode{wut: &wnode{children: kids}})
		}
		d.od.n, d.od.ran = depth, true
		return d
	}
	if d := deep(odKeepDepth+1, 1); !d.KeepUnit() {
		t.Errorf("a unit whose run is %d deep: not kept", odKeepDepth+1)
	}
	if d := deep(odKeepDepth, 1); d.KeepUnit() {
		t.Errorf("a unit whose run is %d deep, one child a level: kept", odKeepDepth)
	}
	if d := deep(6000, 200); !d.KeepUnit() {
		t.Errorf("rest of a 6,000-deep stack with 200 children a level: not kept")
	}
	if d := deep(2000, 2); d.KeepUnit() {
		t.Errorf("rest of a 2,000-deep stack with 2 children a level: kept")
	}
	d := deep(6000, 200)
	d.od.ran = false
	if d.KeepUnit() {
		t.Errorf("a unit before its first run: kept")
	}
	if NewOptimalDPOR().KeepUnit() {
		t.Errorf("the sequential optimal DPOR: kept")
	}
}
