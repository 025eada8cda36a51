package strategy_test

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestDPORLongRunsAreNoProof runs DPOR on a program whose runs are longer
// than the steps it analyzes: the exploration ends, and it must not claim
// to have explored every schedule.
func TestDPORLongRunsAreNoProof(t *testing.T) {
	const maxSteps = 100
	long := func() {
		var x int32
		done := make(chan bool)
		rt.Go(func() {
			for i := 0; i < 2*maxSteps; i++ {
				atomic.AddInt32(rt.AtomicW(&x), 1)
			}
			rt.Send(done, true)
		})
		rt.Go(func() { atomic.LoadInt32(rt.AtomicR(&x)) })
		rt.Recv(done)
	}
	for _, name := range []string{"sdpor", "odpor"} {
		t.Run(name, func(t *testing.T) {
			d := strategy.NewSourceDPOR()
			if name == "odpor" {
				d = strategy.NewOptimalDPOR()
			}
			d.MaxSteps = maxSteps
			runs := 0
			for run := 1; d.Begin(run); run++ {
				if run > 10 {
					t.Fatalf("exploration did not end within 10 runs")
				}
				r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, d, long)
				if r.Steps <= maxSteps {
					t.Fatalf("run %d took %d steps, want more than %d", run, r.Steps, maxSteps)
				}
				d.End(r)
				runs++
			}
			if d.CutRuns != runs {
				t.Errorf("CutRuns = %d, want %d (every run)", d.CutRuns, runs)
			}
			if why := d.Incomplete(); !strings.Contains(why, "longer than") {
				t.Errorf("Incomplete() = %q, want the reason", why)
			}
			if p := d.Proven(); p != "" {
				t.Errorf("Proven() = %q after runs too long to analyze, want nothing", p)
			}
		})
	}
}

// TestRaceIndexMatchesScan explores corpus programs with sdpor, odpor and
// lazy DPOR, each race list and vector clock found through the index
// checked against a scan of the whole prefix (the quadratic analysis the
// index replaced): every fifth generated program and the hand-written
// ones (HEDDLE_FULL=1: the whole corpus, which agreed when the index was
// written), and the first runs of two longer programs.
func TestRaceIndexMatchesScan(t *testing.T) {
	strategy.SetCheckRaceIndex(true)
	defer strategy.SetCheckRaceIndex(false)
	for i, p := range corpus() {
		if i%5 != 0 && strings.HasPrefix(p.name, "gen") && os.Getenv("HEDDLE_FULL") == "" {
			continue
		}
		for _, name := range []string{"sdpor", "odpor", "lazy"} {
			s, _ := strategy.New(name, strategy.Options{})
			exploreProgram(t, s, 20000, p.body)
		}
	}
	for _, body := range []func(){workers(50), mutexChan(3, 20)} {
		for _, name := range []string{"sdpor", "odpor", "lazy"} {
			s, _ := strategy.New(name, strategy.Options{})
			for run := 1; run <= 20 && s.Begin(run); run++ {
				s.End(engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, StepLimit: 5000}, s, body))
			}
		}
	}
}
