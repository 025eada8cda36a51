package strategy_test

import (
	"hash/fnv"
	"sync"
	"sync/atomic"
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
	hits, _ := comparePOSMemo(t, engine.Config{StepLimit: 100000, Trace: true}, prog)
	if hits == 0 {
		t.Fatalf("the memo decided no choice: the test no longer tests it")
	}
	t.Logf("the memo decided %d choices", hits)
}

// comparePOSMemo runs prog with POS, with resetRacing's memo and without,
// 6 runs of each of 3 seeds, fails t unless every point's hash is the
// same both ways, and returns how many plain choices the memo decided and
// how many it was asked about.
func comparePOSMemo(t *testing.T, cfg engine.Config, prog func()) (hits, looks int) {
	t.Helper()
	for _, seed := range []int64{1, 2, 3} {
		var hs [2][][]uint64
		for v, memo := range []bool{false, true} {
			s := &posHashing{POS: strategy.NewPOS(seed)}
			strategy.SetPOSMemo(s.POS, memo)
			for run := 1; run <= 6 && s.Begin(run); run++ {
				s.h = nil
				r := engine.Run(cfg, s, prog)
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
				looks += strategy.POSMemoLooks(s.POS)
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
	return hits, looks
}

// TestPOSMemoKinds: the memo keeps its verdicts on several kinds of plain
// operations through one step, so that choices of goroutines at
// different operations in turn (ants' pools: Gosched, an atomic load and a
// compare-and-swap of one spin lock) are each decided once per kind and
// object, not once per choice; with the same schedules as without it.
// It failed with a memo of the last verdict only (a hit on about an
// eighth of the plain choices).
func TestPOSMemoKinds(t *testing.T) {
	prog := func() {
		var x, y int64
		var wg sync.WaitGroup
		for i := 0; i < 60; i++ {
			rt.WaitGroupAdd(&wg, 1)
			rt.Go(func() {
				defer rt.WaitGroupDone(&wg)
				for k := 0; k < 6; k++ {
					switch i % 3 {
					case 0:
						rt.Gosched()
					case 1:
						atomic.LoadInt64(rt.AtomicR(&x))
					default:
						atomic.LoadInt64(rt.AtomicR(&y))
					}
				}
				if i%10 == 0 {
					atomic.AddInt64(rt.AtomicW(&x), 1)
				}
			})
		}
		rt.WaitGroupWait(&wg)
	}
	hits, looks := comparePOSMemo(t, engine.Config{StepLimit: 100000, Trace: true, KeepSpinners: true}, prog)
	t.Logf("the memo decided %d of %d plain choices", hits, looks)
	if hits*2 < looks {
		t.Fatalf("the memo decided %d of %d plain choices, fewer than half", hits, looks)
	}
}
