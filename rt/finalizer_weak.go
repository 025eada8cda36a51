//go:build go1.24

package rt

import (
	"unsafe"
	"weak"
)

// weakGone returns a function that reports whether the object at p was
// found unreachable by a collection (its finalizer queued), without
// keeping it reachable.
func weakGone(p unsafe.Pointer) func() bool {
	w := weak.Make((*byte)(p))
	return func() bool { return w.Value() == nil }
}
