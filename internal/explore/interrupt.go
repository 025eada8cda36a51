package explore

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

var (
	interrupted   atomic.Bool
	interruptOnce sync.Once
	// interruptGoid is the id of the goroutine that called watchInterrupt's
	// signal.Notify: if it was the process's first, it started os/signal's
	// goroutine, which is heddle's and not the program's (Stack).
	interruptGoid atomic.Int64
)

// watchInterrupt makes the first SIGINT or SIGTERM stop the exploration
// in progress after its current run, so that the test reports what it
// explored, and the tests after it skip; a second one ends the process. It
// reports whether an interrupt came already.
func watchInterrupt() bool {
	interruptOnce.Do(func() {
		ch := make(chan os.Signal, 2)
		interruptGoid.Store(blockID(fullStack(false)))
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			for range ch {
				if interrupted.Swap(true) {
					os.Exit(2)
				}
			}
		}()
	})
	return interrupted.Load()
}
