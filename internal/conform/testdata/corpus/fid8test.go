package prog

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Eighth fidelity audit, package testing: cleanups and contexts of a test
// whose parallel subtests run after its function returned.

// TestParallelSubtestsRegisterParentCleanup: two parallel subtests
// register a cleanup on their parent: the parent's cleanups run after both
// subtests, last registered first.
func TestParallelSubtestsRegisterParentCleanup(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	t.Run("group", func(g *testing.T) {
		g.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			t.Errorf("log %s", strings.Join(log, " "))
		})
		for _, name := range []string{"a", "b"} {
			g.Run(name, func(t *testing.T) {
				t.Parallel()
				g.Cleanup(func() { add("parent's " + name) })
				t.Cleanup(func() { add(name) })
			})
		}
	})
}

// TestParentContextDuringParallelSubtests: a parent's t.Context is not
// cancelled while its parallel subtests run (after its function
// returned): it is cancelled just before its cleanups.
func TestParentContextDuringParallelSubtests(t *testing.T) {
	var mu sync.Mutex
	var log []string
	t.Run("group", func(g *testing.T) {
		ctx := g.Context()
		g.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			t.Errorf("%s, at cleanup %v", strings.Join(log, " "), ctx.Err())
		})
		for _, name := range []string{"a", "b"} {
			g.Run(name, func(t *testing.T) {
				t.Parallel()
				err := ctx.Err()
				mu.Lock()
				log = append(log, name+" "+fid8Err(err))
				mu.Unlock()
			})
		}
	})
}

// TestCleanupRegisteredInCleanup: a cleanup registers another: testing
// runs it next, before the cleanups registered earlier.
func TestCleanupRegisteredInCleanup(t *testing.T) {
	var log []string
	t.Run("sub", func(s *testing.T) {
		s.Cleanup(func() { log = append(log, "first") })
		s.Cleanup(func() {
			log = append(log, "outer")
			s.Cleanup(func() { log = append(log, "inner") })
		})
	})
	t.Errorf("%s", strings.Join(log, " "))
}

// TestParallelSubtestRunResult: t.Run of a parallel subtest returns once
// it called t.Parallel, true, before it fails; the parent's failure comes
// first.
func TestParallelSubtestRunResult(t *testing.T) {
	t.Run("group", func(g *testing.T) {
		ok := g.Run("p", func(t *testing.T) {
			t.Parallel()
			t.Error("subtest failed")
		})
		t.Errorf("run %v", ok)
	})
}

// TestParentWaitsForParallelSubtest: the parent waits for a value its
// parallel subtest sends after t.Parallel, which returns only once the
// parent's function returned: they wait for each other.
func TestParentWaitsForParallelSubtest(t *testing.T) {
	ch := make(chan int)
	t.Run("group", func(g *testing.T) {
		g.Run("p", func(t *testing.T) {
			t.Parallel()
			ch <- 1
		})
		select {
		case <-ch:
			t.Errorf("got the value")
		case <-time.After(time.Second):
			t.Errorf("timed out")
		}
	})
}

func fid8Err(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
