//go:build !go1.24

package engine

import "unsafe"

// Before Go 1.24 there are no weak pointers: an AfterFunc timer a run made
// is not adopted by a later run (staletimer.go).

func rememberAfterFunc(*afterFuncTimer) {}

func knownAfterFunc(unsafe.Pointer) *afterFuncTimer { return nil }
