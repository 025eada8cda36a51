package strategy_test

import (
	"sync"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestPOSBareSameSchedules: resetRacing's verdict on a plain choice (an
// operation with no timer, channel case or group) from its kind and
// object alone takes the same choices as the verdict from the
// goroutine's whole pending operation, with the same seed, and its memo
// off (so that every choice is decided): the hashes of every point are
// the same both ways. The program mixes plain operations that race with
// a step (atomic adds on one word, as conc's iter tests), plain ones that
// do not (atomics on another word, loads, Gosched, Mutex Lock and
// TryLock, a WaitGroup), and ones that are not plain (channel operations,
// a select, sleepers), which the fast path must leave to the usual one.
func TestPOSBareSameSchedules(t *testing.T) {
	prog := func() {
		var x, y int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		ch := rt.MakeChan[chan int](1)
		for i := 0; i < 6; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for k := 0; k < 6; k++ {
					switch (i + k) % 6 {
					case 0:
						rt.AtomicW(&x)
					case 1:
						rt.AtomicR(&x)
					case 2:
						rt.AtomicW(&y)
						rt.Gosched()
					case 3:
						rt.MutexLock(&mu)
						rt.MutexUnlock(&mu)
					case 4:
						if rt.MutexTryLock(&mu) {
							rt.MutexUnlock(&mu)
						}
						rt.Send(ch, k)
						rt.Recv(ch)
					default:
						rt.Sleep(time.Millisecond)
					}
				}
			})
		}
		rt.WaitGroupWait(&wg)
	}
	cfg := engine.Config{StepLimit: 100000, Trace: true}
	hits := 0
	for _, seed := range []int64{1, 2, 3} {
		var hs [2][][]uint64
		for v, bare := range []bool{false, true} {
			s := &posHashing{POS: strategy.NewPOS(seed)}
			strategy.SetPOSMemo(s.POS, false)
			strategy.SetPOSBare(s.POS, bare)
			for run := 1; run <= 6 && s.Begin(run); run++ {
				s.h = nil
				r := engine.Run(cfg, s, prog)
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("seed %d run %d: %s: %s", seed, run, r.Bug.Kind, r.Bug.Message)
				}
				hs[v] = append(hs[v], s.h)
			}
			if n := strategy.POSBareHits(s.POS); !bare && n != 0 {
				t.Fatalf("seed %d: %d choices decided from kind and object while off", seed, n)
			} else if bare {
				hits += n
			}
		}
		for run := range hs[0] {
			a, b := hs[0][run], hs[1][run]
			if len(a) != len(b) {
				t.Fatalf("seed %d run %d: %d points from the pending operations, %d from kind and object", seed, run+1, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("seed %d run %d: point %d differs", seed, run+1, i)
				}
			}
		}
	}
	if hits == 0 {
		t.Fatalf("no choice was decided from its kind and object: the test no longer tests it")
	}
	t.Logf("%d choices decided from their kind and object", hits)
}
