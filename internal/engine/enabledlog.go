package engine

import "unsafe"

// The enabled sets of a recorded run. The report of a bug prints, at each
// step, the choices that were enabled; a recorded run with thousands of
// enabled goroutines cannot copy them all at every step (a few hundred
// bytes per goroutine per step, most of a replay's time). When the
// enabled set is kept from step to step (enabledset.go), its recorded
// form is kept as chunks of enChunk goroutines, copied on write: a step
// shares the chunks that did not change since the step before it.

const enChunk = 32

// A recorded run keeps the enabled set of every step until it has
// allocated Config.EnabledBound bytes for them (defaultEnabledBound), and
// from then on those of its last enabledKept steps only
// (Result.EnabledFrom): a report shows the last 40 steps. A run with
// 10,000 goroutines waiting on one mutex changes the choices of all of
// them at every Lock and Unlock, and recording them all took 2.4 GB in
// 36,864 steps (GoKer's Grpc3017).
const (
	defaultEnabledBound = 256 << 20
	enabledKept         = 4096
)

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
	if c != nil && sameChoices(c.ch[g.Index%enChunk], e.gch[pos:pos+g.nch]) {
		// Unchanged (a goroutine still blocked, most often): the chunk
		// stays shared. Copying it anyway made a step that recomputes
		// every goroutine copy every chunk: a recorded run with 10,000
		// blocked goroutines and a Timer.Stop per iteration grew by
		// 67 KB a step (GoKer's Grpc3017: 2.4 GB in 36,864 steps).
		return
	}
	if c == nil || c.ver != e.enVer {
		e.enBytes += uint64(unsafe.Sizeof(enChunkT{}))
		nc := &enChunkT{ver: e.enVer}
		if c != nil {
			nc.ch = c.ch
		}
		e.enChunks[ci] = nc
		c = nc
	}
	var cs []Choice
	if g.nch > 0 {
		e.enBytes += uint64(g.nch) * uint64(unsafe.Sizeof(Choice{}))
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
	e.enBytes += uint64(len(s.chunks))*uint64(unsafe.Sizeof(s)) + uint64(len(s.tail))*uint64(unsafe.Sizeof(Choice{}))
	return Keys{snap: s}
}

// boundEnabled drops the enabled sets of the steps before the last
// enabledKept once the run allocated Config.EnabledBound bytes for them.
//
//go:norace
func (e *Exec) boundEnabled() {
	bound := e.cfg.EnabledBound
	if bound == 0 {
		bound = defaultEnabledBound
	}
	if e.enBytes < bound {
		return
	}
	tr := e.res.Trace
	for ; e.res.EnabledFrom < len(tr)-enabledKept; e.res.EnabledFrom++ {
		tr[e.res.EnabledFrom].Enabled = Keys{}
	}
}

// sameChoices reports whether a and b are the same choices, but for the
// operation kind a choice keeps (Choice.kind, for the strategies at the
// point it is offered): a goroutine whose next operation is enabled too
// has the same choice with another kind, and the log (keys) need not copy
// its chunk for that.
//
//go:norace
func sameChoices(a, b []Choice) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.kind, y.kind = OpNone, OpNone
		if x != y {
			return false
		}
	}
	return true
}
