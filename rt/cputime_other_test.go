//go:build !unix

package rt_test

import "time"

// processTime is not known here.
func processTime() (time.Duration, bool) { return 0, false }

// procCPU is not measured here: benchmarks report 0.
func procCPU() time.Duration { return 0 }
