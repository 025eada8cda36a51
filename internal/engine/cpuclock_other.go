//go:build !unix

package engine

import "time"

// processCPU is not known here: the monitor counts its looks in real time.
func processCPU() (time.Duration, bool) { return 0, false }
