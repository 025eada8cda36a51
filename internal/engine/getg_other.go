//go:build !amd64 && !arm64

package engine

import "runtime"

// getg returns an identity of the calling goroutine that no two live
// goroutines share: here, where no assembly reads the runtime's goroutine
// pointer, the goroutine id parsed from the header of runtime.Stack
// ("goroutine 17 [running]:"). It is slower than the assembly version of
// amd64 and arm64, but gives the same answers.
//
//go:norace
func getg() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uintptr
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
