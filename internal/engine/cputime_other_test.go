//go:build !unix

package engine

import "time"

// processTime is not known here.
func processTime() (time.Duration, bool) { return 0, false }
