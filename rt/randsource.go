package rt

import (
	mathrand "math/rand"
	"sync"

	"heddle.dev/internal/engine"
)

// Sources of random numbers the program makes itself.
//
// A test that draws from a source it made with math/rand.NewSource is
// deterministic when the source is made in the run with a fixed seed. It is
// not when the seed comes from the clock (`rand.NewSource(time.Now().
// UnixNano())`: the value is random in native Go, and fixed in heddle,
// whose clock starts at the same instant every run), nor when the source
// outlives a run (a package variable made in init, as go-datastructures'
// skip list makes its generator): the next run, and the replay of a
// schedule in the same process, go on from where the last run left the
// source, so the same schedule draws other numbers and heddle cannot
// explore the test.
//
// So the rewriter turns rand.NewSource(seed) into RandNewSource(seed,
// clock), clock telling whether the seed expression reads the clock. The
// source it returns draws, in a run, from a state of that run: the seed it
// was given when the run made it (or reseeded it) from a seed that is not
// the clock's; for a source made before the run with such a seed, that
// seed's numbers from the start, as the test run alone in a new process
// draws them natively (a package generator with a fixed seed gives every
// run the same numbers, not numbers no native run draws); otherwise (the
// clock's seed) a state seeded, when the run first draws from it, from the
// run's random source (the one math/rand's top-level functions draw from
// in a run, seeded from the run and recorded in its schedule): those
// numbers vary from run to run as the native ones vary from process to
// process. The same schedule draws the same numbers, in the exploring
// process and in `heddle replay`. Outside a run it is the native source.

// RandNewSource replaces math/rand.NewSource. clock says the seed was
// read from the clock.
func RandNewSource(seed int64, clock bool) mathrand.Source {
	s := &runSource{native: mathrand.NewSource(seed).(mathrand.Source64), seed: seed, clock: clock}
	if x := engine.Current(); x != nil && !clock {
		s.owner = runIDOf(x)
	}
	return s
}

// runSource is the source RandNewSource returns. Like the native source
// it is not safe for concurrent use: the program locks it if it shares it.
type runSource struct {
	native mathrand.Source64 // the state outside a run and in run owner
	owner  uint64            // the run that made or seeded native; 0: none
	run    uint64            // the run whose state cur is
	cur    mathrand.Source64
	seed   int64 // the last seed the program gave
	clock  bool  // it was read from the clock
}

// src returns the state to draw from.
func (s *runSource) src() mathrand.Source64 {
	x := engine.Current()
	if x == nil {
		return s.native
	}
	id := runIDOf(x)
	if id == s.owner {
		return s.native
	}
	if s.run != id || s.cur == nil {
		s.run = id
		seed := s.seed
		if s.clock {
			seed = x.RandSource().Int63()
		}
		s.cur = mathrand.NewSource(seed).(mathrand.Source64)
	}
	return s.cur
}

func (s *runSource) Int63() int64   { return s.src().Int63() }
func (s *runSource) Uint64() uint64 { return s.src().Uint64() }

// Seed reseeds the source. In a run the seed holds for that run, as for a
// source the run made; outside a run it is the native seed again.
func (s *runSource) Seed(seed int64) {
	s.native.Seed(seed)
	s.seed, s.clock = seed, false
	s.owner = 0
	if x := engine.Current(); x != nil {
		s.owner = runIDOf(x)
	}
}

// runIDs numbers the runs of the process in the order they first draw
// from a source: two runs never share a number, which an *engine.Exec's
// address alone would not ensure once the first is collected. It keeps
// the last run's Exec alive until another run draws.
var runIDs struct {
	mu   sync.Mutex
	last *engine.Exec
	id   uint64
}

func runIDOf(x *engine.Exec) uint64 {
	runIDs.mu.Lock()
	defer runIDs.mu.Unlock()
	if runIDs.last != x {
		runIDs.last = x
		runIDs.id++
	}
	return runIDs.id
}
