//go:build !go1.24

package rt

import "unsafe"

// weakGone returns nil: before Go 1.24 there are no weak pointers, and a
// run's finalizers never run.
func weakGone(p unsafe.Pointer) func() bool { return nil }
