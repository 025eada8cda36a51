// Package require holds the call through which heddle runs a test's (or a
// subtest's) function, so that testify's Error Trace ends at the test as it
// does natively. testify's assert.CallerInfo walks up the stack from the
// failed assertion, listing each frame, and stops at testing.tRunner (which
// calls tests natively), or after a function named like a test (TestXxx),
// and it leaves out the frames in a directory named assert, mock or
// require (its own). Under heddle a test's function is a closure that
// heddle's goroutines call, and the trace went on through heddle's own
// frames (explore.go, t.go, exec.go, pool.go) as if they were the test's.
// Test is named as a test and lives in a directory named require: the
// trace lists the test's frames, leaves this one out and stops here.
package require

import "testing"

// Test calls f(t).
//
//go:noinline
func Test(f func(*testing.T), t *testing.T) { f(t) }
