//go:build race

package engine

import (
	"runtime"
	"unsafe"
)

// Under the race detector, heddle hides its own synchronization from it and
// tells it about the synchronization of every modelled primitive:
//
//   - The handoff between controlled goroutines happens with the detector
//     ignoring synchronization (runtime.RaceDisable), so that serializing
//     the goroutines creates no happens-before edge between them.
//   - The engine's own state is touched by whichever goroutine holds the
//     processor, so every engine function is compiled without
//     instrumentation (//go:norace) and the state lives in structures whose
//     runtime code records nothing (objTable, not Go maps).
//   - Each primitive reports the edge it creates: an Unlock releases the
//     mutex's address and a Lock acquires it, WaitGroup.Done releases and
//     Wait acquires, and so on. Channels carry their values through real
//     channel operations, which the detector sees by itself.
//   - Strategies run on a goroutine of their own (package explore), and the
//     pool of reused goroutines is off, since a reused goroutine would carry
//     the history of the one before.

// RaceEnabled reports whether the program was built with -race.
const RaceEnabled = true

func raceDisable() { runtime.RaceDisable() }
func raceEnable()  { runtime.RaceEnable() }

func raceAcquire(p unsafe.Pointer)      { runtime.RaceAcquire(p) }
func raceRelease(p unsafe.Pointer)      { runtime.RaceRelease(p) }
func raceReleaseMerge(p unsafe.Pointer) { runtime.RaceReleaseMerge(p) }

// HideSync makes the race detector ignore the calling goroutine's
// synchronization until ShowSync, as in the handoff.
func HideSync() { runtime.RaceDisable() }

// ShowSync ends HideSync.
func ShowSync() { runtime.RaceEnable() }

// RaceErrors is the number of data races the race detector reported so far.
func RaceErrors() int { return runtime.RaceErrors() }
