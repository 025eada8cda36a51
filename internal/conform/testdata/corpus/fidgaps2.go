package prog

import (
	"context"
	"testing"
)

// Known fidelity gaps (fidgaps2): a subtest's panic, whose testing.tRunner
// runs the cleanups and flushes the output before it panics again; a
// context.AfterFunc registered on a context already done, whose stop can
// still win.

// TestSubtestPanicVsGoroutinePanic: a subtest panics after releasing a
// goroutine that panics too: either panic can crash the process first.
func TestSubtestPanicVsGoroutinePanic(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		start := make(chan bool)
		go func() {
			<-start
			panic("goroutine's panic")
		}()
		close(start)
		panic("subtest's panic")
	})
}

// TestSubtestPanicVsParentCleanup: a subtest panics; testing runs its
// parent's cleanups before it panics again, and a goroutine that one of
// them releases fails the test first, or not.
func TestSubtestPanicVsParentCleanup(t *testing.T) {
	start := make(chan bool)
	go func() {
		<-start
		panic("goroutine's panic")
	}()
	t.Cleanup(func() { close(start) })
	t.Run("sub", func(t *testing.T) {
		panic("subtest's panic")
	})
}

// TestAfterFuncStopAfterDone: a goroutine cancels a context with one
// AfterFunc while the test waits for it to be done and then stops the
// AfterFunc. Go's cancel closes the done channel before it starts the
// AfterFunc, so the stop can come between and return true.
func TestAfterFuncStopAfterDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan bool, 1)
	stop := context.AfterFunc(ctx, func() { ran <- true })
	go cancel()
	<-ctx.Done()
	if stop() {
		t.Log("stopped after done")
		return
	}
	<-ran
	t.Error("ran")
}

// TestContextAfterFuncTwoStoppers: two goroutines stop one AfterFunc;
// whichever comes first gets true.
func TestContextAfterFuncTwoStoppers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := context.AfterFunc(ctx, func() {})
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			if stop() {
				res <- name
			} else {
				res <- ""
			}
		}()
	}
	t.Errorf("stopped by %s", <-res+<-res)
}
