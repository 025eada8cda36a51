package engine

import (
	"runtime"
	"unsafe"
)

func stackOf() string {
	buf := make([]byte, 64<<10)
	return string(buf[:runtime.Stack(buf, false)])
}

// raceDisable and raceEnable bracket the handoff between goroutines.
func raceDisable() {}
func raceEnable()  {}

// The race detector hooks; see race.go for the -race build.
func raceAcquire(unsafe.Pointer)      {}
func raceRelease(unsafe.Pointer)      {}
func raceReleaseMerge(unsafe.Pointer) {}
