package strategy_test

import (
	"hash/fnv"
	"sync"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// posHashing records a hash of every point POS chooses at: the choices
// (each one's goroutine, case and Early) and the index taken.
type posHashing struct {
	*strategy.POS
	h []uint64
}

func (s *posHashing) Choose(p *engine.Point) int {
	i := s.POS.Choose(p)
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
		put(g)
		put(int64(c.Case))
		put(int64(c.Early))
	}
	s.h = append(s.h, f.Sum64())
	return i
}

// TestPOSMemoSameSchedules: resetRacing's memo (the verdict on the last
// plain operation, reused for the next choices with the same kind and
// object) takes the same choices as deciding every choice, with the same
// seed: the hashes of every point are the same with the memo and without.
// The program has many waiters of each kind on each of several objects
// (Mutex Lock, RWMutex RLock and Lock, WaitGroup Wait, a channel's
// receivers, TryLock pollers, sleepers), so that a verdict is reused
// across choices of one object and kind, and differs between objects and
// kinds of the same step.
func TestPOSMemoSameSchedules(t *testing.T) {
	prog := func() {
		var mu, mu2 sync.Mutex
		var rw sync.RWMutex
		var wg, gate sync.WaitGroup
		ch := rt.MakeChan[chan int](0)
		rt.WaitGroupAdd(&gate, 1)
		for i := 0; i < 40; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				switch i % 5 {
				case 0:
					rt.MutexLock(&mu)
					rt.MutexLock(&mu2)
					rt.MutexUnlock(&mu2)
					rt.MutexUnlock(&mu)
				case 1:
					rt.RWRLock(&rw)
					rt.MutexLock(&mu)
					rt.MutexUnlock(&mu)
					rt.RWRUnlock(&rw)
				case 2:
					rt.RWLock(&rw)
					rt.RWUnlock(&rw)
				case 3:
					rt.WaitGroupWait(&gate)
					rt.Send(ch, i)
				default:
					for !rt.MutexTryLock(&mu2) {
					}
					rt.MutexUnlock(&mu2)
				}
			})
		}
		rt.Go(func() {
			for range 8 {
				rt.Recv(ch)
			}
		})
		rt.MutexLock(&mu)
		rt.WaitGroupDone(&gate)
		rt.MutexUnlock(&mu)
		rt.WaitGroupWait(&wg)
	}
	hits := 0
	for _, seed := range []int64{1, 2, 3} {
		var hs [2][][]uint64
		for v, memo := range []bool{false, true} {
			s := &posHashing{POS: strategy.NewPOS(seed)}
			strategy.SetPOSMemo(s.POS, memo)
			for run := 1; run <= 6 && s.Begin(run); run++ {
				s.h = nil
				r := engine.Run(engine.Config{StepLimit: 100000, Trace: true}, s, prog)
				s.End(r)
				if r.Bug != nil {
					t.Fatalf("seed %d run %d: %s: %s", seed, run, r.Bug.Kind, r.Bug.Message)
				}
				hs[v] = append(hs[v], s.h)
			}
			if n := strategy.POSMemoHits(s.POS); !memo && n != 0 {
				t.Fatalf("seed %d: the memo decided %d choices while off", seed, n)
			} else if memo {
				hits += n
			}
		}
		for run := range hs[0] {
			a, b := hs[0][run], hs[1][run]
			if len(a) != len(b) {
				t.Fatalf("seed %d run %d: %d points without the memo, %d with it", seed, run+1, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("seed %d run %d: point %d differs", seed, run+1, i)
				}
			}
		}
	}
	if hits == 0 {
		t.Fatalf("the memo decided no choice: the test no longer tests it")
	}
	t.Logf("the memo decided %d choices", hits)
}
