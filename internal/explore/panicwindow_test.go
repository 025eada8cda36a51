package explore

import (
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// A cleanup releases a goroutine that panics, then panics itself
// (conformance program TestPanicInCleanupVsGoroutinePanic). Natively
// testing's tRunner recovers the cleanup's panic, runs the other cleanups
// and flushes the output before it panics again, and the released
// goroutine's panic often crashes the process first (222 of 1,243 native
// runs). heddle ended the run at the cleanup's panic, and its search
// claimed every schedule without the goroutine's panic. With no goroutine
// left, the panic ends the run at once.
func TestPanicOfTestGoroutineLetsOthersRunFirst(t *testing.T) {
	t.Run("a goroutine left", func(t *testing.T) {
		s := strategy.NewOptimalDPOR()
		seen := map[string]bool{}
		for run := 1; s.Begin(run); run++ {
			if run > 100 {
				t.Fatal("not exhausted within 100 runs")
			}
			_, res, _ := runScopedWith(t, engine.Config{Trace: true}, s, func(t *testing.T) {
				x := engine.Current()
				ev := x.NewEvent()
				x.Go(func() {
					x.Wait(ev)
					panic("goroutine's panic")
				})
				TB(t).Cleanup(func() {
					x.Fire(ev)
					panic("cleanup's panic")
				})
			})
			s.End(res)
			if res.Bug == nil || res.Bug.Kind != engine.KindPanic {
				t.Fatalf("run %d: bug %v, want a panic", run, res.Bug)
			}
			if res.Detaches != 0 {
				t.Errorf("run %d: Detaches %d, want 0", run, res.Detaches)
			}
			seen[res.Bug.Message] = true
		}
		if !seen["cleanup's panic"] || !seen["goroutine's panic"] || len(seen) != 2 {
			t.Errorf("panics %v, want the cleanup's and the goroutine's", seen)
		}
	})
	t.Run("nothing left", func(t *testing.T) {
		_, res, bug := runScoped(t, func(root *testing.T) {
			TB(root).Cleanup(func() { panic("cleanup's panic") })
		})
		if bug == nil || bug.Kind != engine.KindPanic {
			t.Fatalf("bug %v, want a panic", bug)
		}
		if res.Detaches != 0 {
			t.Errorf("Detaches %d, want 0", res.Detaches)
		}
	})
	t.Run("a goroutine's own panic", func(t *testing.T) {
		// Not the test goroutine: natively it crashes the process at once.
		_, res, bug := runScoped(t, func(root *testing.T) {
			x := engine.Current()
			ev := x.NewEvent()
			x.Go(func() { panic("goroutine's panic") })
			x.Wait(ev)
		})
		if bug == nil || bug.Kind != engine.KindPanic {
			t.Fatalf("bug %v, want a panic", bug)
		}
		if res.Detaches != 0 {
			t.Errorf("Detaches %d, want 0: a plain goroutine's panic crashes at once", res.Detaches)
		}
	})
}

// A goroutine blocked for good when the test goroutine panics cannot act
// in the window: the panic ends the run at once, with no step of its own
// (a cancel step, panicWindow's).
func TestPanicOfTestGoroutineWithOnlyBlockedLeftEndsAtOnce(t *testing.T) {
	for _, blocked := range []bool{true, false} {
		_, res, _ := runScopedWith(t, engine.Config{Trace: true}, firstChoice{}, func(t *testing.T) {
			x := engine.Current()
			ev := x.NewEvent()
			if blocked {
				x.Go(func() { x.Wait(ev) })
				goWait(func() {}) // the goroutine above is parked by now
			} else {
				x.Go(func() {}) // can still run
			}
			panic("test's panic")
		})
		if res.Bug == nil || res.Bug.Kind != engine.KindPanic {
			t.Fatalf("blocked %v: bug %v, want a panic", blocked, res.Bug)
		}
		window := false
		for _, st := range res.Trace {
			if st.Kind == engine.OpCancel {
				window = true
			}
		}
		if window == blocked {
			t.Errorf("blocked %v: the panic took a step of its own: %v", blocked, window)
		}
	}
}

// A goroutine that a panicking cleanup released fails the test before the
// panic ends the run: natively the test is not complete while tRunner
// handles the panic, so the failure is logged and the process dies of the
// panic. It is not "Fail in goroutine after ... has completed", which
// finish's deferred call, marking the test complete, made it.
func TestErrorfWhileTestGoroutinePanicsIsNoMisuse(t *testing.T) {
	s := strategy.NewOptimalDPOR()
	seen := map[string]bool{}
	for run := 1; s.Begin(run); run++ {
		if run > 100 {
			t.Fatal("not exhausted within 100 runs")
		}
		_, res, bug := runScopedWith(t, engine.Config{Trace: true}, s, func(t *testing.T) {
			x := engine.Current()
			ev := x.NewEvent()
			x.Go(func() {
				x.Wait(ev)
				TB(t).Errorf("late")
			})
			TB(t).Cleanup(func() {
				x.Fire(ev)
				panic("cleanup's panic")
			})
		})
		s.End(res)
		if bug != nil {
			seen[bug.Kind+": "+bug.Message] = true
		}
	}
	if !seen["panic: cleanup's panic"] || len(seen) != 1 {
		t.Errorf("bugs %v, want the cleanup's panic only", seen)
	}
}

// A subtest's panic, as the test goroutine's, lets the others run first
// (conformance programs TestSubtestPanicVsGoroutinePanic and
// TestSubtestPanicVsParentCleanup): testing's tRunner runs the subtest's
// cleanups, then its parents', before it panics again, and a goroutine
// released by one of them may crash the process first. The parent's t.Run
// never returns. heddle ended the run at the subtest's panic, at once.
func TestPanicOfSubtestLetsOthersRunFirst(t *testing.T) {
	for _, release := range []string{"subtest", "parent's cleanup"} {
		t.Run(release, func(t *testing.T) {
			s := strategy.NewOptimalDPOR()
			seen := map[string]bool{}
			for run := 1; s.Begin(run); run++ {
				if run > 100 {
					t.Fatal("not exhausted within 100 runs")
				}
				var returned bool
				_, res, bug := runScopedWith(t, engine.Config{Trace: true}, s, func(root *testing.T) {
					x := engine.Current()
					ev := x.NewEvent()
					x.Go(func() {
						x.Wait(ev)
						panic("goroutine's panic")
					})
					if release != "subtest" {
						TB(root).Cleanup(func() { x.Fire(ev) })
					}
					Run(root, "sub", func(*testing.T) {
						if release == "subtest" {
							x.Fire(ev)
						}
						panic("subtest's panic")
					})
					returned = true
				})
				s.End(res)
				if returned {
					t.Fatalf("run %d: t.Run returned after its subtest panicked", run)
				}
				if bug == nil || bug.Kind != engine.KindPanic {
					t.Fatalf("run %d: bug %v, want a panic", run, bug)
				}
				seen[bug.Message] = true
			}
			if !seen["subtest's panic"] || !seen["goroutine's panic"] || len(seen) != 2 {
				t.Errorf("panics %v, want the subtest's and the goroutine's", seen)
			}
		})
	}
}
