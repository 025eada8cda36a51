package rt

import (
	_ "unsafe" // for go:linkname

	"heddle.dev/internal/engine"
)

// Some packages read the clock through a body-less function declared with
// //go:linkname to the runtime's clock (time.now, runtime.nanotime,
// time.runtimeNano), to skip time.Now's cost: sethvargo/go-limiter's
// internal/fasttime, the fastrand/fasttime packages. The rewriter gives such
// a function a body calling TimeNow or Nanotime and drops the directive,
// so the package reads the virtual clock the test's time.Now reads.

// TimeNow replaces a function linknamed to time.now: the wall clock's
// seconds and nanoseconds and a monotonic reading. During an exploration
// it reads the virtual clock, whose monotonic reading is the one Nanotime
// returns.
func TimeNow() (sec int64, nsec int32, mono int64) {
	if x := engine.Current(); x != nil {
		t := x.Now()
		return t.Unix(), int32(t.Nanosecond()), t.UnixNano()
	}
	if x := engine.Active(); x != nil {
		t := x.ForeignNow() // a goroutine heddle does not control (Now)
		return t.Unix(), int32(t.Nanosecond()), t.UnixNano()
	}
	return timeNow()
}

// Nanotime replaces a function linknamed to runtime.nanotime or
// time.runtimeNano. During an exploration it reads the virtual clock: the
// nanoseconds since 1970 of its present, a reading that only grows, and
// that is after any native reading taken before the run (a package variable
// set at init), as natively such a reading is in the past.
func Nanotime() int64 {
	if x := engine.Current(); x != nil {
		return x.Now().UnixNano()
	}
	if x := engine.Active(); x != nil {
		return x.ForeignNow().UnixNano() // a goroutine heddle does not control (Now)
	}
	return nanotime()
}

//go:linkname timeNow time.now
func timeNow() (sec int64, nsec int32, mono int64)

//go:linkname nanotime runtime.nanotime
func nanotime() int64
