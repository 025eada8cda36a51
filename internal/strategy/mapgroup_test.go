package strategy_test

import (
	"testing"

	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// mapWriteVsGroupRead is a racy map write whose map steps stand for its
// group (rt.MapWriteBegin(m, "g"), heddle test -racy's rewrite of a
// statement whose only points are its map accesses) against a read of
// the map by a statement of the same group that only the group's step
// orders (a lookup in a statement with a call: no map step of its own).
func mapWriteVsGroupRead(o *outcome) {
	m := map[int]int{}
	done := rt.MakeChan[chan bool](0)
	rt.Go(func() {
		rt.MapWriteBegin(m, "g")
		m[1] = 1
		rt.MapWriteEnd(m, "g")
		rt.Send(done, true)
	})
	rt.RacyRead("g")
	x := m[1] + id(0)
	rt.Recv(done)
	o.log(0, int32(x))
}

//go:noinline
func id(x int) int { return x }

// TestMapStepsStandForGroup: a map step that stands for its statement's
// group is ordered with the group's other statements, as the group's own
// step was: both DPORs see the read before and after the write.
func TestMapStepsStandForGroup(t *testing.T) {
	for _, d := range []*strategy.DPOR{strategy.NewSourceDPOR(), strategy.NewOptimalDPOR()} {
		c := exploreCounted(t, d, 100, mapWriteVsGroupRead)
		if !c.outcomes["g0[0] "] || !c.outcomes["g0[1] "] || c.repeated > 0 {
			t.Errorf("%s: outcomes %v, %d repeated classes; want g0[0] and g0[1]", c.stats, c.outcomes, c.repeated)
		}
	}
}
