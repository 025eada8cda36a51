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
)

// watchInterrupt makes the first SIGINT or SIGTERM stop the exploration
// in progress after its current run, so that the test reports what it
// explored, and the tests after it skip; a second one ends the process. It
// reports whether an interrupt came already.
func watchInterrupt() bool {
	interruptOnce.Do(func() {
		ch := make(chan os.Signal, 2)
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
