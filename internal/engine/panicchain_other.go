//go:build !amd64 && !arm64

package engine

// panicChain returns nil where no assembly reads the runtime's goroutine
// descriptor (panicchain_asm.go): a crash's message is its last panic's.
func panicChain() []any { return nil }

// Panicking reports false: no assembly reads whether the goroutine panics
// (panicchain_asm.go).
func Panicking() bool { return false }
