package explore

import (
	"fmt"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/event"
)

// racesClause is what a proof of exhaustion assumes about data races, to
// be appended to it, and the summary's Races field. Code between two
// scheduling points runs atomically, so a bug that needs a switch between
// two unsynchronized memory accesses is out of reach unless the accesses
// are scheduling points (heddle test -racy) or there is no such access
// (-race checked every explored run and saw none). With -racy, the
// racing accesses are interleaved, and the plain assignments among them
// go through x86-TSO store buffers (a read can pass the goroutine's
// earlier write to another variable: the conformance corpus's
// TestStoreBuffer; storebuf.go in the engine); the reorderings of the
// compiler, and of arm64's weaker model, are not explored; the clause
// says so. racesBefore is the detector's count of races before the
// exploration.
func (x *explorer) racesClause(racesBefore int) (clause, races string) {
	switch {
	case x.cfg.Racy > 0:
		return fmt.Sprintf(", with the %d %s that -race saw racing, or that access the same variables, as scheduling points, interleaved with x86-TSO store buffers for their plain assignments (not reordered as the compiler or arm64 can)", x.cfg.Racy, plural(x.cfg.Racy, "statement", "statements")), event.RacesExplored
	case engine.RaceEnabled && engine.RaceErrors() == racesBefore:
		return ", and -race saw no data race", event.RacesChecked
	case engine.RaceEnabled:
		return ", ignoring the data races -race reported (run with -racy to explore them)", event.RacesAssumed
	}
	return ", assuming no data races (run with -race to check)", event.RacesAssumed
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
