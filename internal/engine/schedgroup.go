package engine

import "time"

// Firing groups: the early firings due at one instant offered as one choice.
//
// While goroutines can run, every timer due at the earliest instant (a
// hundred sleepers in conc's pools, thirty in ants', thousands in pond's)
// is an early choice of its own (runTimerChoices), and each costs its
// starvation, its Choice, and a look in every pass over the point's
// choices (dropSpinners, the strategy's), at every point. A strategy that
// implements GroupChooser, and says so for the run (GroupsFirings), is
// offered them as one entry instead: Point.Group is its index and
// Point.GroupN the number of firings it stands for. When Choose returns
// Point.Group, the engine asks Member which of them runs (0 for the first,
// in the order of the flat list: the heap's first timer, then the others
// in the order timersAt gives), and that firing is the step taken and the
// choice recorded, with the Early the flat list would have given it. The
// schedule (Result.Choices), the trace and every later point are those of
// the run that took the same firing from the flat list.
//
// Which firings the group holds is exactly which the flat list would hold.
// A firing is in the flat list unless it starves the goroutines for more
// than MaxStarve, or is a dropped tick. Firing i's starvation is measured
// from the earliest last step in the set of starvation as it is when its
// turn comes in the flat pass: the set at the pass's first timer, plus the
// sleepers of the firings before it, less its own sleeper. That set only
// grows with i, so every starvation is at most the one measured from the
// earliest last step of the set with every member's sleeper in it; when
// that bound is within MaxStarve, every firing is in the list, and the
// group is offered. Otherwise (or when a member is a dropped tick, or a
// sleeper that dropSpinners might drop) the flat list is made, as before.
// The set of starvation after the pass is what the flat pass leaves: every
// member's sleeper but the last one's (the flat pass adds a sleeper when
// the next firing's starvation is computed). The Early of the firing taken
// is computed then, from the set at the pass's first timer (its earliest
// last step, and the next earliest when that one is a member's sleeper)
// and the sleepers before it.
//
// Only strategies for which the firings due together are interchangeable
// opt in: Random draws from the flat list's weights (it maps its draw back
// to a member), so its runs are those of the flat list, draw for draw.
// The exhaustive strategies (DFS, the DPORs, IDB), the replays and any
// wrapper do not implement GroupChooser and see the flat list: their
// choices are distinct goroutines and timers with keys of their own. Runs
// that record their enabled sets (Config.Record) and the race detector's
// runs (the strategy is served from a goroutine of its own) do not group.
type GroupChooser interface {
	Strategy
	// GroupsFirings reports whether the run Begin started takes the
	// firings due at one instant as one choice.
	GroupsFirings() bool
	// Member returns which of p.GroupN firings the choice p.Group stands
	// for is taken, in [0, p.GroupN), after Choose returned p.Group.
	Member(p *Point) int
}

// firingGroup is the group of the current point, if on.
type firingGroup struct {
	on    bool
	rep   *Timer   // the flat list's first firing: the group's entry
	n     int      // firings the entry stands for
	rest  []*Timer // timersAt's list: the others, in the flat order, are rest less rep
	topG  *G       // the set of starvation's earliest at the pass's first timer
	topAt time.Duration
	// second is the next earliest, when topG is a member's sleeper.
	second time.Duration
}

// groupsFirings reports whether this point's timer choices may be grouped.
//
//go:norace
func (e *Exec) groupsFirings() bool {
	return e.grouper != nil && !(e.steps >= e.cfg.FairAfter || e.postFair > 0 || e.overtime)
}

