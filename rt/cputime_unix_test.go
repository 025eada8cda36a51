//go:build unix

package rt_test

import (
	"syscall"
	"time"
)

// procCPU is the processor time the test process used so far (user and
// system): benchmarks report it beside wall time, which the load of a
// shared machine inflates.
func procCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
