//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the processor time used so far by heddle and by the child
// processes it waited for (go build, test binaries): user and system.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
