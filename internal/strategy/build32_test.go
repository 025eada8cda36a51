package strategy_test

import (
	"math"
	"os"
	"os/exec"
	"testing"

	"heddle.dev/internal/strategy"
)

// TestBuilds32Bit: the package builds where int has 32 bits. Its
// estimates of runs were capped by a constant (2^40) that overflowed int
// there, so that GOARCH=386 go build ./... failed.
func TestBuilds32Bit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet for GOARCH=386")
	}
	gobin, err := exec.LookPath("go") // go test puts its go command first in PATH
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(gobin, "vet", ".")
	cmd.Env = append(os.Environ(), "GOARCH=386", "GOOS=linux", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=386 go vet: %v\n%s", err, out)
	}
}

// TestEstimatesSaturate: the products and sums of estimates of runs stop
// at their cap instead of overflowing int.
func TestEstimatesSaturate(t *testing.T) {
	for _, c := range []struct{ a, b, mul, add int }{
		{0, 5, 0, 5},
		{3, 4, 12, 7},
		{strategy.MaxEst, 1, strategy.MaxEst, strategy.MaxEst},
		{strategy.MaxEst, 1000, strategy.MaxEst, strategy.MaxEst},
		{strategy.MaxEst / 2, 3, strategy.MaxEst, strategy.MaxEst/2 + 3},
		{strategy.MaxEst / 2, strategy.MaxEst, strategy.MaxEst, strategy.MaxEst},
		{math.MaxInt, math.MaxInt, strategy.MaxEst, strategy.MaxEst},
	} {
		if got := strategy.EstMul(c.a, c.b); got != c.mul {
			t.Errorf("EstMul(%d, %d) = %d, want %d", c.a, c.b, got, c.mul)
		}
		if got := strategy.EstAdd(c.a, c.b); got != c.add {
			t.Errorf("EstAdd(%d, %d) = %d, want %d", c.a, c.b, got, c.add)
		}
	}
}
