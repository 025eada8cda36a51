package engine

// The enabled sets of a recorded run. The report of a bug prints, at each
// step, the choices that were enabled; a recorded run with thousands of
// enabled goroutines cannot copy them all at every step (a few hundred
// bytes per goroutine per step, most of a replay's time). When the
// enabled set is kept from step to step (enabledset.go), its recorded
// form is kept as chunks of enChunk goroutines, copied on write: a step
// shares the chunks that did not change since the step before it.

const enChunk = 32

// Keys is the set of choices enabled at a step, by choice key.
type Keys struct {
	list []string // small runs: the keys
	snap *enSnap  // large runs
}

// enSnap is the enabled set of one step in a large run: the goroutine
// choices, by chunk of goroutine indices, then the timer choices.
type enSnap struct {
	chunks []*enChunkT
	n      int      // goroutine choices in chunks
	tail   []Choice // the choices after the goroutines' (a timer)
}

type enChunkT struct {
	ver uint64            // Exec.enVer when it was copied: mutable while equal
	ch  [enChunk][]Choice // each goroutine's choices
}

// Len returns the number of choices.
//
//go:norace
func (k Keys) Len() int {
	if k.snap == nil {
		return len(k.list)
	}
	return k.snap.n + len(k.snap.tail)
}

// Strings returns the keys of the choices, in the order of Point.Choices.
//
//go:norace
func (k Keys) Strings() []string {
	if k.snap == nil {
		return k.list
	}
	out := make([]string, 0, k.Len())
	for _, c := range k.snap.chunks {
		if c == nil {
			continue
		}
		for _, cs := range c.ch {
			for _, x := range cs {
				out = append(out, x.Key())
			}
		}
	}
	for _, x := range k.snap.tail {
		out = append(out, x.Key())
	}
	return out
}

// logChoices records g's choices (e.gch[pos:pos+g.nch]) for the
// snapshots of a recorded run.
//
//go:norace
func (e *Exec) logChoices(g *G, pos int) {
	if !e.cfg.Record || !e.incr {
		return
	}
	ci := g.Index / enChunk
	for len(e.enChunks) <= ci {
		e.enChunks = append(e.enChunks, nil)
	}
	c := e.enChunks[ci]
	if c == nil || c.ver != e.enVer {
		nc := &enChunkT{ver: e.enVer}
		if c != nil {
			nc.ch = c.ch
		}
		e.enChunks[ci] = nc
		c = nc
	}
	var cs []Choice
	if g.nch > 0 {
		cs = make([]Choice, g.nch)
		for i := range cs {
			cs[i] = e.gch[pos+i]
		}
	}
	c.ch[g.Index%enChunk] = cs
}

// snapshot returns the enabled set of the step being recorded.
//
//go:norace
func (e *Exec) snapshot(enabled []Choice) Keys {
	if len(enabled) == 0 {
		return Keys{}
	}
	if !e.incr || e.overdue {
		keys := make([]string, len(enabled))
		for i, c := range enabled {
			keys[i] = c.Key()
		}
		return Keys{list: keys}
	}
	s := &enSnap{n: len(e.gch)}
	s.chunks = make([]*enChunkT, len(e.enChunks))
	//lint:ignore S1001 copy's runtime code reports its accesses to the race detector.
	for i, c := range e.enChunks {
		s.chunks[i] = c
	}
	if len(enabled) > len(e.gch) {
		s.tail = make([]Choice, len(enabled)-len(e.gch))
		for i := range s.tail {
			s.tail[i] = enabled[len(e.gch)+i]
		}
	}
	e.enVer++ // the chunks are shared from now on
	return Keys{snap: s}
}
