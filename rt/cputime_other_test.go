//go:build !unix

package rt_test

import "time"

// procCPU is not measured here: benchmarks report 0.
func procCPU() time.Duration { return 0 }
