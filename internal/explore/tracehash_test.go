package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"heddle.dev/internal/engine"
)

// hashSteps is a trace of n steps by a hundred goroutines and a timer,
// of kinds heddle names and, with unknown, one it does not (op(250)).
func hashSteps(n int, unknown bool) []engine.Step {
	gs := make([]*engine.G, 100)
	for i := range gs {
		gs[i] = &engine.G{ID: fmt.Sprintf("g%d.%d", i%7, i)}
	}
	kinds := []engine.OpKind{engine.OpLock, engine.OpUnlock, engine.OpAtomicWrite, engine.OpSend}
	if unknown {
		kinds = append(kinds, engine.OpKind(250))
	}
	steps := make([]engine.Step, n)
	for i := range steps {
		steps[i] = engine.Step{N: i + 1, Kind: kinds[i%len(kinds)], Case: -1}
		if i%13 != 0 {
			steps[i].G = gs[(i*31)%len(gs)] // every 13th a timer's firing
		}
	}
	return steps
}

// TestTraceHashLines checks traceHash against the hash of the lines
// "<goroutine> <kind>" as fmt prints them, one per step: the hash a fresh
// process reports (freshDeterministic) is compared with this process's.
func TestTraceHashLines(t *testing.T) {
	for _, n := range []int{0, 1, 13, 1000, 20000} {
		steps := hashSteps(n, true)
		h := sha256.New()
		for _, s := range steps {
			fmt.Fprintf(h, "%s %s\n", gid(s.G), s.Kind)
		}
		want := hex.EncodeToString(h.Sum(nil)[:12])
		if got := traceHash(steps); got != want {
			t.Errorf("traceHash of %d steps = %s, want %s", n, got, want)
		}
	}
}

// BenchmarkTraceHash hashes a trace of 200,000 steps, the size of a run
// of Code-Hex's TestMultiThread: the first run of every test is hashed.
func BenchmarkTraceHash(b *testing.B) {
	steps := hashSteps(200000, false)
	b.ReportAllocs()
	for b.Loop() {
		traceHash(steps)
	}
}
