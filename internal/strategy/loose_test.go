package strategy_test

import (
	"testing"

	"heddle.dev/internal/strategy"
)

// TestOptimalDPORLooseWakeupNodes: on generated seed 2233, optimal DPOR
// missed 2 HB classes because a step whose announcement was not known
// was inserted into a wakeup tree after a sibling it commutes with, and
// that sibling slept in its subtree. learnAnnouncements makes the step's
// announcement known there; without it, the loose wakeup node must wake
// the sibling (wnode.loose) and every class still be reached.
func TestOptimalDPORLooseWakeupNodes(t *testing.T) {
	var prog func(*outcome)
	for _, g := range generated {
		if g.name == "gen2233" {
			prog = g.body
		}
	}
	if prog == nil {
		t.Fatal("gen2233 is not in the generated corpus")
	}
	dfs := exploreProgram(t, strategy.NewDFS(0), 20000, prog)
	strategy.SetLearnAnnouncements(false)
	defer strategy.SetLearnAnnouncements(true)
	o := strategy.NewOptimalDPOR()
	x := exploreProgram(t, o, 20000, prog)
	sameSet(t, "gen2233", "terminal states", "odpor without learnAnnouncements", dfs.states, x.states)
	t.Logf("gen2233: %d classes; odpor without learnAnnouncements: %s", len(dfs.states), o.Stats())
}
