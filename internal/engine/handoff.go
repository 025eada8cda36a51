package engine

// A handoff is how a controlled goroutine's real goroutine waits for its
// turn and is given it: wait parks the goroutine until wake, and a wake
// that comes first is kept for the next wait (a channel of one slot did
// this before). Every switch between goroutines is a wake and a wait.
//
// Where the goroutine's runtime descriptor is at hand (handoff_park.go:
// amd64 and arm64, without the race detector) wait parks the goroutine
// in the runtime directly (gopark) and wake makes it runnable (goready):
// a switch then skips the channel's lock and wait queue, about a fifth
// of its cost (docs/benchmarks.md, "The goroutine switch"). Elsewhere
// (handoff_chan.go) it is a channel of one slot.
type handoff struct {
	handoffOS
}
