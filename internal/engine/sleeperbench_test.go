package engine

import (
	"sync"
	"testing"
	"time"
	"unsafe"
)

// notTimers takes, in turn, the goroutines' choices that are not early
// wakings or firings: the sleepers stay due, early, at every point.
type notTimers struct{ next int }

func (*notTimers) Begin(int) bool { return true }
func (*notTimers) End(*Result)    {}
func (s *notTimers) Choose(p *Point) int {
	for k := range p.Choices {
		i := (s.next + k) % len(p.Choices)
		if c := &p.Choices[i]; c.G != nil && c.Early == 0 {
			s.next = i + 1
			return i
		}
	}
	return 0
}

// BenchmarkSleepersDueAnts is a run of the shape of ants' pool tests'
// timer choices: 30 sleepers due at the same instant, each an early
// choice with its own starvation at every point, beside 200 goroutines
// at work (a run of 20,000 points a loop). Its instruction count is
// repeatable (BenchmarkDropSpinnersAnts tells how to run callgrind).
func BenchmarkSleepersDueAnts(b *testing.B) {
	const sleepers, workers, writes = 30, 200, 100
	for i := 0; i < b.N; i++ {
		res := Run(Config{MaxStarve: 100 * time.Millisecond}, &notTimers{}, sleepersDue(sleepers, workers, writes, nil))
		if res.Bug != nil || res.Internal != "" {
			b.Fatalf("unexpected end: %v %s", res.Bug, res.Internal)
		}
	}
}

// sleepersDue is the body of a run with sleepers goroutines due at the
// same instant beside workers goroutines making writes atomic writes each
// (ants' shape); if at is not nil, it is set to the run's Exec.
func sleepersDue(sleepers, workers, writes int, at **Exec) func() {
	return func() {
		e := Current()
		if at != nil {
			*at = e
		}
		var wg sync.WaitGroup
		e.WaitGroupAdd(unsafe.Pointer(&wg), sleepers+workers)
		for range sleepers {
			e.Go(func() {
				e.Sleep(10 * time.Millisecond)
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		for range workers {
			var x int64
			e.Go(func() {
				for range writes {
					e.Access(unsafe.Pointer(&x), OpAtomicWrite)
				}
				e.WaitGroupAdd(unsafe.Pointer(&wg), -1)
			})
		}
		e.WaitGroupWait(unsafe.Pointer(&wg))
	}
}
