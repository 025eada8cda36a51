package realworld

import (
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
