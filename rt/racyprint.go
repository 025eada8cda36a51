package rt

import "heddle.dev/internal/engine"

// RacyArg is an argument of a call that formats with fmt in code the
// rewriter does not rewrite (t.Errorf, t.Logf and testing's other printing
// methods, log.Printf and the Logger's) on a line heddle test -racy found
// racy: the map it holds is copied as a range over it goes, with the
// runtime's iteration checks (racyCopy, racyfmt.go), and the call prints
// the copy. Natively the call's fmt iterates the map, where Go may catch a
// write of another goroutine across the iteration ("concurrent map
// iteration and map write"). The rewriter leaves out calls whose format
// prints with %p.
func RacyArg(v any) any {
	x := engine.Current()
	if x == nil {
		return v
	}
	if c, ok := racyCopy(x, v, false); ok {
		return c
	}
	return v
}
