package pprofs

import (
	"io"
	"runtime/pprof"
)

// dump: the goroutine profile is heddle's dump of the run's goroutines
// (rt.PprofWriteTo, rt.PprofCount).
func dump(w io.Writer) (int, error) {
	p := pprof.Lookup("goroutine")
	return p.Count(), p.WriteTo(w, 2)
}
