package explore

import (
	"testing"

	"heddle.dev/internal/engine"
)

// A cleanup releases a goroutine that panics, then panics itself
// (conformance program TestPanicInCleanupVsGoroutinePanic). Natively
// testing's tRunner recovers the cleanup's panic, runs the other cleanups
// and flushes the output before it panics again, and the released
// goroutine's panic often crashes the process first (222 of 1,243 native
// runs). heddle ends the run at the cleanup's panic: the run must make no
// claim (Result.Detaches), or the search claims every schedule while
// missing the native outcome. With no goroutine left, the claim stays.
func TestPanicOfTestGoroutineWithOthersLeftMakesNoClaim(t *testing.T) {
	t.Run("a goroutine left", func(t *testing.T) {
		_, res, bug := runScoped(t, func(root *testing.T) {
			x := engine.Current()
			ev := x.NewEvent()
			x.Go(func() {
				x.Wait(ev)
				panic("goroutine's panic")
			})
			TB(root).Cleanup(func() {
				x.Fire(ev)
				panic("cleanup's panic")
			})
		})
		if bug == nil || bug.Kind != engine.KindPanic {
			t.Fatalf("bug %v, want a panic", bug)
		}
		if res.Detaches == 0 {
			t.Errorf("bug %q with a goroutine left, and the run makes its claim (Detaches 0)", bug.Message)
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
			t.Errorf("Detaches %d, want 0: no other goroutine could act", res.Detaches)
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
// in the window: the run keeps its claim.
func TestPanicOfTestGoroutineWithOnlyBlockedLeftKeepsClaim(t *testing.T) {
	_, res, bug := runScoped(t, func(root *testing.T) {
		x := engine.Current()
		ev := x.NewEvent()
		x.Go(func() { x.Wait(ev) })
		goWait(func() {}) // the goroutine above is parked by now
		panic("test's panic")
	})
	if bug == nil || bug.Kind != engine.KindPanic {
		t.Fatalf("bug %v, want a panic", bug)
	}
	if res.Detaches != 0 {
		t.Errorf("Detaches %d, want 0: the goroutine left is blocked for good", res.Detaches)
	}
}
