package rt_test

import (
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

func TestSmokeDeadlock(t *testing.T) {
	found := 0
	s := strategy.NewRandom(1)
	for run := 1; run <= 200; run++ {
		s.Begin(run)
		res := engine.Run(engine.Config{}, s, func() {
			var a, b sync.Mutex
			var wg sync.WaitGroup
			rt.WaitGroupAdd(&wg, 2)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				rt.MutexLock(&a)
				rt.MutexLock(&b)
				rt.MutexUnlock(&b)
				rt.MutexUnlock(&a)
			})
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				rt.MutexLock(&b)
				rt.MutexLock(&a)
				rt.MutexUnlock(&a)
				rt.MutexUnlock(&b)
			})
			rt.WaitGroupWait(&wg)
		})
		if res.Bug != nil {
			if res.Bug.Kind != engine.KindDeadlock {
				t.Fatalf("run %d: %s: %s", run, res.Bug.Kind, res.Bug.Message)
			}
			found++
		}
	}
	if found == 0 {
		t.Fatal("deadlock never found")
	}
	t.Logf("deadlock in %d of 200 runs", found)
}
