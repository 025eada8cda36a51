package realworld

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpeedMarkdown checks the page of -speed: only the tests whose native
// run takes at least the minimum, by decreasing ratio in processor time,
// the counts of those over 5×, a test heddle gave no summary for shown as
// such, and a test whose runs end at the step bound marked and counted
// apart (its ratio is not a cost per run).
func TestSpeedMarkdown(t *testing.T) {
	rows := []*SpeedRow{
		{Module: "example.com/m", Package: "example.com/m", Test: "TestFast", Native: 50e-6, NativeCPU: 50e-6, NativeRuns: 1000, Heddle: 1e-3, HeddleCPU: 1e-3, HeddleRuns: 900},
		{Module: "example.com/m", Package: "example.com/m/p", Test: "TestCheap", Native: 2e-3, NativeCPU: 2e-3, NativeRuns: 250, Heddle: 4e-3, HeddleCPU: 3e-3, HeddleRuns: 200},
		{Module: "example.com/m", Package: "example.com/m", Test: "TestDear", Native: 1e-3, NativeCPU: 2e-3, NativeRuns: 500, Heddle: 20e-3, HeddleCPU: 16e-3, HeddleRuns: 50},
		{Module: "example.com/m", Package: "example.com/m", Test: "TestGone", Native: 1e-3, NativeCPU: 1e-3, NativeRuns: 500, HeddleErr: "no summary (heddle test exit 2)"},
		// Its runs stop at the step bound: 10× native, but each did part
		// of the test's work.
		{Module: "example.com/m", Package: "example.com/m", Test: "TestBounded", Native: 100e-3, NativeCPU: 20e-3, NativeRuns: 10, Heddle: 2, HeddleCPU: 0.2, HeddleRuns: 3, BoundRuns: 3},
	}
	md := SpeedMarkdown(rows, 100*time.Microsecond, "go run ./cmd/realworld -speed", "a machine", "commit x", time.Minute, SpeedConfig{Budget: "1s", NativeTime: time.Second})
	if strings.Contains(md, "TestFast") {
		t.Errorf("a test under the minimum is shown:\n%s", md)
	}
	if !strings.Contains(md, "4 tests whose native run takes at least 100µs of wall time (1 faster tests left out); 1 of them cost heddle more than 5× native per run in processor time, 1 in wall time. By decreasing ratio in processor time. Not counted: 1 whose heddle runs end at the step bound") {
		t.Errorf("wrong counts:\n%s", md)
	}
	dear, cheap := strings.Index(md, "TestDear"), strings.Index(md, "TestCheap")
	if dear < 0 || cheap < 0 || dear > cheap {
		t.Errorf("rows not by decreasing ratio:\n%s", md)
	}
	for _, want := range []string{"| example.com/m | . | TestDear | 1ms | 2ms | 500 | 20ms | 16ms | 50 | 8.0× | 20.0× |", "| example.com/m | p | TestCheap | 2ms | 2ms | 250 | 4ms | 3ms | 200 | 1.5× | 2.0× |", "| TestGone | 1ms | 1ms | 500 | no summary (heddle test exit 2) | | 0 | | |", "| example.com/m | . | TestBounded | 100ms | 20ms | 10 | 2s | 200ms | 3 | 10.0×: runs end at the step bound (3 of 3), not a per-run ratio | 20.0× |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no row %q:\n%s", want, md)
		}
	}
}

// TestBuildNativeWithoutVet checks that -speed builds a package whose
// tests go vet rejects (an example naming an identifier the package does
// not have, as cenkalti/backoff/v4's ExampleRetryContext does): go test
// -c failed on it, and the module was left out of the measurement.
func TestBuildNativeWithoutVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/vetfail\n\ngo 1.21\n",
		"p.go":            "package p\n\nfunc Add(a, b int) int { return a + b }\n",
		"p_test.go":       "package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
		"example_test.go": "package p\n\nfunc ExampleGone() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "p.test")
	if err := buildNative(context.Background(), SpeedConfig{Timeout: 2 * time.Minute}, dir, "example.com/vetfail", bin); err != nil {
		t.Fatalf("buildNative: %v", err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no test binary: %v", err)
	}
}
