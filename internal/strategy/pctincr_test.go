package strategy_test

import (
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// poolLike is pond's TestPoolSubmitWhileStoppingHasNoRace in small: many
// goroutines that each hand a task, which sleeps, to a pool of workers
// over a channel, under a mutex, while another goroutine sleeps and then
// stops the pool; plus spinners on a TryLock and a select with a timer.
// Its enabled set is kept from step to step (more than DormantFrom
// goroutines), goroutines join and leave it at most steps, and timers,
// sleepers and early firings sit after the goroutines' choices.
func poolLike(n int) func() {
	return func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		tasks := rt.MakeChan[chan func()](4)
		stopped := false
		for range 3 {
			rt.Go(func() {
				for {
					switch rt.Select(false, rt.RecvCase(tasks), rt.RecvCase(rt.After(3*time.Millisecond))) {
					case 0:
					default:
						rt.MutexLock(&mu)
						s := stopped
						rt.MutexUnlock(&mu)
						if s {
							return
						}
					}
				}
			})
		}
		rt.WaitGroupAdd(&wg, 1)
		rt.Go(func() {
			defer rt.WaitGroupDone(&wg)
			rt.Sleep(500 * time.Microsecond)
			rt.MutexLock(&mu)
			stopped = true
			rt.MutexUnlock(&mu)
		})
		rt.Go(func() {
			for !rt.MutexTryLock(&mu) {
			}
			rt.MutexUnlock(&mu)
		})
		for i := 0; i < n; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				rt.MutexLock(&mu)
				s := stopped
				rt.MutexUnlock(&mu)
				if s {
					return
				}
				rt.Sleep(time.Duration(i%3) * time.Millisecond)
				rt.Select(true, rt.SendCase(tasks, func() {}))
			})
		}
		rt.WaitGroupWait(&wg)
	}
}

// hashing records a hash of every point PCT chooses at: the choices (each
// one's goroutine, case, Early and timer) and the index taken.
type hashing struct {
	*strategy.PCT
	h []uint64
}

func (s *hashing) Choose(p *engine.Point) int {
	i := s.PCT.Choose(p)
	f := fnv.New64a()
	var b [8]byte
	put := func(v int64) {
		for k := range b {
			b[k] = byte(v >> (8 * k))
		}
		f.Write(b[:])
	}
	put(int64(len(p.Choices)))
	put(int64(i))
	for _, c := range p.Choices {
		g := int64(-1)
		if c.G != nil {
			g = int64(c.G.Index)
		}
		t := int64(0)
		if c.Timer != nil {
			t = 1
		}
		put(g)
		put(int64(c.Case))
		put(int64(c.Early))
		put(t)
	}
	s.h = append(s.h, f.Sum64())
	return i
}

// TestPCTIncrementalSameSchedules: PCT's incremental pass (pctincr.go)
// takes the same choice as its full pass at every point, with the same
// seed: the hashes of every point of 24 runs (of which some promote a
// starved goroutine) are the same with the incremental pass and without.
// HEDDLE_CHECKSET's check (checkIncr) also compares the heaps' answer
// with a look at every choice at every incremental point.
func TestPCTIncrementalSameSchedules(t *testing.T) {
	was := engine.CheckEnabledSet(true)
	defer engine.CheckEnabledSet(was)
	starved := 0
	for _, seed := range []int64{1, 2, 3} {
		var hs [2][][]uint64
		incr := 0
		var long [2]int
		for v, full := range []bool{true, false} {
			s := &hashing{PCT: strategy.NewPCT(seed, 3)}
			strategy.SetPCTFull(s.PCT, full)
			for run := 1; run <= 8 && s.Begin(run); run++ {
				s.h = nil
				r := engine.Run(engine.Config{StepLimit: 200000}, s, func() {
					poolLike(60)()
					// Ten goroutines blocked while stopWhileBusy's root
					// may be starved: its rounds keep the enabled set.
					hold := rt.MakeChan[chan struct{}](0)
					for range 10 {
						rt.Go(func() { rt.Recv(hold) })
					}
					stopWhileBusy(3)()
					rt.Close(hold)
				})
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("seed %d run %d: %s: %s", seed, run, r.Bug.Kind, r.Bug.Message)
				}
				hs[v] = append(hs[v], s.h)
				if r.Steps > 3000 {
					long[v]++
				}
			}
			if !full {
				incr = strategy.PCTIncrPoints(s.PCT)
			} else if n := strategy.PCTIncrPoints(s.PCT); n != 0 {
				t.Fatalf("the full pass answered %d points incrementally", n)
			}
		}
		points := 0
		for run := range hs[0] {
			a, b := hs[0][run], hs[1][run]
			points += len(a)
			if len(a) != len(b) {
				t.Fatalf("seed %d run %d: %d points with the full pass, %d with the incremental one", seed, run+1, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("seed %d run %d: point %d differs", seed, run+1, i)
				}
			}
		}
		if incr < points/2 {
			t.Fatalf("seed %d: the incremental pass answered %d of %d points: the test no longer tests it", seed, incr, points)
		}
		if long[0] != long[1] {
			t.Fatalf("seed %d: %d runs over 3,000 steps with the full pass, %d with the incremental one", seed, long[0], long[1])
		}
		starved += long[0]
		t.Logf("seed %d: %d points, %d answered incrementally, %d runs over 3,000 steps", seed, points, incr, long[0])
	}
	if starved == 0 {
		t.Fatalf("no run starved stopWhileBusy's root: the test no longer tests the starved goroutine's promotion")
	}
}
