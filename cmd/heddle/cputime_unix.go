//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the processor time used so far by heddle and by the child
// processes it waited for (go build, test binaries): user and system.
func cpuTime() time.Duration {
	return rusage(syscall.RUSAGE_SELF) + rusage(syscall.RUSAGE_CHILDREN)
}

// selfCPUTime is the processor time used so far by heddle alone: with
// -parallel, the coordinator's (and its reading of the workers' events).
func selfCPUTime() time.Duration { return rusage(syscall.RUSAGE_SELF) }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
