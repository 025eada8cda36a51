package strategy

import (
	"fmt"
	"slices"

	"heddle.dev/internal/engine"
)

// PCT's incremental pass. pass looks at every choice at every point: with
// thousands of goroutines enabled for hundreds of thousands of points
// (pond's TestPoolSubmitWhileStoppingHasNoRace: 10,000 goroutines that each
// submit a task) that was three quarters of a PCT run. passIncr gets the
// same answer from what changed since the previous point.
//
// While the head of the choices is the engine's enabled set kept from
// point to point (Exec.KeptChoices) and the engine lists the goroutines
// whose choices changed (Exec.ChoiceChanges), the goroutines of that head
// (the members) are kept in two heaps:
//   - by priority (highest first, then creation order): the best one;
//   - by how long they were passed over (longest first, then creation
//     order): the starved one. A member's count is not increased at every
//     point: it is passed + (points - from), from being the point it became
//     a member at (its count then was passed), and is written back when it
//     stops being one.
//
// The head's goroutines are in creation order, so "the first choice among
// equals" of pass is the lowest goroutine index. The choices after the
// head (timers, sleepers waking, late wakes: a few) are looked at as pass
// does, after the head, as pass does. A goroutine that is a new member
// and has no priority yet draws one, in creation order: the order in
// which pass draws them. Everything else (bubbles, spinners dropped, a
// rebuilt enabled set) takes pass, which writes the members' counts back
// first, and the heaps are built again from the next pass's head.

// pctHeap is a heap of goroutine indexes; prio orders it by priority, else
// by count.
type pctHeap struct {
	ids  []int32
	prio bool
}

//go:norace
func (s *PCT) hless(h *pctHeap, a, b int32) bool {
	ga, gb := &s.gs[a], &s.gs[b]
	if h.prio {
		if ga.prio != gb.prio {
			return ga.prio > gb.prio
		}
		return a < b
	}
	// The longest passed over: the least from - passed.
	ka, kb := int64(ga.from)-int64(ga.passed), int64(gb.from)-int64(gb.passed)
	if ka != kb {
		return ka < kb
	}
	return a < b
}

//go:norace
func (s *PCT) hset(h *pctHeap, i int) {
	id := h.ids[i]
	if h.prio {
		s.gs[id].hb = int32(i + 1)
	} else {
		s.gs[id].hs = int32(i + 1)
	}
}

//go:norace
func (s *PCT) hup(h *pctHeap, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.hless(h, h.ids[i], h.ids[p]) {
			break
		}
		h.ids[i], h.ids[p] = h.ids[p], h.ids[i]
		s.hset(h, i)
		i = p
	}
	s.hset(h, i)
}

//go:norace
func (s *PCT) hdown(h *pctHeap, i int) {
	n := len(h.ids)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s.hless(h, h.ids[r], h.ids[l]) {
			m = r
		}
		if !s.hless(h, h.ids[m], h.ids[i]) {
			break
		}
		h.ids[i], h.ids[m] = h.ids[m], h.ids[i]
		s.hset(h, i)
		i = m
	}
	s.hset(h, i)
}

//go:norace
func (s *PCT) hpush(h *pctHeap, id int32) {
	h.ids = append(h.ids, id)
	s.hup(h, len(h.ids)-1)
}

// hremove removes the entry at position i.
//
//go:norace
func (s *PCT) hremove(h *pctHeap, i int) {
	n := len(h.ids) - 1
	id := h.ids[i]
	if i != n {
		h.ids[i] = h.ids[n]
		h.ids = h.ids[:n]
		s.hset(h, i)
		s.hfix(h, i)
	} else {
		h.ids = h.ids[:n]
	}
	if h.prio {
		s.gs[id].hb = 0
	} else {
		s.gs[id].hs = 0
	}
}

//go:norace
func (s *PCT) hfix(h *pctHeap, i int) {
	if i > 0 && s.hless(h, h.ids[i], h.ids[(i-1)/2]) {
		s.hup(h, i)
		return
	}
	s.hdown(h, i)
}

