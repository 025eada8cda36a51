package rt

import (
	"io"
	"runtime/pprof"
	"strings"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/explore"
)

// PprofWriteTo replaces (*pprof.Profile).WriteTo. During an exploration
// the goroutine profile in its text form of debug 2 is the dump of
// runtime.Stack (Stack): the program's goroutines, those of the run that
// have not started included, without heddle's. Natively the profile of
// debug 2 is that dump; the profile read by the real runtime showed
// heddle's explorer, worker and watchdog goroutines, and missed the run's
// goroutines not started yet (a leak checker comparing the profile
// before and after a test). Other profiles, and the forms of debug 0
// and 1 (aggregated by program counters, which a goroutine that has not
// started lacks here), are the real runtime's.
func PprofWriteTo(p *pprof.Profile, w io.Writer, debug int) error {
	if engine.Current() == nil || p.Name() != "goroutine" || debug < 2 {
		return p.WriteTo(w, debug)
	}
	buf := make([]byte, 64<<10)
	for {
		n := explore.Stack(buf, true)
		if n < len(buf) {
			_, err := w.Write(buf[:n])
			return err
		}
		buf = make([]byte, 2*len(buf))
	}
}

// PprofCount replaces (*pprof.Profile).Count: during an exploration the
// goroutine profile counts the goroutines of runtime.Stack's dump
// (PprofWriteTo).
func PprofCount(p *pprof.Profile) int {
	if engine.Current() == nil || p.Name() != "goroutine" {
		return p.Count()
	}
	buf := make([]byte, 64<<10)
	for {
		n := explore.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "\ngoroutine ") + 1
		}
		buf = make([]byte, 2*len(buf))
	}
}
