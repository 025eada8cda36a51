package rt

import (
	"os"
	"unsafe"

	"heddle.dev/internal/engine"
)

// FileW replaces the receiver f of a call of an *os.File method that
// reads or writes the file or moves its offset (Read, Write, Seek, Close,
// ...): the call is a step, an atomic write of the file, then the method
// runs on f. The file's offset and writes are ordered by package os's own
// lock, not rewritten: without the step, two goroutines' writes to one
// file were independent for DPOR, which explored one order only (conform
// TestFileTwoWriters). Calls through io.Writer (fmt.Fprint(f, ...)) are
// not steps: the standard library makes them. Nor are they while the
// running goroutine is alone (engine.Exec.Alone).
func FileW(f *os.File) *os.File {
	if x := engine.Current(); x != nil && f != nil && !x.Alone() {
		x.Access(unsafe.Pointer(f), engine.OpAtomicWrite)
	}
	return f
}
