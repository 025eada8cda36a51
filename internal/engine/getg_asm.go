//go:build amd64 || arm64

package engine

// getg returns the address of the calling goroutine's runtime descriptor:
// an identity that no two live goroutines share. See Current.
func getg() uintptr
