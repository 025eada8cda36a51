package strategy

import (
	"heddle.dev/internal/engine"
)

// HaPSet coverage-guided search (Wang, Said and Gupta, ICSE 2011;
// seed-001): source DPOR with sleep sets and a preemption bound, whose
// race reversals are pruned when the statement pair they would create is
// already covered. A statement is an operation kind and its call site
// (engine.Config.Record must be set: NeedsRecord). The HaPSet pairs are
// learned from every run the search makes (continuous learning, Algorithm
// 5), with the "global last access" reading of Algorithm 1: after an event
// p, the most recent earlier event d on the same object (unlocks
// ignored), if of another goroutine and conflicting, covers the pair
// (stmt(d) → stmt(p)) with the relative order of the two goroutines'
// creation indices as the thread bit. A reversal of the race (e, t) is
// kept only if (stmt(t) → stmt(e)) is not covered.
//
// It is a bug-hunting mode, not a proof: the pruning is unsound, and
// Proven says nothing. Coverage reports the number of distinct pairs seen.
func NewHaPSet(bound int) *HaPSetDPOR {
	return &HaPSetDPOR{DPOR: &DPOR{names: newUnionFind(), PBound: bound, guide: &hapGuide{pairs: map[hapPair]bool{}}}}
}

// HaPSetDPOR is the HaPSet-guided search.
type HaPSetDPOR struct{ *DPOR }

// NeedsRecord implements RecordNeeder: statements need call sites.
func (h *HaPSetDPOR) NeedsRecord() bool { return true }

// Coverage is the number of distinct HaPSet pairs seen.
func (h *HaPSetDPOR) Coverage() int { return len(h.guide.pairs) }

type hapGuide struct {
	pairs map[hapPair]bool
}

type hapStmt struct {
	kind engine.OpKind
	pc   uintptr
}

type hapPair struct {
	pred, succ hapStmt
	predLower  bool // the predecessor's goroutine was created first
}

func stmtOf(e *event) hapStmt { return hapStmt{kind: e.kinds[0], pc: e.pc} }

type hapLast struct {
	g     *engine.G
	stmt  hapStmt
	write bool
}

// learn adds the pairs of one run.
func (h *hapGuide) learn(ev []*event) {
	last := map[uintptr]hapLast{}
	for _, p := range ev {
		if p.timer != "" || isUnlock(p) {
			continue
		}
		st := stmtOf(p)
		for _, a := range p.acc {
			if pseudo(a.obj) || a.tag >= tagLeave {
				continue // a queue: not the statement's own object
			}
			if d, ok := last[a.obj]; ok && d.g != p.gs[0] && (d.write || a.write) {
				h.pairs[hapPair{pred: d.stmt, succ: st, predLower: d.g.Index < p.gs[0].Index}] = true
			}
			last[a.obj] = hapLast{g: p.gs[0], stmt: st, write: a.write}
		}
	}
}

// covered reports whether running t just before e (reversing their race)
// would only exercise a pair already covered.
func (h *hapGuide) covered(t, e *event) bool {
	if t.timer != "" || e.timer != "" {
		return false
	}
	return h.pairs[hapPair{pred: stmtOf(t), succ: stmtOf(e), predLower: t.gs[0].Index < e.gs[0].Index}]
}
