package strategy

import (
	"strconv"
	"strings"

	"heddle.dev/internal/engine"
)

// Replay makes the choices of a recorded schedule, once. When a recorded
// choice is not enabled, or the run needs more choices than were recorded,
// the run has diverged: the program is not the one that was recorded, or it
// is nondeterministic.
type Replay struct {
	choices []string
	next    int
	// byID finds the run's goroutines by id: with thousands enabled,
	// computing the key of every choice at every point was most of a
	// replay (the determinism check, the report of a bug).
	byID  map[string]*engine.G
	known int       // goroutines of the run in byID
	g0    *engine.G // the run's first goroutine
	// detached is where the recorded run's goroutines waited in code
	// heddle does not control (engine.Config.Detached).
	detached []engine.Detached
}

// NewReplay returns a strategy that replays choices. Their last one may be
// the record of the run's detached goroutines (WithDetached), which the
// replay follows too (DetachPlan).
func NewReplay(choices []string) *Replay {
	choices, detached := SplitDetached(choices)
	return &Replay{choices: choices, detached: detached}
}

// DetachPlan returns where the recorded run's goroutines were detached in
// code heddle does not control, for engine.Config.Detached.
func (r *Replay) DetachPlan() []engine.Detached { return r.detached }

// detachedPrefix starts the pseudo-choice that carries a run's detaches
// (engine.Result.Detached) with its choices, last: the choices of a run
// go from the run to its schedule file and to every replay of it, and
// its detaches must go with them.
const detachedPrefix = "!detached "

// WithDetached returns the choices of a run followed by the record of
// where its goroutines were detached (none, if ds is empty): what
// NewReplay replays.
func WithDetached(choices []string, ds []engine.Detached) []string {
	return append(choices[:len(choices):len(choices)], detachedPrefix+engine.FormatDetached(ds))
}

// SplitDetached separates what WithDetached joined. A record that does
// not parse is dropped: the replay then runs as one without it.
func SplitDetached(choices []string) ([]string, []engine.Detached) {
	n := len(choices)
	if n == 0 || !strings.HasPrefix(choices[n-1], detachedPrefix) {
		return choices, nil
	}
	ds, err := engine.ParseDetached(strings.TrimPrefix(choices[n-1], detachedPrefix))
	if err != nil {
		return choices[:n-1], nil
	}
	return choices[:n-1], ds
}

// Begin implements engine.Strategy.
func (r *Replay) Begin(run int) bool {
	r.next = 0
	r.byID = nil
	return run == 1
}

// Choose implements engine.Strategy.
func (r *Replay) Choose(p *engine.Point) int {
	if r.next >= len(r.choices) {
		return engine.Diverged
	}
	want := r.choices[r.next]
	r.next++
	if i, ok := r.find(p, want); ok {
		return i
	}
	for i, c := range p.Choices {
		if c.HasKey(want) {
			return i
		}
	}
	return engine.Diverged
}

// find looks for the choice of key want without computing every choice's
// key: the goroutine choices come in creation order, then at most one
// timer choice (a timer, or a sleeper). It reports false when it could
// not tell; Choose then compares every key.
func (r *Replay) find(p *engine.Point, want string) (int, bool) {
	n := len(p.Choices)
	if n == 0 || strings.HasPrefix(want, "@") {
		return 0, false
	}
	if last := p.Choices[n-1]; last.G == nil || last.G.PendingKind() == engine.OpSleep {
		if last.G != nil && last.Key() == want {
			return n - 1, true
		}
		n--
	}
	id, kc := want, -1
	if h := strings.IndexByte(want, '#'); h >= 0 {
		c, err := strconv.Atoi(want[h+1:])
		if err != nil || c < 0 || strconv.Itoa(c) != want[h+1:] {
			return 0, false
		}
		id, kc = want[:h], c
	}
	gs := p.Exec.Gs()
	if len(gs) == 0 {
		return 0, false
	}
	if r.byID == nil || r.g0 != gs[0] {
		// Begin was not called (explore replays without it), or this is
		// a new run.
		r.byID, r.known, r.g0 = map[string]*engine.G{}, 0, gs[0]
	}
	for ; r.known < len(gs); r.known++ {
		r.byID[gs[r.known].ID] = gs[r.known]
	}
	g := r.byID[id]
	if g == nil || g != gs[g.Index] {
		return 0, false // not a goroutine of this run
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c := p.Choices[m]; c.G == nil || c.G.Index >= g.Index {
			hi = m
		} else {
			lo = m + 1
		}
	}
	for i := lo; i < n && p.Choices[i].G == g; i++ {
		c := p.Choices[i]
		if c.Select && c.Case >= 0 {
			if c.Case == kc {
				return i, true
			}
		} else if kc < 0 {
			return i, true
		}
	}
	return 0, false
}

// End implements engine.Strategy.
func (r *Replay) End(*engine.Result) {}

// Consumed reports whether the run used every recorded choice.
func (r *Replay) Consumed() bool { return r.next == len(r.choices) }
