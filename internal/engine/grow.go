package engine

// Growing a run's trace and choices (Result.Trace, Result.Choices), which
// take one entry per step.
//
// append grows a slice past 256 entries by a quarter at a time: the trace
// of a 40,000-step run grew some thirty times, copying four times its
// final size and allocating five, and each large array of pointers it
// allocated was one more for the collector to scan (BenchmarkTracedRunGrowth
// in rt: a run with a fresh trace cost 4.6 times one lent a trace of the
// right size by the pool). A test's first traced run has nothing to size
// its trace by (Pool.lendTrace), and its runs 1 and 2 and the
// determinism check's replay are traced: a test of a few runs paid it at
// most of them. Doubling copies the final size once and allocates it
// twice; past doubleUpTo entries the slice grows by a quarter again, so
// that a trace of millions of steps does not hold twice its memory
// (Config.MaxHeap counts it).

// doubleUpTo is the number of entries past which growTo no longer
// doubles a slice.
const doubleUpTo = 1 << 20

// growTo returns s with room for one more entry: s itself if it has it,
// else a copy of s with twice its capacity (at least 256, at most
// doubleUpTo more), whose entries past the length are zero, as append's.
// Under the race detector it leaves growing to append: the runtime's copy
// reports its writes to the detector even from norace code.
//
//go:norace
func growTo[T any](s []T) []T {
	if len(s) < cap(s) || RaceEnabled || cap(s) >= doubleUpTo {
		return s
	}
	t := make([]T, len(s), max(256, 2*cap(s)))
	copy(t, s)
	return t
}
