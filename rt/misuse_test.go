package rt_test

import (
	"strings"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// Misuse that Go itself detects (its runtime panics or aborts, or its race
// detector's annotations report it) is a bug in heddle too. Each program
// has the misuse in some schedule; it must be found with Go's message, and
// replayed.
var misusePrograms = []struct {
	name string
	msg  string // a substring of the bug's message
	run  func()
}{
	{"wg-add-concurrent-with-wait", "sync: WaitGroup misuse: Add called concurrently with Wait", func() {
		var wg sync.WaitGroup
		rt.Go(func() {
			rt.WaitGroupAdd(&wg, 1) // should be done before the go statement
			rt.WaitGroupDone(&wg)
		})
		rt.WaitGroupWait(&wg)
	}},
	{"wg-reused-before-wait-returned", "sync: WaitGroup is reused before previous Wait has returned", func() {
		var wg sync.WaitGroup
		rt.WaitGroupAdd(&wg, 1)
		rt.Go(func() {
			rt.WaitGroupDone(&wg)
			rt.WaitGroupAdd(&wg, 1) // the next round, while g0 is still in Wait
			rt.WaitGroupDone(&wg)
		})
		rt.WaitGroupWait(&wg)
	}},
}

func TestMisuseFoundAndReplayed(t *testing.T) {
	for _, p := range misusePrograms {
		t.Run(p.name, func(t *testing.T) {
			res := findBug(t, p.run)
			if res.Bug.Kind != engine.KindMisuse || !strings.Contains(res.Bug.Message, p.msg) {
				t.Fatalf("found %s %q, want misuse containing %q", res.Bug.Kind, res.Bug.Message, p.msg)
			}
			r := strategy.NewReplay(keysOf(res.Choices))
			r.Begin(1)
			again := engine.Run(engine.Config{StepLimit: 2000}, r, p.run)
			if again.Bug == nil || again.Bug.Message != res.Bug.Message {
				t.Fatalf("replay: got %v, want %q", again.Bug, res.Bug.Message)
			}
		})
	}
}

// TestWaitGroupCorrectUseIsNoMisuse: the correct patterns (Add before the
// go statement, a WaitGroup reused after Wait returned, a worker adding
// for the work it starts while the counter is positive) give no report in
// any schedule.
func TestWaitGroupCorrectUseIsNoMisuse(t *testing.T) {
	_, bugs, runs := exhaust(t, func() string {
		var wg sync.WaitGroup
		for round := 0; round < 2; round++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				rt.WaitGroupAdd(&wg, 1)
				rt.Go(func() { rt.WaitGroupDone(&wg) })
				rt.WaitGroupDone(&wg)
			})
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() { rt.WaitGroupDone(&wg) })
			rt.WaitGroupWait(&wg)
		}
		return ""
	})
	if len(bugs) > 0 {
		t.Fatalf("bugs %v in %d runs of correct WaitGroup use", bugs, runs)
	}
	if runs < 10 {
		t.Fatalf("only %d runs: the schedules were not explored", runs)
	}
}
