//go:build go1.25

package rt

import (
	"testing"
	"testing/synctest"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// SynctestTest replaces synctest.Test. During an exploration, f runs in a
// bubble of controlled goroutines: its goroutines' interleavings are
// explored, time advances for them only when they are all blocked, and
// Test waits for them, or panics when they are deadlocked, as
// synctest.Test does (see engine/bubble.go for what is modelled).
// Outside an exploration it is synctest.Test.
func SynctestTest(t *testing.T, f func(*testing.T)) {
	explore.Synctest(t, f, synctest.Test)
}

// SynctestWait replaces synctest.Wait: it blocks until every other
// goroutine of the bubble is durably blocked.
func SynctestWait() {
	if x := engine.Current(); x != nil {
		x.BubbleWait()
		return
	}
	synctest.Wait()
}
