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

// pctHeap is a heap of members, least key first, then lowest goroutine
// index: by count, the key is from - passed (the longest passed over
// first); by priority, minus the priority. An entry is dropped lazily: it
// stands for its goroutine while the goroutine is a member and the entry's
// seq is the goroutine's (a goroutine that leaves and joins again, or
// gets a new priority, has a new entry), so that a member costs a push when
// it joins and nothing when it leaves (a mutex's waiters leave and join
// at every Lock and Unlock).
type pctHeap struct {
	e    []pctEntry
	prio bool
}

type pctEntry struct {
	key float64
	id  int32
	seq uint32
}

//go:norace
func entryLess(a, b *pctEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.id < b.id
}

//go:norace
func (s *PCT) live(h *pctHeap, x *pctEntry) bool {
	g := &s.gs[x.id]
	if !g.in {
		return false
	}
	if h.prio {
		return g.bseq == x.seq
	}
	return g.sseq == x.seq
}

//go:norace
func (h *pctHeap) up(i int) {
	e := h.e
	for i > 0 {
		p := (i - 1) / 2
		if !entryLess(&e[i], &e[p]) {
			return
		}
		e[i], e[p] = e[p], e[i]
		i = p
	}
}

//go:norace
func (h *pctHeap) down(i int) {
	e := h.e
	n := len(e)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && entryLess(&e[r], &e[l]) {
			m = r
		}
		if !entryLess(&e[m], &e[i]) {
			return
		}
		e[i], e[m] = e[m], e[i]
		i = m
	}
}

//go:norace
func (h *pctHeap) push(x pctEntry) {
	h.e = append(h.e, x)
	h.up(len(h.e) - 1)
}

//go:norace
func (h *pctHeap) pop() {
	n := len(h.e) - 1
	h.e[0] = h.e[n]
	h.e = h.e[:n]
	if n > 0 {
		h.down(0)
	}
}

// heapTop returns the member at the top of h, dropping the entries above it
// that stand for none, or -1 when there is none.
//
//go:norace
func (s *PCT) heapTop(h *pctHeap) int32 {
	for len(h.e) > 0 {
		if x := &h.e[0]; s.live(h, x) {
			return x.id
		}
		h.pop()
	}
	return -1
}

// compact drops the entries that stand for no member when they are most
// of h.
//
//go:norace
func (s *PCT) compact(h *pctHeap) {
	if len(h.e) <= 2*s.members+64 {
		return
	}
	kept := h.e[:0]
	for i := range h.e {
		if s.live(h, &h.e[i]) {
			kept = append(kept, h.e[i])
		}
	}
	h.e = kept
	for i := len(kept)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// join makes the goroutine of index id a member from point from.
//
//go:norace
func (s *PCT) join(id int32, from int32) {
	g := &s.gs[id]
	g.in, g.from = true, from
	g.sseq++
	s.members++
	s.sh.push(pctEntry{key: float64(from) - float64(g.passed), id: id, seq: g.sseq})
	if g.set {
		s.prioChanged(id)
	}
}

// prioChanged gives member id's new priority an entry.
//
//go:norace
func (s *PCT) prioChanged(id int32) {
	g := &s.gs[id]
	g.bseq++
	s.bh.push(pctEntry{key: -g.prio, id: id, seq: g.bseq})
}

// incrOff writes the members' counts back as of the current point, before
// pass runs, and empties the heaps.
//
//go:norace
func (s *PCT) incrOff() {
	pt := int32(s.points)
	for i := range s.sh.e {
		x := &s.sh.e[i]
		if s.live(&s.sh, x) {
			g := &s.gs[x.id]
			g.passed += pt - g.from
			g.in = false
		}
	}
	s.sh.e, s.bh.e = s.sh.e[:0], s.bh.e[:0]
	s.members = 0
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
		id := int32(g.Index)
		pg := &s.gs[id]
		pg.in, pg.from = true, next
		pg.sseq++
		pg.bseq++
		s.members++
		s.sh.e = append(s.sh.e, pctEntry{key: float64(next) - float64(pg.passed), id: id, seq: pg.sseq})
		s.bh.e = append(s.bh.e, pctEntry{key: -pg.prio, id: id, seq: pg.bseq})
	}
	for i := len(s.sh.e)/2 - 1; i >= 0; i-- {
		s.sh.down(i)
		s.bh.down(i)
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
		if pg.in {
			if in && pg.since == ls {
				continue // still a member, not run since
			}
			pg.passed += pt - pg.from
			pg.in = false
			s.members--
		}
		if !in {
			continue
		}
		if pg.since != ls {
			pg.since, pg.passed = ls, 0 // it ran since: count again
		}
		if !pg.set {
			s.fresh = append(s.fresh, int32(idx)) // drawn below, in creation order
		}
		s.join(int32(idx), pt)
	}
	for i := ngch; i < len(cs); i++ {
		if c := &cs[i]; c.G != nil && c.Early == 0 && c.G.Index < len(s.gs) && s.gs[c.G.Index].in {
			// Also after the head, where pass counts it again: pass
			// does that. The members' counts are as of this point,
			// none drawn yet: incrOff and pass take over from here.
			return 0, 0, false
		}
	}
	if len(s.fresh) > 0 {
		slices.Sort(s.fresh)
		for _, id := range s.fresh {
			pg := &s.gs[id]
			pg.prio, pg.set = s.draw(), true
			s.prioChanged(id)
		}
	}
	s.compact(&s.sh)
	s.compact(&s.bh)
	if e := p.Exec; e.Checking() {
		s.checkIncr(p, ngch)
	}
	bound := int32(min(s.starveBound(), 1<<30))
	best, starved = -1, -1
	bestP, most := 0.0, int32(0)
	if id := s.heapTop(&s.sh); id >= 0 {
		pg := &s.gs[id]
		if n := pg.passed + pt - pg.from; n >= bound {
			starved, _ = headPos(cs, ngch, int(id))
			most = n
		}
		id = s.heapTop(&s.bh)
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
			pr := s.prioOf(pg)
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
		if !pg.in || !pg.set {
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
	if members != s.members {
		panic(fmt.Sprintf("heddle: PCT's incremental pass: %d members, %d goroutines in the head at point %d", s.members, members, pt))
	}
	hbest, _ := headPos(cs, ngch, int(s.heapTop(&s.bh)))
	hstarved := -1
	if id := s.heapTop(&s.sh); s.gs[id].passed+pt-s.gs[id].from >= bound {
		hstarved, _ = headPos(cs, ngch, int(id))
	}
	if hbest != best || hstarved != starved {
		panic(fmt.Sprintf("heddle: PCT's incremental pass at point %d: best %d, starved %d; a full pass: best %d, starved %d", pt, hbest, hstarved, best, starved))
	}
}
