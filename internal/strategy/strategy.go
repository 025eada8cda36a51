// Package strategy holds heddle's exploration strategies. Each implements
// engine.Strategy: Begin before a run, Choose at every scheduling point with
// two or more enabled choices, End after the run.
package strategy

import (
	"fmt"
	"sort"
	"strings"

	"heddle.dev/internal/engine"
)

// Options are the parameters shared by the strategies.
type Options struct {
	Seed     int64
	PCTDepth int      // d of PCT
	Choices  []string // the recorded choices, for replay
	// MaxDepth bounds the scheduling points DFS explores per run (0: no
	// bound); past it, the round-robin choice is taken.
	MaxDepth int
	// MaxBound is the last bound IPB and IDB explore (0: no limit).
	MaxBound int
}

// TraceNeeder is implemented by strategies that read Result.Trace in End
// (and the trace so far in Choose): explore must set engine.Config.Trace
// for them when NeedsTrace returns true. explore asks after each Begin, so
// the answer may change from run to run (the portfolio's does).
type TraceNeeder interface{ NeedsTrace() bool }

// RecordNeeder is implemented by strategies that need call sites
// (engine.Config.Record), such as HaPSet's statement identities.
type RecordNeeder interface{ NeedsRecord() bool }

// Prover is implemented by exhaustive strategies: Proven states what the
// exploration proved once it is over ("all schedules explored", "all
// schedules with ≤ 2 preemptions explored"), or "" if it proved nothing.
// When no run found a bug, explore can print it followed by "no bug".
type Prover interface{ Proven() string }

// Incompleter is implemented by exhaustive strategies that may end without
// having covered their whole space (DPOR on runs too long to analyze):
// Incomplete says why, or "" if nothing was left out.
type Incompleter interface{ Incomplete() string }

// SpinBounder is implemented by exhaustive strategies that leave out
// goroutines going round a loop without progress while others can run
// (spinTracker): SpinBound is 0 if none was left out, and otherwise n, the
// bound of what was covered: the schedules in which no goroutine polls
// more than n times in a row while another can run.
type SpinBounder interface{ SpinBound() int }

// Names lists the strategies New knows, for flags and errors.
func Names() []string {
	n := make([]string, 0, len(constructors))
	for k := range constructors {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

var constructors = map[string]func(Options) engine.Strategy{
	"random": func(o Options) engine.Strategy { return NewRandom(o.Seed) },
	"pct":    func(o Options) engine.Strategy { return NewPCT(o.Seed, o.PCTDepth) },
	"replay": func(o Options) engine.Strategy { return NewReplay(o.Choices) },
	"dfs":    func(o Options) engine.Strategy { return NewDFS(o.MaxDepth) },
	"ipb": func(o Options) engine.Strategy {
		return NewIPB(maxBound(o))
	},
	"idb": func(o Options) engine.Strategy {
		return NewIDB(maxBound(o))
	},
	"sdpor":    func(o Options) engine.Strategy { return NewSourceDPOR() },
	"odpor":    func(o Options) engine.Strategy { return NewOptimalDPOR() },
	"lazy":     func(o Options) engine.Strategy { return NewLazyDPOR() },
	"hbrcache": func(o Options) engine.Strategy { return NewHBRCache(false) },
	"hapset": func(o Options) engine.Strategy {
		b := o.MaxBound
		if b <= 0 {
			b = 2
		}
		return NewHaPSet(b)
	},
	"lazycache": func(o Options) engine.Strategy { return NewHBRCache(true) },
	"pos":       func(o Options) engine.Strategy { return NewPOS(o.Seed) },
	"portfolio": func(o Options) engine.Strategy { return NewPortfolio(o.Seed, o.PCTDepth) },
}

func maxBound(o Options) int {
	if o.MaxBound <= 0 {
		return -1
	}
	return o.MaxBound
}

// New returns the strategy called name.
func New(name string, o Options) (engine.Strategy, error) {
	c, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return c(o), nil
}

// runRNG returns the generator for run number run of an exploration seeded
// with seed: each run's schedule depends only on the seed and its number.
func runRNG(seed int64, run int) *rng {
	return newRNG(uint64(seed), uint64(run)*0x9e3779b97f4a7c15+1)
}
