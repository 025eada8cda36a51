package rt_test

import (
	"strings"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// failingStrategy stands for a bug in heddle: it panics at its third choice.
type failingStrategy struct {
	strategy.Random
	n int
}

func (s *failingStrategy) Choose(p *engine.Point) int {
	s.n++
	if s.n == 3 {
		panic("strategy: simulated internal failure") // a panic of heddle's own code
	}
	return s.Random.Choose(p)
}

// A panic of heddle's own code must end the run with an internal error,
// even when the code under test recovers every panic around its
// operations: it must never reach the program's recover, hang the run, or
// become a bug of the test.
func TestInternalErrorIsNotRecoverable(t *testing.T) {
	s := &failingStrategy{Random: *strategy.NewRandom(1)}
	s.Begin(1)
	recovered := false
	res := engine.Run(engine.Config{}, s, func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		protect := func(f func()) {
			defer func() {
				if recover() != nil {
					recovered = true
				}
			}()
			f()
		}
		for i := 0; i < 3; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for j := 0; j < 3; j++ {
					protect(func() { rt.MutexLock(&mu); rt.MutexUnlock(&mu) })
				}
			})
		}
		protect(func() { rt.WaitGroupWait(&wg) })
	})
	if recovered {
		t.Error("the program's recover caught heddle's panic")
	}
	if res.Bug != nil {
		t.Errorf("heddle's panic was reported as a bug of the test: %s: %s", res.Bug.Kind, res.Bug.Message)
	}
	if !strings.Contains(res.Internal, "simulated internal failure") || !strings.Contains(res.Internal, "failingStrategy") {
		t.Errorf("internal error = %q, want the panic and its stack", res.Internal)
	}
}
