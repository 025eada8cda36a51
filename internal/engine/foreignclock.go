package engine

import (
	"os"
	"sync/atomic"
	"time"
	"unsafe"
)

// ForeignNow returns the run's virtual clock for a goroutine heddle does
// not control (an HTTP server's handler, started by net/http's own go
// statement) that reads the clock through rewritten code during the run.
// The test's goroutines read the virtual clock, whose epoch is when heddle
// test started; a handler that read the real clock instead would see an
// instant the test has not reached, and the time between the two as
// elapsed (an open circuit breaker's delay, a rate limiter's reset time).
//
// The read is the clock as it stands: it does not move the clock, nor mark
// the running step as reading it, since the engine's state belongs to the
// goroutine that holds the processor. The clock only moves forward during
// a run, so a foreign goroutine's reads never go back, and one made after
// a controlled goroutine's read (a request sent after a time.Now) is not
// before it. The load is atomic: the running goroutine stores the clock
// with plain stores, which are not torn for an aligned word.
//
//go:norace
func (e *Exec) ForeignNow() time.Time {
	return e.cfg.Epoch.Add(e.foreignClock())
}

//go:norace
func (e *Exec) foreignClock() time.Duration {
	p := (*int64)(unsafe.Pointer(&e.now))
	if uintptr(unsafe.Pointer(p))%8 != 0 {
		return time.Duration(*p) // a 32-bit platform: atomics need 8-byte alignment there
	}
	raceDisable() // an atomic is a synchronization event
	n := atomic.LoadInt64(p)
	raceEnable()
	return time.Duration(n)
}

// StampFile sets the access and modification times of the file or
// directory name, which the running goroutine has just created or
// truncated, to the clock that goroutine reads, as it stands: the step
// neither moves the clock nor reads it (a write of the file is not a read
// of the clock).
//
// The test's goroutines read the virtual clock, whose epoch is when heddle
// test started and which moves only with the run's virtual time, while the
// file system stamps files with the real clock, seconds later after a few
// seconds of exploration: a test that compares a new file's modification
// time with time.Now (gofrs/flock's TestFlock_Stat: within a second) saw
// them seconds apart on every schedule, as natively it never does. Stamped
// with the virtual clock, the file's times are the instant the run created
// it, in every run and in a replay, whichever way they are read (os.Stat,
// an open file's Stat, a listing). It reports whether it stamped.
//
//go:norace
func (e *Exec) StampFile(name string) bool {
	var b *Bubble
	if e.cur != nil {
		b = e.cur.bubble
	}
	t := e.clockAt(b)
	return os.Chtimes(name, t, t) == nil
}
