//go:build amd64 || arm64

package engine

import "unsafe"

// getg returns the address of the calling goroutine's runtime descriptor:
// an identity that no two live goroutines share. See Current.
func getg() uintptr

// getgp is getg as a pointer: the runtime descriptor that goready takes
// (handoff_park.go).
func getgp() unsafe.Pointer
