// The programs below race on a map by design (the write and the
// iteration heddle orders are unsynchronized natively), which the race
// detector reports.

//go:build !race

package rt_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"heddle.dev/rt"
)

// TestRacySprintMap: fmt.Sprint of a map (on a racy line) iterates it
// entry by entry: another goroutine's write may overlap the iteration,
// which the runtime reports, or land before or after it, or between two
// entries, where the iteration may visit the new key: encoding/json,
// which sized its slice of entries by the length at the start, then
// panics, as natively. A struct's map is iterated too.
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
		if tc.name == "json" {
			found = found && strings.Contains(bugs["panic"], "index out of range [2] with length 2")
		}
		if !found || len(outcomes) != 2 {
			t.Errorf("%s: outcomes %q, bugs %v; want the entries before and after the write, and the runtime's report", tc.name, keys(outcomes), bugs)
		}
	}
}

// TestRacyReflectMapIter: reflect's MapIter.Next over a map another
// goroutine writes takes the runtime's iteration check at each step, and
// SetMapIndex is a write lasting through the call.
func TestRacyReflectMapIter(t *testing.T) {
	_, bugs := exhaustControlled(t, func() string {
		m := map[int]int{0: 0, 1: 1}
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			rt.ReflectSetMapIndex(reflect.ValueOf(m), reflect.ValueOf(5), reflect.ValueOf(5))
			rt.Send(done, true)
		})
		n := 0
		it := reflect.ValueOf(m).MapRange()
		for rt.ReflectMapIterNext(it) {
			n++
		}
		rt.Recv(done)
		return fmt.Sprint(n)
	})
	if !strings.Contains(bugs["misuse"], "concurrent map iteration and map write") {
		t.Errorf("bugs %v; want the runtime's report", bugs)
	}
}
