package explore

import (
	"context"
	"strings"
	"testing"

	"heddle.dev/internal/engine"
)

// runScoped makes one run of body as the test t, the way an exploration
// runs it (runT, its root scope, finish), and returns the run's T, its
// result and its bug (classify).
func runScoped(t *testing.T, body func(t *testing.T)) (*runT, *engine.Result, *engine.Bug) {
	t.Helper()
	return runScopedWith(t, engine.Config{}, firstChoice{}, body)
}

// runScopedWith is runScoped with the run's configuration and strategy.
func runScopedWith(t *testing.T, cfg engine.Config, s engine.Strategy, body func(t *testing.T)) (*runT, *engine.Result, *engine.Bug) {
	t.Helper()
	rs := &runT{real: t}
	rs.root.rs, rs.root.TB, rs.root.t = rs, t, t
	res := engine.Run(cfg, s, func() {
		rs.attach(engine.Current())
		defer rs.finish()
		rs.runBody(&rs.root, func() { body(t) })
	})
	return rs, res, classify(res, rs)
}

// goWait runs f in a new controlled goroutine and waits for it to end.
func goWait(f func()) {
	x := engine.Current()
	ev := x.NewEvent()
	x.Go(func() {
		defer x.Fire(ev)
		f()
	})
	x.Wait(ev)
}

