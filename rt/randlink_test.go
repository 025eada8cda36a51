package rt_test

import (
	"fmt"
	"hash/maphash"
	"testing"

	"heddle.dev/rt"
)

// TestRuntimeRandPerRun: the replacements of the runtime's generators and
// of maphash.MakeSeed draw, in a run, what the run's seed gives: the same
// numbers and seeds in two runs of one seed (a replay in the same process),
// other ones for other seeds.
func TestRuntimeRandPerRun(t *testing.T) {
	draw := func(seed uint64) string {
		var out string
		runSeed(t, seed, func() {
			a, b := rt.MaphashMakeSeed(), rt.MaphashMakeSeed()
			if a == b {
				t.Errorf("seed %d: two seeds of one run are equal", seed)
			}
			n := rt.Cheaprandn(10)
			if n >= 10 {
				t.Errorf("Cheaprandn(10) = %d", n)
			}
			r64 := rt.Cheaprand64()
			if r64 < 0 {
				t.Errorf("Cheaprand64() = %d", r64)
			}
			out = fmt.Sprint(rt.Cheaprand(), r64, n, rt.RuntimeRand(),
				maphash.String(a, "key"), maphash.String(b, "key"))
		})
		return out
	}
	first := draw(7)
	if again := draw(7); again != first {
		t.Errorf("seed 7 drew %s, then %s", first, again)
	}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		seen[draw(seed)] = true
	}
	if len(seen) < 20 {
		t.Errorf("20 seeds drew %d different sets of numbers, want 20", len(seen))
	}
	// Outside a run: the native randomness.
	if a, b := rt.MaphashMakeSeed(), rt.MaphashMakeSeed(); a == b {
		t.Errorf("two native seeds are equal")
	}
	if a, b := rt.RuntimeRand(), rt.RuntimeRand(); a == b {
		t.Errorf("two native numbers are equal")
	}
}
