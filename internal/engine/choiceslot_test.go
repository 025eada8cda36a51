package engine

import (
	"testing"
	"time"
)

// TestAppendTimerChoiceStaleSlot checks that appendTimerChoice, which
// writes the choice field by field into the slot after cs (a store-
// forwarding stall otherwise), leaves nothing of what the slot held: the
// slot of a reused buffer holds an older choice.
func TestAppendTimerChoiceStaleSlot(t *testing.T) {
	g, old := &G{Index: 4}, &G{Index: 9}
	tm, oldTm := &Timer{}, &Timer{}
	stale := Choice{G: old, Case: 3, Select: true, Arrive: true, spin: spinSure, kind: OpLock, gi: 10, Timer: oldTm, Early: 9}
	for _, tc := range []struct {
		name  string
		g     *G
		t     *Timer
		early time.Duration
		want  Choice
	}{
		{"timer", nil, tm, 7, Choice{Timer: tm, Case: -1, Early: 7}},
		{"sleeper", g, nil, 0, Choice{G: g, Case: -1, kind: OpSleep}},
		{"sleeper early", g, nil, 5, Choice{G: g, Case: -1, Early: 5, kind: OpSleep}},
	} {
		for _, reuse := range []bool{true, false} {
			cs := make([]Choice, 1, 2)
			if !reuse {
				cs = cs[:1:1] // no room: append grows the buffer
			} else {
				cs[:2][1] = stale
			}
			got := appendTimerChoice(cs, tc.g, tc.t, tc.early)
			if len(got) != 2 || got[1] != tc.want {
				t.Errorf("%s (reuse %v): got %+v, want %+v", tc.name, reuse, got[len(got)-1], tc.want)
			}
		}
	}
}
