package prog

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
)

// Package testing, a *testing.T per subtest (helper subtest): each method
// acts on the test or subtest whose T it is called on, whichever
// goroutine calls it. Each program reports from its own T, whose lines
// carry no subtest name.

// TestParentFailFromSubtest: the parent's t.Fail called in a subtest fails
// the parent, not the subtest: t.Run returns true.
func TestParentFailFromSubtest(t *testing.T) {
	ok := t.Run("sub", func(s *testing.T) { t.Fail() })
	t.Errorf("run %v, parent failed %v", ok, t.Failed())
}

// TestSubtestTUsedByParentsGoroutine: a goroutine the parent started
// fails the subtest through the subtest's T: t.Run returns false.
func TestSubtestTUsedByParentsGoroutine(t *testing.T) {
	ts := make(chan *testing.T)
	done := make(chan bool)
	go func() {
		s := <-ts
		s.Fail()
		done <- true
	}()
	ok := t.Run("sub", func(s *testing.T) {
		ts <- s
		<-done
	})
	t.Errorf("run %v", ok)
}

// TestSubtestSeesParentT: in a subtest, the parent's T has the parent's
// name and failure; the subtest's failure is its own.
func TestSubtestSeesParentT(t *testing.T) {
	name := t.Name()
	var sameName, subName, subFailed, parentFailed bool
	t.Run("sub", func(s *testing.T) {
		sameName = t.Name() == name
		subName = s.Name() == name+"/sub"
		t.Fail()
		subFailed = s.Failed()
		parentFailed = t.Failed()
	})
	t.Errorf("same name %v, sub name %v, sub failed %v, parent failed %v", sameName, subName, subFailed, parentFailed)
}

// TestParentCleanupFromSubtest: the parent's t.Cleanup called in a
// subtest registers on the parent: it runs when the parent ends, after
// the subtest's.
func TestParentCleanupFromSubtest(t *testing.T) {
	var log []string
	t.Cleanup(func() { t.Errorf("%s", strings.Join(log, " ")) })
	t.Run("sub", func(s *testing.T) {
		t.Cleanup(func() { log = append(log, "parent's") })
		s.Cleanup(func() { log = append(log, "sub's") })
	})
	log = append(log, "after run")
}

// TestParentContextFromSubtest: the parent's t.Context taken in a
// subtest is the parent's: the subtest's end does not cancel it.
func TestParentContextFromSubtest(t *testing.T) {
	var ctx, sub context.Context
	t.Run("sub", func(s *testing.T) {
		ctx = t.Context()
		sub = s.Context()
	})
	t.Errorf("parent's %v, sub's %v", ctx.Err(), sub.Err())
}

// TestParentRunFromSubtest: the parent's t.Run called in a subtest starts
// a sibling, not a subtest of the subtest.
func TestParentRunFromSubtest(t *testing.T) {
	var name string
	t.Run("a", func(s *testing.T) {
		t.Run("b", func(s2 *testing.T) { name = strings.TrimPrefix(s2.Name(), t.Name()+"/") })
	})
	t.Errorf("sibling %s", name)
}

// TestParentFatalFromSubtest: the parent's t.Fatal in a subtest logs on
// the parent and ends the subtest's goroutine; testing fails the subtest
// ("subtest may have called FailNow on a parent test") and ends the
// parent's goroutine at t.Run.
func TestParentFatalFromSubtest(t *testing.T) {
	t.Run("sub", func(s *testing.T) {
		t.Fatal("parent's fatal")
	})
	t.Error("not reached")
}

// TestParallelSubtestParentFailNow: a parallel subtest calls FailNow on
// its parent, whose function returned: testing panics ("test executed
// panic(nil) or runtime.Goexit").
func TestParallelSubtestParentFailNow(t *testing.T) {
	t.Run("group", func(g *testing.T) {
		g.Run("p", func(s *testing.T) {
			s.Parallel()
			g.FailNow()
		})
	})
}

// TestSubtestFailAfterItCompleted: a goroutine fails a subtest that
// completed, while the test runs: testing panics.
func TestSubtestFailAfterItCompleted(t *testing.T) {
	var sub *testing.T
	t.Run("sub", func(s *testing.T) { sub = s })
	done := make(chan bool)
	go func() {
		sub.Fail()
		done <- true
	}()
	<-done
}

// TestSubtestFailNowFromGoroutine: FailNow on a subtest's T in a
// goroutine the subtest started ends that goroutine only: the subtest
// goes on, and fails.
func TestSubtestFailNowFromGoroutine(t *testing.T) {
	reached := false
	ok := t.Run("sub", func(s *testing.T) {
		done := make(chan bool)
		go func() {
			defer close(done)
			s.FailNow()
		}()
		<-done
		reached = true
	})
	t.Errorf("run %v, reached %v", ok, reached)
}

// TestParallelSubtestFailFromGoroutine: a parallel subtest's goroutine
// fails it, while its sibling passes; the parent reads both.
func TestParallelSubtestFailFromGoroutine(t *testing.T) {
	var a, b *testing.T
	t.Run("group", func(g *testing.T) {
		g.Run("a", func(s *testing.T) {
			a = s
			s.Parallel()
			done := make(chan bool)
			go func() {
				s.Fail()
				done <- true
			}()
			<-done
		})
		g.Run("b", func(s *testing.T) {
			b = s
			s.Parallel()
		})
	})
	t.Errorf("a %v, b %v", a.Failed(), b.Failed())
}

// TestSubtestSkipFromParentsGoroutine: a goroutine the parent started
// skips the subtest through its T (SkipNow ends that goroutine only): the
// subtest is skipped, the parent is not.
func TestSubtestSkipFromParentsGoroutine(t *testing.T) {
	ts := make(chan *testing.T)
	done := make(chan bool)
	go func() {
		defer close(done)
		s := <-ts
		s.SkipNow()
	}()
	var sub *testing.T
	t.Run("sub", func(s *testing.T) {
		sub = s
		ts <- s
		<-done
	})
	t.Errorf("sub skipped %v, parent skipped %v", sub.Skipped(), t.Skipped())
}

// TestHelperMarkedOnOtherT: a function marked a helper on the subtest's
// T logs on the parent's: the parent's T does not skip it.
func TestHelperMarkedOnOtherT(t *testing.T) {
	t.Run("sub", func(s *testing.T) { subtestHelper(s, t) })
}

func subtestHelper(mark, log *testing.T) {
	mark.Helper()
	log.Error("logged in the helper")
}

// TestSubtestFailRacesItsEnd: a goroutine the subtest started fails it
// while it ends: before its end, t.Run returns false; after, testing
// panics.
func TestSubtestFailRacesItsEnd(t *testing.T) {
	done := make(chan bool)
	ok := t.Run("sub", func(s *testing.T) {
		go func() {
			s.Fail()
			done <- true
		}()
	})
	<-done
	t.Errorf("run %v", ok)
}

// TestOuterTFailInBubble: the test's own T failed inside a synctest
// bubble fails the test, not the bubble's test: synctest.Test returns.
func TestOuterTFailInBubble(t *testing.T) {
	var bubbleFailed bool
	synctest.Test(t, func(bt *testing.T) {
		t.Fail()
		bubbleFailed = bt.Failed()
	})
	t.Errorf("returned, bubble failed %v", bubbleFailed)
}
