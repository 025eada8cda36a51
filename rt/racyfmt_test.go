package rt_test

import (
	"strings"
	"testing"

	"heddle.dev/rt"
)

// TestRacySprintMap: fmt.Sprint of a map (on a racy line) iterates it
// entry by entry: another goroutine's write may overlap the iteration,
// which the runtime reports, or land before or after it; a struct's map
// is iterated too.
func TestRacySprintMap(t *testing.T) {
	type box struct{ m map[int]int }
	for _, tc := range []struct {
		name  string
		print func(m map[int]int) string
	}{
		{"map", func(m map[int]int) string { return rt.RacySprint(m) }},
		{"struct", func(m map[int]int) string { return rt.RacySprintf("%v", &box{m}) }},
		{"json", func(m map[int]int) string { b, _ := rt.RacyJSONMarshal(m); return string(b) }},
	} {
		outcomes, bugs := exhaustControlled(t, func() string {
			m := map[int]int{0: 0, 1: 1}
			done := rt.MakeChan[chan bool](0)
			rt.Go(func() {
				rt.MapWriteBegin(m)
				m[5] = 5
				rt.MapWriteEnd(m)
				rt.Send(done, true)
			})
			s := tc.print(m)
			rt.Recv(done)
			return s
		})
		found := false
		for _, b := range bugs {
			found = found || strings.Contains(b, "concurrent map iteration and map write")
		}
		if !found || len(outcomes) != 2 {
			t.Errorf("%s: outcomes %q, bugs %v; want the entries before and after the write, and the runtime's report", tc.name, keys(outcomes), bugs)
		}
	}
}
