package strategy

import (
	"strings"

	"heddle.dev/internal/engine"
)

// unfiredTimers handles the timers that were a choice at some point of the
// run but did not fire after the last such point: the step taken there
// stopped or reset the timer (or, for a ticker whose channel is full,
// made its tick one that would be dropped), which disabled the firing.
// Like an operation still blocked at the end of a run, the firing is a
// next step that races with what it waited for: it races with the steps
// up to and including that one. ev may be the analyzed prefix of a longer
// run; tr is the whole trace.
func (d *DPOR) unfiredTimers(a *analysis, nodeAt map[int]*dnode, ev []*event, tr []engine.Step) {
	lastFired := map[string]int{} // timer id → number of its last firing
	for _, st := range tr {
		if st.G == nil && st.Timer != "" {
			lastFired[st.Timer] = st.N
		}
	}
	last := map[string]*dnode{}
	for _, nd := range d.stack {
		if nd.pos >= len(ev) {
			continue
		}
		for _, k := range nd.keys {
			if strings.HasPrefix(k, "@") && (last[k] == nil || last[k].pos < nd.pos) {
				last[k] = nd
			}
		}
	}
	for k, nd := range last {
		x := nd.pend[k]
		if lastFired[x.timer] > ev[nd.pos].n {
			continue // it fired after all: that firing races as usual
		}
		x = cloneEvent(x)
		prefix := ev[:nd.pos+1]
		d.extendHB(a, prefix, x)
		d.racesOf(a, nodeAt, prefix, x)
	}
}
