// Package cputime measures the processor time of the process, which
// benchmarks report beside wall time: on a shared, loaded machine wall
// time is mostly the other processes' load, while the processor time a
// benchmark uses hardly moves.
package cputime

import (
	"testing"
)

// PerOp reports, when the benchmark ends, the processor time per
// iteration (cpu-ns/op). Call it after any setup, as
// `defer cputime.PerOp(b)()`: it resets the benchmark's timer.
func PerOp(b *testing.B) func() {
	start, ok := Process()
	b.ResetTimer()
	return func() {
		if end, ok2 := Process(); ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
