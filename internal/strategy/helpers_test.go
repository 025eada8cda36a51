package strategy_test

import (
	"strings"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
)

// runAll runs body under s until s ends the exploration (or limit runs)
// and returns every run's result and its schedule (the keys of its steps).
func runAll(t testing.TB, s engine.Strategy, limit int, body func()) (res []*engine.Result, scheds []string) {
	t.Helper()
	trace := false
	if tn, ok := s.(strategy.TraceNeeder); ok {
		trace = tn.NeedsTrace()
	}
	for run := 1; s.Begin(run); run++ {
		if run > limit {
			t.Fatalf("exploration did not end within %d runs", limit)
		}
		r := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond, Trace: true || trace, StepLimit: 5000}, s, body)
		s.End(r)
		res = append(res, r)
		scheds = append(scheds, schedule(r))
	}
	return res, scheds
}

func schedule(r *engine.Result) string {
	var b strings.Builder
	for _, st := range r.Trace {
		if st.Kind == engine.OpExit || st.N == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if st.G == nil {
			b.WriteString("@" + st.Timer)
		} else {
			b.WriteString(st.G.ID)
		}
	}
	return b.String()
}
