//go:build unix

package engine

import (
	"syscall"
	"time"
)

// processCPU returns the processor time (user and system) the process used
// so far, and whether it is known.
//
//go:norace
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