// groupFirings tries to offer the early firings due with t, the heap's
// first, as one choice; it reports false, having added nothing and changed
// nothing, when the flat list must be made.
//
//go:norace
func (e *Exec) groupFirings(t *Timer) bool {
	g := &e.fgroup
	if t.when <= e.now || t.bubble != nil {
		return false
	}
	if t.when-max(e.lastRun, e.idleAt) > e.cfg.MaxStarve {
		return false // none is offered: the flat pass adds nothing either
	}
	rest := e.timersAt(t.when)
	if len(rest) < 2 {
		return false
	}
	mAll := noRun
	for _, u := range rest {
		if tickDropped(u) || u.bubble != nil {
			return false
		}
		if s := u.sleeper; s != nil {
			if s.spins >= spinDrop || s.selStreak >= selectStreak {
				return false // dropSpinners looks at it
			}
			mAll = min(mAll, s.ranAt)
		}
	}
	// The flat pass's first starvation, with its side effects.
	s0 := e.starvation(t)
	st := &e.starve
	topG, topAt := st.topG, st.topAt
	mAll = min(mAll, topAt)
	since := min(t.when, max(mAll, e.idleAt))
	if t.when-since > e.cfg.MaxStarve {
		return false
	}
	second := noRun
	if topG != nil && topG.op.Kind == OpSleep && topG.op.Timer != nil && topG.op.Timer.sleeper == topG && topG.op.Timer.when == t.when {
		second = e.starveSecond()
	}
	// The set of starvation as the flat pass leaves it: every member's
	// sleeper but the last one's, in the flat order (t, then rest less t).
	last := rest[len(rest)-1]
	if last == t {
		last = rest[len(rest)-2]
	}
	for _, u := range rest {
		if u != last && u.sleeper != nil {
			e.couldRunAdd(u.sleeper)
		}
	}
	g.on, g.rep, g.n, g.rest = true, t, len(rest), rest
	g.topG, g.topAt, g.second = topG, topAt, second
	early := max(s0, 1)
	if t.sleeper != nil {
		e.choices = append(e.choices, Choice{G: t.sleeper, Case: -1, Early: early})
	} else {
		e.choices = append(e.choices, Choice{Timer: t, Case: -1, Early: early})
	}
	// Only the entry's goroutine may be missing from the set; a later
	// starvation in this pass looks at it again.
	st.seen = min(st.seen, len(e.choices)-1)
	return true
}

// groupIndex returns the index of the group's entry in e.choices, or -1.
// The entry is among the last two choices (a late wake may follow it).
//
//go:norace
func (e *Exec) groupIndex() int {
	g := &e.fgroup
	if !g.on {
		return -1
	}
	for i := len(e.choices) - 1; i >= 0 && i >= len(e.choices)-2; i-- {
		c := &e.choices[i]
		if c.Early > 0 && (c.Timer == g.rep || (c.Timer == nil && c.G == g.rep.sleeper && g.rep.sleeper != nil)) {
			return i
		}
	}
	return -1
}

// groupMember returns the choice of the group's i-th firing, in the flat
// order, with the Early the flat list gives it.
//
//go:norace
func (e *Exec) groupMember(i int) Choice {
	g := &e.fgroup
	// The firings in the flat order: rep, then rest less rep.
	var u *Timer
	m := noRun // the earliest last step of the members' sleepers before u
	j := 0
	for k := -1; k < len(g.rest); k++ {
		var v *Timer
		if k < 0 {
			v = g.rep
		} else if v = g.rest[k]; v == g.rep {
			continue
		}
		if j == i {
			u = v
			break
		}
		if v.sleeper != nil {
			m = min(m, v.sleeper.ranAt)
		}
		j++
	}
	if u == nil {
		u = g.rep
	}
	// The set at the first timer, less u's sleeper.
	if g.topG != nil && g.topG == u.sleeper {
		m = min(m, g.second)
	} else {
		m = min(m, g.topAt)
	}
	since := min(u.when, max(m, e.idleAt))
	early := max(u.when-since, 1)
	if u.sleeper != nil {
		return Choice{G: u.sleeper, Case: -1, Early: early}
	}
	return Choice{Timer: u, Case: -1, Early: early}
}
