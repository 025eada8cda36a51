package strategy_test

import (
	"sync/atomic"
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// runN runs body n times under s and returns the results and the HB class
// of each run.
func runN(t *testing.T, s engine.Strategy, n int, body func()) ([]*engine.Result, []string) {
	t.Helper()
	cc := strategy.NewClassCounter(s)
	var res []*engine.Result
	var cls []string
	for run := 1; run <= n && cc.Begin(run); run++ {
		r := engine.Run(engine.Config{Trace: true, StepLimit: 5000}, cc, body)
		cc.End(r)
		res = append(res, r)
		cls = append(cls, cc.Last)
	}
	return res, cls
}

// spread returns the number of distinct classes and the ratio of the
// most to the least frequent.
func spread(cls []string) (int, float64) {
	m := map[string]int{}
	for _, c := range cls {
		m[c]++
	}
	lo, hi := len(cls), 0
	for _, n := range m {
		if n < lo {
			lo = n
		}
		if n > hi {
			hi = n
		}
	}
	return len(m), float64(hi) / float64(lo)
}

// TestPOSSamplesPartialOrdersEvenly: on readers-4 (16 classes) random
// walk favours the classes with many linearizations; POS samples the
// partial orders more evenly (Yuan, Yang and Gu, CAV 2018).
func TestPOSSamplesPartialOrdersEvenly(t *testing.T) {
	const n = 1600
	_, pos := runN(t, strategy.NewPOS(1), n, readers(4))
	_, rnd := runN(t, strategy.NewRandom(1), n, readers(4))
	pk, pr := spread(pos)
	rk, rr := spread(rnd)
	if pk != 16 {
		t.Errorf("POS reached %d of 16 classes in %d runs", pk, n)
	}
	if pr >= rr {
		t.Errorf("POS max/min class frequency %.1f, random %.1f: POS is not more even", pr, rr)
	}
	t.Logf("readers-4, %d runs: POS %d classes, max/min %.1f; random %d classes, max/min %.1f", n, pk, pr, rk, rr)
}

func TestPOSIsDeterministicPerSeed(t *testing.T) {
	a, _ := runN(t, strategy.NewPOS(7), 20, readers(3))
	b, _ := runN(t, strategy.NewPOS(7), 20, readers(3))
	for i := range a {
		if schedule(a[i]) != schedule(b[i]) {
			t.Fatalf("run %d: %q vs %q", i+1, schedule(a[i]), schedule(b[i]))
		}
	}
}

// TestPCTLearnsNAndK: n and k start as guesses and become the most
// goroutines and scheduling points seen (seed-004 §2.5's iterative
// estimate).
func TestPCTLearnsNAndK(t *testing.T) {
	p := strategy.NewPCT(1, 3)
	n0, k0 := p.Bounds()
	res, _ := runN(t, p, 20, lastzero(5))
	n, k := p.Bounds()
	maxGs, maxPts := 0, 0
	for _, r := range res {
		if r.MaxGs > maxGs {
			maxGs = r.MaxGs
		}
		if len(r.Choices) > maxPts {
			maxPts = len(r.Choices)
		}
	}
	if n != maxGs || n == n0 {
		t.Errorf("n = %d (from %d), most goroutines seen %d", n, n0, maxGs)
	}
	if k < maxPts || k == k0 {
		t.Errorf("k = %d (from %d), most scheduling points seen %d", k, k0, maxPts)
	}
}

// TestPCTDeprioritizesYields: a goroutine that yields drops below every
// other, so a spin loop waiting for a lower-priority goroutine lasts one
// iteration instead of until the fair scheduler takes over.
func TestPCTDeprioritizesYields(t *testing.T) {
	res, _ := runN(t, strategy.NewPCT(3, 3), 200, func() {
		var flag int32
		rt.Go(func() {
			for atomic.LoadInt32(rt.AtomicR(&flag)) == 0 {
				rt.Gosched()
			}
		})
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&flag), 1) })
	})
	for i, r := range res {
		if r.Bug != nil || r.Steps > 20 {
			t.Fatalf("run %d: %d steps, bug %v", i+1, r.Steps, r.Bug)
		}
	}
}

// TestPCTFindsDepth2Bug: Fig. 3.1's assertion needs one ordering
// constraint between goroutines beyond creation (depth 2); PCT with d = 2
// finds it with probability at least 1/(n·k) per run.
func TestPCTFindsDepth2Bug(t *testing.T) {
	res, _ := runN(t, strategy.NewPCT(1, 2), 300, fig31)
	for _, r := range res {
		if r.Bug != nil {
			return
		}
	}
	t.Error("PCT d=2 did not find the Fig. 3.1 assertion in 300 runs")
}
