//go:build amd64 || arm64

package engine

import (
	"sync"
	"unsafe"
)

// Go prints every panic of a goroutine's chain when the goroutine dies,
// the earliest first (runtime.printpanics): a deferred call that panics
// while a first panic unwinds crashes the program with "panic: first",
// then "\tpanic: second", and a panic recovered and followed by another in
// the same deferred call with "panic: first [recovered]" then the second.
// A recover in heddle's goroutine wrapper sees only the last value. The
// chain is read from the runtime's goroutine descriptor: its _panic field,
// whose offset the linker knows (4 words), and in each _panic the
// argument and the link to the earlier one, whose offsets are found once
// by panicking twice with known values (probePanicLayout); if they cannot
// be found, no chain is read.

// gPanicOff is the offset of runtime.g's _panic field: after the stack's
// lo and hi and stackguard0 and stackguard1 ("offset known to liblink").
const gPanicOff = 4 * unsafe.Sizeof(uintptr(0))

var panicLayout struct {
	once    sync.Once
	ok      bool
	argOff  uintptr
	linkOff uintptr
}

type panicProbe struct{ _ int }

var probeFirst, probeSecond = new(panicProbe), new(panicProbe)

// probePanicLayout finds the offsets of _panic's arg and link: it panics
// with probeFirst, and a deferred call panics with probeSecond; under the
// second, the innermost _panic's arg is probeSecond, and its link points
// (into this goroutine's stack, where gopanic keeps its _panic) at one
// whose arg is probeFirst.
//
//go:norace
func probePanicLayout() {
	defer func() { recover() }()
	defer func() {
		defer func() {
			panicLayout.ok = findPanicLayout(efaceOf(probeSecond), efaceOf(probeFirst))
		}()
		panic(probeSecond)
	}()
	panic(probeFirst)
}

// findPanicLayout looks for second's and first's _panic. It makes no
// call once it read the goroutine's _panic: a call may grow the stack,
// which moves the _panic values gopanic keeps there.
//
//go:norace
func findPanicLayout(second, first eface) bool {
	const words = 12
	const w = unsafe.Sizeof(uintptr(0))
	g := getgp()
	lo, hi := *(*uintptr)(g), *(*uintptr)(unsafe.Add(g, w))
	p := *(*unsafe.Pointer)(unsafe.Add(g, gPanicOff))
	if uintptr(p) < lo || uintptr(p)+words*w > hi {
		return false
	}
	for a := uintptr(0); a+1 < words; a++ {
		if *(*eface)(unsafe.Add(p, a*w)) != second {
			continue
		}
		for l := uintptr(0); l < words; l++ {
			if l == a || l == a+1 {
				continue
			}
			q := *(*uintptr)(unsafe.Add(p, l*w))
			if q < lo || q+words*w > hi || q == uintptr(p) {
				continue
			}
			if *(*eface)(unsafe.Add(p, q-uintptr(p)+a*w)) == first {
				panicLayout.argOff, panicLayout.linkOff = a*w, l*w
				return true
			}
		}
	}
	return false
}

// panicChain returns the values of the calling goroutine's panics, the
// earliest first, while a deferred call runs for the latest (before it
// recovers it); nil if the runtime's layout was not found or there is
// only one. Goexit's entries (a nil argument) are left out, as Go's
// printout leaves them out.
//
//go:norace
func panicChain() []any {
	panicLayout.once.Do(probePanicLayout)
	if !panicLayout.ok {
		return nil
	}
	var buf [32]any
	n := readPanics(&buf)
	if n < 2 {
		return nil
	}
	vals := make([]any, 0, n)
	for i := n - 1; i >= 0; i-- {
		vals = append(vals, buf[i])
	}
	return vals
}

// Panicking reports whether the calling goroutine is panicking: a
// deferred call runs for a panic not yet recovered, not for
// runtime.Goexit alone. It is false where the runtime's layout was not
// found.
//
//go:norace
func Panicking() bool {
	panicLayout.once.Do(probePanicLayout)
	if !panicLayout.ok {
		return false
	}
	var buf [32]any
	return readPanics(&buf) > 0
}

// readPanics stores the arguments of the goroutine's panics in buf, the
// latest first, and returns how many; 0 if a link leaves the goroutine's
// stack. As findPanicLayout, it makes no call once it read the _panic.
//
//go:norace
func readPanics(buf *[32]any) int {
	const w = unsafe.Sizeof(uintptr(0))
	g := getgp()
	lo, hi := *(*uintptr)(g), *(*uintptr)(unsafe.Add(g, w))
	p := *(*unsafe.Pointer)(unsafe.Add(g, gPanicOff))
	n := 0
	for p != nil && n < len(buf) {
		if uintptr(p) < lo || uintptr(p) >= hi {
			// Not where gopanic keeps its _panic: read nothing rather
			// than what is not one.
			return 0
		}
		if v := *(*any)(unsafe.Add(p, panicLayout.argOff)); v != nil {
			buf[n] = v
			n++
		}
		p = *(*unsafe.Pointer)(unsafe.Add(p, panicLayout.linkOff))
	}
	return n
}
