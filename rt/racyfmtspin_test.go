// The program below races on a map by design (the writes and the
// iteration heddle orders are unsynchronized natively), which the race
// detector reports.

//go:build !race

package rt_test

import (
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// TestRacyPrintMapNotSpinning: a map printed on a racy line is copied
// entry by entry (rangeCopy), and each key another goroutine stored
// meanwhile is a choice, ahead of the walk or behind it (rangeAhead: a
// select over two closed channels). Those choices are no polls: counted
// as such, three of them at one call site looked like a spin loop to the
// strategies' spin filter, which left the printer out and bounded the
// claim ("exhausted up to the spin bound", conformance's
// TestLoggerPrintfMapVsWrite), though -keep-spinners ran the same
// schedules. The search claims every schedule now, in as many runs as
// with KeepSpinners.
func TestRacyPrintMapNotSpinning(t *testing.T) {
	body := func() {
		m := map[int]int{}
		for i := 0; i < 8; i++ {
			m[i] = i
		}
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			_ = rt.RacySprintf("%v", m)
			rt.Send(done, true)
		})
		for _, k := range []int{100, 101} {
			rt.MapWriteBegin(m)
			m[k] = 1
			rt.MapWriteEnd(m)
		}
		rt.Recv(done)
	}
	runs := map[bool]int{}
	for _, keep := range []bool{false, true} {
		s := strategy.NewOptimalDPOR()
		drops := 0
		n := 0
		for run := 1; s.Begin(run); run++ {
			if run > 20000 {
				t.Fatalf("keep %v: not exhausted within 20000 runs", keep)
			}
			res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true, KeepSpinners: keep}, s, body)
			s.End(res)
			if res.Internal != "" {
				t.Fatalf("internal error: %s", res.Internal)
			}
			drops += res.SpinDrops
			n = run
		}
		runs[keep] = n
		if b := s.SpinBound(); b != 0 || drops != 0 {
			t.Errorf("keep %v: spin bound %d, engine drops %d after %d runs; want every schedule claimed", keep, b, drops, n)
		}
	}
	if runs[false] != runs[true] {
		t.Errorf("%d runs, %d with KeepSpinners: want the same schedules", runs[false], runs[true])
	}
	t.Logf("%d runs", runs[false])
}
