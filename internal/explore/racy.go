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
// racing accesses are interleaved in program order: natively a read can
// also pass an earlier write to another variable (a store buffer), or the
// compiler can move it, and those outcomes are not explored (the
// conformance corpus's TestStoreBuffer); the clause says so. racesBefore is the
// detector's count of races before the exploration.
func (x *explorer) racesClause(racesBefore int) (clause, races string) {
	switch {
	case x.cfg.Racy > 0:
		return fmt.Sprintf(", with the %d %s that -race saw racing, or that access the same variables, as scheduling points, interleaved but not reordered (a store buffer or the compiler can also reorder racing accesses)", x.cfg.Racy, plural(x.cfg.Racy, "statement", "statements")), event.RacesExplored
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
