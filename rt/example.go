package rt

import (
	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// Example starts an example that go test runs (one with an output
// comment): the rewriter turns
//
//	func ExampleX() { body }
//
// into
//
//	func ExampleX() {
//		if rt.Example("ExampleX", want, unordered, ExampleX) {
//			return
//		}
//		body
//	}
//
// Called by go test, Example explores the example, each run's standard
// output compared with the comment's as go test compares them, and returns
// true; called in a run, it returns false: the body runs.
func Example(name, want string, unordered bool, example func()) bool {
	if engine.Current() == nil {
		recordExampleTail() // called by go test, not in a run
	}
	return explore.Example(name, want, unordered, example)
}
