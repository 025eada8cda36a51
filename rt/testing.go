package rt

import (
	"testing"

	"heddle.dev/internal/explore"
)

// Explore runs body under heddle's scheduler many times, one interleaving
// per run, and reports the first bug on t. The rewriter turns
//
//	func TestX(t *testing.T) { body }
//
// into
//
//	func TestX(t *testing.T) { rt.Explore(t, func(t *testing.T) { body }) }
//
// How many runs, with which strategy and where schedules go is read from
// the environment that `heddle test` sets; see heddle.dev/internal/explore.
func Explore(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	explore.Test(t, body)
}

// TB replaces the receiver of a method call on a *testing.T or testing.TB:
// t.Errorf(...) becomes rt.TB(t).Errorf(...). During a run it returns the
// run's own T, so that failures, logs and cleanups belong to that run;
// otherwise it returns t.
func TB(t testing.TB) testing.TB {
	return explore.TB(t)
}

// TRun replaces t.Run(name, f). Inside an exploration the subtest runs in a
// controlled goroutine of the same run, and TRun waits for it.
func TRun(t *testing.T, name string, f func(t *testing.T)) bool {
	return explore.Run(t, name, f)
}

// TParallel replaces t.Parallel(). Explored tests run one at a time, so
// inside an exploration it does nothing.
func TParallel(t *testing.T) {
	explore.Parallel(t)
}
