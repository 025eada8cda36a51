package prog

import (
	"sync"
	"testing"
)

// Tenth fidelity audit, package testing: runs whose first line of output
// is a t.Log line, a subtest's line, or a multi-line message; a run that
// logs and passes; a skip racing a goroutine's failure; panics in
// cleanups racing a goroutine's panic; the test's context seen by a
// goroutine logging while the cleanups run. The harness compares a
// failing run's first line of output, whatever printed it, with its
// subtest's name (heddle's `sub: `).

// TestLogLinesOfGoroutinesThenError: two goroutines log, then the test
// fails: the first line is one goroutine's log.
func TestLogLinesOfGoroutinesThenError(t *testing.T) {
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Logf("log %s", name)
		}()
	}
	wg.Wait()
	t.Error("done")
}

// TestLogInPassingRun: a run that logs from a goroutine and from the test
// and passes.
func TestLogInPassingRun(t *testing.T) {
	done := make(chan int)
	go func() {
		t.Log("from goroutine")
		done <- 1
	}()
	t.Logf("got %d", <-done)
}

// TestLogThenErrorRace: a goroutine logs while the test fails: the first
// line is either.
func TestLogThenErrorRace(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Log("goroutine's log")
		done <- true
	}()
	t.Error("test's error")
	<-done
}

// TestSubtestErrorFirst: a subtest fails before its parent: the first
// line is the subtest's.
func TestSubtestErrorFirst(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		t.Error("in sub")
	})
	t.Error("in parent")
}

// TestParallelSubtestsErrorOrder: two parallel subtests of a group fail:
// either line comes first.
func TestParallelSubtestsErrorOrder(t *testing.T) {
	t.Run("group", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				t.Errorf("failed %s", name)
			})
		}
	})
}

// TestSubtestLogThenParentErrorRace: a passing subtest's log line and the
// parent's goroutine's failure, in either order.
func TestSubtestLogThenParentErrorRace(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Error("parent's goroutine")
		done <- true
	}()
	t.Run("sub", func(t *testing.T) {
		t.Log("sub's log")
	})
	<-done
}

// TestCleanupLogVsGoroutineError: a cleanup logs and waits for a
// goroutine that fails the test: the first line is either.
func TestCleanupLogVsGoroutineError(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Error("goroutine's error")
		done <- true
	}()
	t.Cleanup(func() {
		t.Log("cleanup's log")
		<-done
	})
}

// TestPanicInCleanupVsGoroutinePanic: a cleanup releases a goroutine that
// panics, then panics itself: the process dies of either panic.
func TestPanicInCleanupVsGoroutinePanic(t *testing.T) {
	start := make(chan bool)
	go func() {
		<-start
		panic("goroutine's panic")
	}()
	t.Cleanup(func() {
		close(start)
		panic("cleanup's panic")
	})
}

// TestPanicInCleanupOthersRun: a cleanup panics after the test failed; the
// cleanup registered before it still runs and logs, but the process dies
// of the panic.
func TestPanicInCleanupOthersRun(t *testing.T) {
	t.Cleanup(func() { t.Log("first registered") })
	t.Cleanup(func() { panic("cleanup boom") })
	t.Error("failed")
}

// TestMultiLineErrorFromGoroutines: two goroutines fail with messages of
// two lines: the first line of the first message is the outcome.
func TestMultiLineErrorFromGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Errorf("failed %s\nsecond line of %s", name, name)
		}()
	}
	wg.Wait()
}

// TestSkipVsGoroutineError: a goroutine's failure races the test's Skip:
// the run fails, or is skipped (a pass).
func TestSkipVsGoroutineError(t *testing.T) {
	done := make(chan bool)
	go func() {
		t.Error("goroutine's error")
		close(done)
	}()
	t.Cleanup(func() { <-done })
	t.Skip("skipped")
}

// TestContextDoneLogVsCleanupLog: a goroutine logs once the test's
// context is done; a cleanup logs and waits for it: t.Context is cancelled
// before the cleanups run, so either line can come first.
func TestContextDoneLogVsCleanupLog(t *testing.T) {
	ctx := t.Context()
	done := make(chan bool)
	go func() {
		<-ctx.Done()
		t.Log("context done")
		close(done)
	}()
	t.Cleanup(func() {
		t.Log("cleanup")
		<-done
		t.Error("end")
	})
}

// TestHelperLogThenSubtestError: a helper logs at its caller's line, then
// a subtest fails.
func TestHelperLogThenSubtestError(t *testing.T) {
	helper := func(t *testing.T, s string) {
		t.Helper()
		t.Log(s)
	}
	done := make(chan bool)
	go func() {
		helper(t, "helper's log")
		done <- true
	}()
	t.Run("sub", func(t *testing.T) {
		t.Error("sub's error")
	})
	<-done
}
