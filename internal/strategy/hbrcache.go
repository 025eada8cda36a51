package strategy

import "heddle.dev/internal/engine"

// HBRCache is HBR caching (seed-004 §2.8, Algorithm 4; CHESS's
// happens-before graph caching) and, with Lazy, lazy HBR caching (§5.3):
// depth-first search that does not explore past a state whose prefix has
// the same happens-before relation (lazy HBR) as a prefix explored
// before. By Theorem 4.2.1 (4.3.1 for the lazy HBR) equal relations reach
// equal states, so the search still reaches every terminal state: it is
// sound. The relation is checked at each scheduling point reached (the
// run is then finished without branching and not counted), not before
// executing each successor.
type HBRCache struct {
	*DFS
}

type hbrCache struct {
	lazy    bool
	seenH   map[uint64]bool
	re      *runEvents
	pruned  bool
	hb, lzy map[uint64]bool // terminal classes
	Pruned  int             // runs cut short
}

// NewHBRCache returns HBR caching, or lazy HBR caching when lazy is set.
func NewHBRCache(lazy bool) *HBRCache {
	d := NewDFS(0)
	d.cache = &hbrCache{lazy: lazy, seenH: map[uint64]bool{}, hb: map[uint64]bool{}, lzy: map[uint64]bool{}}
	return &HBRCache{DFS: d}
}

// NeedsTrace implements TraceNeeder.
func (h *HBRCache) NeedsTrace() bool { return true }

// Classes implements ClassReporter.
func (h *HBRCache) Classes() (hbr, lazy int) { return len(h.cache.hb), len(h.cache.lzy) }

// Pruned is the number of runs cut short at a cached state.
func (h *HBRCache) Pruned() int { return h.cache.Pruned }

// Proven implements Prover.
func (h *HBRCache) Proven() string {
	if h.DFS.Proven() == "" {
		return ""
	}
	return "all reachable states explored (up to happens-before)"
}

func (c *hbrCache) begin() {
	c.re = newRunEvents()
	c.pruned = false
}

// seen reports whether the state at p was reached before by an
// equivalent prefix, and records it otherwise.
func (c *hbrCache) seen(p *engine.Point) bool {
	if c.pruned {
		return true
	}
	c.re.observe(p.Exec)
	gs := p.Exec.Gs()
	hb(c.re.ev, c.re.created, len(gs), c.lazy)
	names := make([]string, len(gs)+1)
	for _, g := range gs {
		names[g.Index] = g.ID
	}
	names[len(gs)] = "@timers"
	// The pending operations are part of the state's identity only
	// through the events that announced them, which the HBR holds.
	k := hash64(classKey(c.re.ev, names, c.lazy))
	if c.seenH[k] {
		c.pruned = true
		c.Pruned++
		return true
	}
	c.seenH[k] = true
	return false
}

// end records a terminal run's classes and reports whether it counts.
func (c *hbrCache) end(r *engine.Result) bool {
	if c.pruned {
		return false
	}
	a := analyze(c.re, r, true)
	h, l := hash64(classKey(a.ev, a.procName, false)), hash64(classKey(a.ev, a.procName, true))
	c.hb[h] = true
	c.lzy[l] = true
	// Algorithm 4 also checks the terminal state's relation: a terminal
	// HBR reached before is not a new terminal schedule.
	k := h
	if c.lazy {
		k = l
	}
	if c.seenH[k^1] {
		return false
	}
	c.seenH[k^1] = true
	return true
}
