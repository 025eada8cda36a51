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
}

// NewReplay returns a strategy that replays choices.
func NewReplay(choices []string) *Replay { return &Replay{choices: choices} }

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