// Each method of a T acts on the test or subtest that T belongs to,
// whichever goroutine calls it, as package testing's do: a parent's T
// used in a subtest, a subtest's T used by another goroutine.
func TestScopeOfTheT(t *testing.T) {
	t.Run("parent's Errorf in a subtest", func(t *testing.T) {
		var ok bool
		rs, _, bug := runScoped(t, func(root *testing.T) {
			ok = Run(root, "sub", func(s *testing.T) { TB(root).Errorf("parent's") })
		})
		if !ok {
			t.Error("t.Run returned false: the parent's failure failed the subtest")
		}
		if bug == nil || !strings.HasSuffix(bug.Message, ": parent's") || strings.Contains(bug.Message, "sub:") {
			t.Errorf("bug %v, want the parent's line, without the subtest's name", bug)
		}
		if k := rs.root.kids[0]; k.failed || !rs.root.failed {
			t.Errorf("subtest failed %v, parent failed %v; want false, true", k.failed, rs.root.failed)
		}
	})
	t.Run("subtest's T in the parent's goroutine", func(t *testing.T) {
		var ok bool
		_, _, bug := runScoped(t, func(root *testing.T) {
			ok = Run(root, "sub", func(s *testing.T) {
				goWait(func() { TB(s).Error("sub's") })
			})
		})
		if ok {
			t.Error("t.Run returned true: the subtest's failure was not its own")
		}
		if bug == nil || !strings.HasSuffix(bug.Message, ": sub: sub's") {
			t.Errorf("bug %v, want the subtest's line", bug)
		}
	})
	t.Run("names, failures and contexts", func(t *testing.T) {
		var got []string
		runScoped(t, func(root *testing.T) {
			var ctx context.Context
			Run(root, "sub", func(s *testing.T) {
				TB(root).Fail()
				got = append(got, TB(root).Name(), TB(s).Name())
				if TB(s).Failed() {
					got = append(got, "sub failed")
				}
				ctx = TB(root).(*scope).Context()
			})
			if ctx.Err() != nil {
				got = append(got, "parent's context cancelled at the subtest's end")
			}
		})
		if want := []string{t.Name(), t.Name() + "/sub"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("parent's Cleanup in a subtest", func(t *testing.T) {
		var log []string
		runScoped(t, func(root *testing.T) {
			TB(root).Cleanup(func() { log = append(log, "last") })
			Run(root, "sub", func(s *testing.T) {
				TB(root).Cleanup(func() { log = append(log, "parent's") })
				TB(s).Cleanup(func() { log = append(log, "sub's") })
			})
			log = append(log, "after run")
		})
		if got := strings.Join(log, " "); got != "sub's after run parent's last" {
			t.Errorf("cleanups ran as %q, want %q", got, "sub's after run parent's last")
		}
	})
	t.Run("parent's Fatal in a subtest", func(t *testing.T) {
		reached := false
		rs, _, bug := runScoped(t, func(root *testing.T) {
			Run(root, "sub", func(s *testing.T) { TB(root).Fatal("parent's fatal") })
			reached = true
		})
		if reached {
			t.Error("the parent's goroutine went on after t.Run: testing ends it")
		}
		if bug == nil || bug.Kind != engine.KindFail || !strings.HasSuffix(bug.Message, ": parent's fatal") {
			t.Errorf("bug %v, want the parent's fatal", bug)
		}
		if out := strings.Join(rs.msgs, "\n"); !strings.Contains(out, "sub: "+goexitMsg+": subtest may have called FailNow on a parent test") {
			t.Errorf("output %q: testing's failure of the subtest is missing", out)
		}
	})
	t.Run("parallel subtest's FailNow on its parent", func(t *testing.T) {
		_, _, bug := runScoped(t, func(root *testing.T) {
			Run(root, "group", func(g *testing.T) {
				Run(g, "p", func(s *testing.T) {
					Parallel(s)
					TB(g).FailNow()
				})
			})
		})
		if bug == nil || !strings.HasPrefix(bug.Message, goexitMsg) {
			t.Errorf("bug %v, want testing's %q", bug, goexitMsg)
		}
	})
	t.Run("Fail after the subtest completed", func(t *testing.T) {
		_, res, _ := runScoped(t, func(root *testing.T) {
			var sub *testing.T
			Run(root, "sub", func(s *testing.T) { sub = s })
			goWait(func() { TB(sub).Fail() })
		})
		want := "Fail in goroutine after " + t.Name() + "/sub has completed"
		if res.Bug == nil || !strings.Contains(res.Bug.Message, want) {
			t.Errorf("bug %v, want the panic %q", res.Bug, want)
		}
	})
	t.Run("Log after the subtest completed", func(t *testing.T) {
		rs, res, bug := runScoped(t, func(root *testing.T) {
			var sub *testing.T
			Run(root, "sub", func(s *testing.T) { sub = s })
			goWait(func() { TB(sub).Log("late") })
		})
		if bug != nil || res.Bug != nil {
			t.Fatalf("bug %v: a completed subtest's log goes to its parent", bug)
		}
		if len(rs.msgs) != 1 || !strings.HasSuffix(rs.msgs[0], ": late") || strings.Contains(rs.msgs[0], "sub:") {
			t.Errorf("output %q, want the parent's line", rs.msgs)
		}
	})
	t.Run("FailNow from a goroutine, then an error", func(t *testing.T) {
		_, _, bug := runScoped(t, func(root *testing.T) {
			Run(root, "sub", func(s *testing.T) {
				goWait(func() { TB(s).FailNow() })
			})
			TB(root).Error("after")
		})
		if bug == nil || !strings.HasSuffix(bug.Message, ": after") {
			t.Errorf("bug %v: FailNow prints no line, the first is the parent's", bug)
		}
	})
	t.Run("helper marked on another T", func(t *testing.T) {
		// The position a line names skips its T's helpers only; this
		// package's frames are all skipped as heddle's, so the helpers
		// are checked, not the line (conform TestHelperMarkedOnOtherT).
		rs, _, _ := runScoped(t, func(root *testing.T) {
			Run(root, "sub", func(s *testing.T) { markThenLog(s, root) })
		})
		name := "heddle.dev/internal/explore.markThenLog"
		if rs.root.helpers[name] || !rs.root.kids[0].helpers[name] {
			t.Errorf("helpers of the test %v, of the subtest %v: want the subtest's only", rs.root.helpers, rs.root.kids[0].helpers)
		}
	})
}

func markThenLog(mark, log *testing.T) {
	TB(mark).Helper()
	TB(log).Error("logged")
}