// incrOff writes the members' counts back as of the current point, before
// pass runs, and empties the heaps.
//
//go:norace
func (s *PCT) incrOff() {
	pt := int32(s.points)
	for _, id := range s.sh.ids {
		g := &s.gs[id]
		g.passed += pt - g.from
		g.hs, g.hb = 0, 0
	}
	s.sh.ids, s.bh.ids = s.sh.ids[:0], s.bh.ids[:0]
	s.incr = false
}

// incrOn builds the heaps after pass at the current point, whose choices'
// first ngch are the kept enabled set: their goroutines, counted by pass,
// are the members from the next point.
//
//go:norace
func (s *PCT) incrOn(cs []engine.Choice, ngch int) {
	next := int32(s.points + 1)
	var prev *engine.G
	for i := 0; i < ngch; i++ {
		g := cs[i].G
		if g == prev {
			continue
		}
		prev = g
		pg := &s.gs[g.Index]
		pg.from = next
		s.sh.ids = append(s.sh.ids, int32(g.Index))
		s.bh.ids = append(s.bh.ids, int32(g.Index))
	}
	for i := range s.sh.ids {
		s.hset(&s.sh, i)
		s.hset(&s.bh, i)
	}
	for i := len(s.sh.ids)/2 - 1; i >= 0; i-- {
		s.hdown(&s.sh, i)
		s.hdown(&s.bh, i)
	}
	s.incr = true
}

// headPos is the index in cs[:n] (goroutine choices in creation order) of
// the first choice of the goroutine of index idx, and whether it has one.
//
//go:norace
func headPos(cs []engine.Choice, n, idx int) (int, bool) {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].G.Index < idx {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n && cs[lo].G.Index == idx
}

// choose is pass, incrementally when it can (above).
//
//go:norace
func (s *PCT) choose(p *engine.Point) (best, starved int) {
	e := p.Exec
	chg, known := e.ChoiceChanges(s.chg)
	s.chg = chg
	ngch := -1
	if !e.InBubbles() {
		ngch = e.KeptChoices(p.Choices)
	}
	if s.incr && known && ngch > 0 {
		if best, starved, ok := s.passIncr(p, ngch, chg); ok {
			s.incrPoints++
			return best, starved
		}
	}
	if s.incr {
		s.incrOff()
	}
	best, starved = s.pass(p)
	if ngch > 0 && !s.full {
		s.incrOn(p.Choices, ngch)
	}
	return best, starved
}

