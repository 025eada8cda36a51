package explore

import "heddle.dev/internal/engine"

// realFailureMessage is the message of a failure reported on the real T.
const realFailureMessage = "the test failed through its *testing.T directly, in code heddle does not route " +
	"(a testify suite's T(), a helper taking testing.TB in a module heddle does not rewrite, a stored *testing.T): " +
	"its message is in the test's output"

// realFailure returns a fail bug when the real T became failed during the
// run just made. Rewritten code reports through the run's T (rt.TB,
// rt.TBArg); this catches every other way a failure reaches the real T, so
// that it is still a bug of the run, with its schedule. The real T stays
// failed, so only the first such failure of a test is seen; its message
// is the real T's, printed in the test's output.
func (x *explorer) realFailure(res *engine.Result) *engine.Bug {
	// A race the detector reported during the run makes the real T's
	// Failed true too: that is a race bug (see run).
	if x.realFailed || engine.RaceErrors() > x.races || !x.t.Failed() {
		return nil
	}
	return &engine.Bug{Kind: engine.KindFail, Message: realFailureMessage, G: res.Gs[0]}
}
