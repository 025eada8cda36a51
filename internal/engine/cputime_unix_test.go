//go:build unix

package engine

import (
	"syscall"
	"time"
)

// processTime is the processor time (user and system) the process used so
// far, and whether it is known: benchmarks report it beside wall time,
// which the load of a shared machine inflates.
func processTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
