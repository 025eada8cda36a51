package mapsfuncs

import (
	"maps"
	"slices"
)

// Calls of package maps stay calls of package maps outside heddle test
// -racy's racy lines (TestRacyMapFuncs checks those): plain heddle test
// does not model map accesses. The ranges over their iterators are
// range-over-func loops, rewritten as such. maps.Clone is the exception:
// rt.MapsCloneSeen lets the race detector see its read.
func Use(m, dst map[string]int) int {
	maps.Copy(dst, m)
	c := maps.Clone(m)
	if !maps.Equal(m, c) {
		return -1
	}
	maps.DeleteFunc(c, func(k string, v int) bool { return v < 0 })
	n := 0
	for k := range maps.Keys(m) {
		n += len(k)
	}
	maps.Insert(dst, maps.All(c))
	return n + len(slices.Collect(maps.Values(dst)))
}
