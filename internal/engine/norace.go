//go:build !race

package engine

import "unsafe"

// RaceEnabled reports whether the program was built with -race.
const RaceEnabled = false

func raceDisable() {}
func raceEnable()  {}

func raceAcquire(unsafe.Pointer)      {}
func raceRelease(unsafe.Pointer)      {}
func raceReleaseMerge(unsafe.Pointer) {}

// HideSync makes the race detector ignore the calling goroutine's
// synchronization until ShowSync, as in the handoff.
func HideSync() {}

// ShowSync ends HideSync.
func ShowSync() {}

// RaceErrors is the number of data races the race detector reported so far.
func RaceErrors() int { return 0 }

// raceServe returns s: without the race detector, Choose runs on the
// controlled goroutines.
func raceServe(s Strategy) (Strategy, func()) { return s, func() {} }