// passIncr is pass from the goroutines whose choices changed since the
// previous point (chg), the first ngch choices being the kept enabled set
// as at that point but for them. ok is false if a goroutine of the head
// is also a choice after it that pass counts: the members' counts are then
// as of this point and nothing is drawn, for incrOff and pass.
//
//go:norace
func (s *PCT) passIncr(p *engine.Point, ngch int, chg []*engine.G) (best, starved int, ok bool) {
	cs := p.Choices
	pt := int32(s.points)
	s.fresh = s.fresh[:0]
	for _, g := range chg {
		idx := g.Index
		pg := s.goroutine(idx)
		_, in := headPos(cs, ngch, idx)
		ls := int32(g.LastStep())
		if pg.hs > 0 {
			if in && pg.since == ls {
				continue // still a member, not run since
			}
			pg.passed += pt - pg.from
			s.hremove(&s.sh, int(pg.hs-1))
			if pg.hb > 0 {
				s.hremove(&s.bh, int(pg.hb-1))
			}
		}
		if !in {
			continue
		}
		pg = &s.gs[idx]
		if pg.since != ls {
			pg.since, pg.passed = ls, 0 // it ran since: count again
		}
		pg.from = pt
		s.hpush(&s.sh, int32(idx))
		if !pg.set {
			s.fresh = append(s.fresh, int32(idx)) // drawn below, in creation order
			continue
		}
		s.hpush(&s.bh, int32(idx))
	}
	for i := ngch; i < len(cs); i++ {
		if c := &cs[i]; c.G != nil && c.Early == 0 && c.G.Index < len(s.gs) && s.gs[c.G.Index].hs > 0 {
			// Also after the head, where pass counts it again: pass
			// does that. The members' counts are as of this point,
			// none drawn yet: incrOff and pass take over from here.
			return 0, 0, false
		}
	}
	if len(s.fresh) > 0 {
		slices.Sort(s.fresh)
		for _, idx := range s.fresh {
			pg := &s.gs[idx]
			pg.prio, pg.set = s.draw(), true
			s.hpush(&s.bh, idx)
		}
	}
	if e := p.Exec; e.Checking() {
		s.checkIncr(p, ngch)
	}
	bound := int32(min(s.starveBound(), 1<<30))
	best, starved = -1, -1
	bestP, most := 0.0, int32(0)
	if len(s.sh.ids) > 0 {
		id := s.sh.ids[0]
		pg := &s.gs[id]
		if n := pg.passed + pt - pg.from; n >= bound {
			starved, _ = headPos(cs, ngch, int(id))
			most = n
		}
		id = s.bh.ids[0]
		best, _ = headPos(cs, ngch, int(id))
		bestP = s.gs[id].prio
	}
	// The choices after the head, as pass looks at them.
	prev := cs[ngch-1].G
	for i := ngch; i < len(cs); i++ {
		c := cs[i]
		g := c.G
		if g != nil && c.Early == 0 && g != prev {
			prev = g
			pg := s.goroutine(g.Index)
			if ls := int32(g.LastStep()); pg.since != ls {
				pg.since, pg.passed = ls, 0
			}
			if n := pg.passed; n >= bound && n > most {
				starved, most = i, n
			}
			pg.passed++
			pr := pg.prio
			if !pg.set {
				pr = s.draw()
				pg.prio, pg.set = pr, true
			}
			if best < 0 || pr > bestP {
				best, bestP = i, pr
			}
			continue
		}
		if c.Early > 0 && !s.earlyAllow {
			continue
		}
		if pr := s.priority(c); best < 0 || pr > bestP {
			best, bestP = i, pr
		}
	}
	return best, starved, true
}

// checkIncr checks (HEDDLE_CHECKSET) that the members are the head's
// goroutines and that the heaps' tops are what pass would find in the
// head: it panics otherwise.
//
//go:norace
func (s *PCT) checkIncr(p *engine.Point, ngch int) {
	cs := p.Choices
	pt := int32(s.points)
	bound := int32(min(s.starveBound(), 1<<30))
	best, starved := -1, -1
	bestP, most := 0.0, int32(0)
	members := 0
	var prev *engine.G
	for i := 0; i < ngch; i++ {
		g := cs[i].G
		if g == prev {
			continue
		}
		prev = g
		members++
		pg := &s.gs[g.Index]
		if pg.hs == 0 || pg.hb == 0 || !pg.set {
			panic(fmt.Sprintf("heddle: PCT's incremental pass: g%d, a choice at point %d, is not a member", g.Index, pt))
		}
		if pg.since != int32(g.LastStep()) {
			panic(fmt.Sprintf("heddle: PCT's incremental pass: g%d ran since it became a member (point %d)", g.Index, pt))
		}
		if n := pg.passed + pt - pg.from; n >= bound && n > most {
			starved, most = i, n
		}
		if best < 0 || pg.prio > bestP {
			best, bestP = i, pg.prio
		}
	}
	if members != len(s.sh.ids) || members != len(s.bh.ids) {
		panic(fmt.Sprintf("heddle: PCT's incremental pass: %d members in the heaps (%d, %d), %d goroutines in the head at point %d", members, len(s.sh.ids), len(s.bh.ids), members, pt))
	}
	hbest, _ := headPos(cs, ngch, int(s.bh.ids[0]))
	hstarved := -1
	if id := s.sh.ids[0]; s.gs[id].passed+pt-s.gs[id].from >= bound {
		hstarved, _ = headPos(cs, ngch, int(id))
	}
	if hbest != best || hstarved != starved {
		panic(fmt.Sprintf("heddle: PCT's incremental pass at point %d: best %d, starved %d; a full pass: best %d, starved %d", pt, hbest, hstarved, best, starved))
	}
}
