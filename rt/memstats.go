package rt

import (
	"runtime"
	"testing"

	"heddle.dev/internal/engine"
)

// ReadMemStats replaces runtime.ReadMemStats. During an exploration, a
// goroutine's first call opens a region of allocation counting and its
// next call closes it: in between, its mutex and atomic operations that
// can proceed at once are not scheduling points, so that heddle's
// scheduling does not allocate on their behalf and the count between the
// two calls is the program's (internal/engine/quiet.go).
func ReadMemStats(m *runtime.MemStats) {
	if x := engine.Current(); x != nil {
		x.ReadMemStats(m)
		return
	}
	runtime.ReadMemStats(m)
}

// AllocsPerRun replaces testing.AllocsPerRun: the same measure (one
// warm-up call, then the average number of allocations of runs calls),
// with the calls measured in a region of allocation counting during an
// exploration (ReadMemStats).
func AllocsPerRun(runs int, f func()) (avg float64) {
	if engine.Current() == nil {
		return testing.AllocsPerRun(runs, f)
	}
	defer GOMAXPROCS(GOMAXPROCS(1))
	f() // warm up, as testing.AllocsPerRun does
	var memstats runtime.MemStats
	ReadMemStats(&memstats)
	mallocs := 0 - memstats.Mallocs
	for i := 0; i < runs; i++ {
		f()
	}
	ReadMemStats(&memstats)
	mallocs += memstats.Mallocs
	// testing.AllocsPerRun's integer division: its result is a whole number.
	return float64(mallocs / uint64(runs))
}
