//go:build amd64 || arm64

package engine

import (
	"runtime"
	"testing"
)

// Panicking tells a deferred call that runs for a panic from one that
// runs for a return or runtime.Goexit: explore's subtest end takes the
// panic's way (testing's doPanic) only for the first.
func TestPanicking(t *testing.T) {
	if !panicLayoutFound() {
		t.Skip("the runtime's panic layout is not known on this platform")
	}
	if Panicking() {
		t.Error("Panicking outside any deferred call")
	}
	seen := func(f func()) (got bool) {
		done := make(chan bool)
		go func() {
			defer close(done)
			defer func() { recover() }()
			defer func() { got = Panicking() }()
			f()
		}()
		<-done
		return got
	}
	if !seen(func() { panic("boom") }) {
		t.Error("Panicking false while a panic unwinds")
	}
	if seen(func() {}) {
		t.Error("Panicking true for a return")
	}
	if seen(runtime.Goexit) {
		t.Error("Panicking true for runtime.Goexit")
	}
	if seen(func() {
		func() {
			defer func() { recover() }()
			panic("recovered")
		}()
	}) {
		t.Error("Panicking true after the panic was recovered")
	}
}

// panicLayoutFound reports whether panicChain can read the runtime's
// panics here.
func panicLayoutFound() bool {
	panicLayout.once.Do(probePanicLayout)
	return panicLayout.ok
}
