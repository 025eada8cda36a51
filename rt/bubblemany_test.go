package rt_test

import (
	"strconv"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// manyBubbles runs bubbles one after the other, as workerpool's
// TestDoConcurrentStop runs a hundred synctest.Test: in each, workers
// exchange values over channels, sleep, and the root waits for them with
// synctest.Wait before it stops them.
func manyBubbles(bubbles, workers int) func() {
	return func() {
		for range bubbles {
			bubble(func() {
				in := rt.MakeChan[chan int](0)
				out := rt.MakeChan[chan int](workers)
				for range workers {
					rt.Go(func() {
						for {
							v, ok := rt.Recv2(in)
							if !ok {
								return
							}
							rt.Sleep(time.Millisecond)
							rt.Send(out, v)
						}
					})
				}
				for i := range workers {
					rt.Send(in, i)
				}
				engine.Current().BubbleWait()
				for range workers {
					rt.Recv(out)
				}
				rt.Close(in)
			})
		}
	}
}

// While a goroutine waits in synctest.Wait or for its bubble to end, its
// choice depends on every goroutine of the bubble: it is recomputed at
// every step, and the rest of the enabled set is kept as at other steps.
// The whole set was rebuilt at every step, a pass over every goroutine
// the run had made: workerpool's tests, a hundred bubbles in a run, spent
// 40% of their time there. The choices offered are the same as with the
// set rebuilt at every step.
func TestBubbleKeepsEnabledSet(t *testing.T) {
	prog := manyBubbles(10, 10)
	for seed := int64(1); seed <= 4; seed++ {
		var got [2]string
		var rebuilds [2]int
		for i, from := range []int{0, -1} {
			var s engine.Strategy = strategy.NewRandom(seed)
			if seed%2 == 0 {
				s = strategy.NewPCT(seed, 3)
			}
			rec := &choiceHash{s: s}
			rec.Begin(1)
			var e *engine.Exec
			r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, DormantFrom: from}, rec, func() {
				e = engine.Current()
				prog()
			})
			got[i] = strconv.FormatUint(rec.h, 16) + " " + strconv.Itoa(rec.n) + " points, " + strconv.Itoa(r.Steps) + " steps"
			if r.Bug != nil {
				got[i] += " " + r.Bug.Kind + ": " + r.Bug.Message
			}
			rebuilds[i] = e.Rebuilds()
			if from == 0 && rebuilds[i] > r.Steps/10 {
				t.Errorf("seed %d: the enabled set was rebuilt at %d of %d steps", seed, rebuilds[i], r.Steps)
			}
		}
		t.Logf("seed %d: %s; rebuilt %d times (kept), %d (rebuilt)", seed, got[0], rebuilds[0], rebuilds[1])
		if got[0] != got[1] {
			t.Errorf("seed %d: kept: %s; rebuilt: %s", seed, got[0], got[1])
		}
	}
}
