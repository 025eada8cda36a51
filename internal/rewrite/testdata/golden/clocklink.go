package clocklink

import (
	_ "unsafe" // for go:linkname
)

// Functions linknamed to the runtime's clock read the virtual clock.

//go:noescape
//go:linkname now time.now
func now() (sec int64, nsec int32, mono int64)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

//go:linkname runtimeNano time.runtimeNano
func runtimeNano() int64

// A linkname to another function, or with another signature, is left alone.

//go:linkname memhash runtime.memhash
func memhash(p uintptr, h, s uintptr) uintptr

//go:linkname nanotime32 runtime.nanotime
func nanotime32() int32

// Now is sethvargo/go-limiter's fasttime.Now.
func Now() uint64 {
	sec, nsec, _ := now()
	return uint64(sec)*1e9 + uint64(nsec)
}

func Mono() int64 { return nanotime() + runtimeNano() + int64(memhash(0, 0, 0)) + int64(nanotime32()) }
