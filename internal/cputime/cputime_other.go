//go:build !unix

package cputime

import "time"

// Process is not known here.
func Process() (time.Duration, bool) { return 0, false }
