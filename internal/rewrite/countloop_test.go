package rewrite

import (
	"go/token"
	"regexp"
	"testing"
)

// TestCountedLoopMarking: which loops the rewriter marks as counted
// (countloop.go): a trip count bounded by a small constant, the counter
// written nowhere else. A marked loop's polls become rt.CountR,
// rt.CountGosched and rt.CountSelect with the loop's bound of polls.
func TestCountedLoopMarking(t *testing.T) {
	cases := []struct {
		name, body string
		bound      string // the bound of the marked polls, "" if none is marked
	}{
		{"twoTrips", `for i := 0; i < 2 && !f.Load(); i++ { runtime.Gosched() }`, "5"}, // 2 + 3
		{"select", `for i := 0; i < 3; i++ { select { case <-ch: n++; default: n-- } }`, "3"},
		{"leftConst", `for i := 0; 4 > i; i++ { runtime.Gosched() }`, "4"},
		{"leq", `for i := 1; i <= 4; i++ { runtime.Gosched() }`, "4"},
		{"down", `for i := 3; i > 0; i-- { runtime.Gosched() }`, "3"},
		{"downGeq", `for i := 3; i >= 0; i-- { runtime.Gosched() }`, "4"},
		{"plusOne", `for i := 0; i < 5; i += 1 { runtime.Gosched() }`, "5"},
		{"named", `const k = 6; for i := 0; i < k; i++ { runtime.Gosched() }`, "6"},
		{"arrayLen", `var a [3]int; for i := 0; i < len(a); i++ { a[i] = int(x) }; for i := 0; i < 2; i++ { runtime.Gosched() }`, "2"},
		{"rangeInt", `for range 7 { runtime.Gosched() }`, "7"},
		{"rangeArray", `var a [2]int32; for i := range a { a[i] = atomic.LoadInt32(&x) }`, "2"},
		{"readInBody", `for i := 0; i < 3; i++ { n += i; runtime.Gosched() }`, "3"},
		{"sixteen", `for i := 0; i < 16; i++ { runtime.Gosched() }`, "16"},
		{"nestedPoll", `for i := 0; i < 2; i++ { for !f.Load() { runtime.Gosched() } }`, ""},
		{"nestedCounted", `for i := 0; i < 2; i++ { for j := 0; j < 2; j++ { runtime.Gosched() } }`, "2"},
		{"seventeen", `for i := 0; i < 17; i++ { runtime.Gosched() }`, ""},
		{"tooManyPolls", `for i := 0; i < 16; i++ { runtime.Gosched(); runtime.Gosched(); runtime.Gosched(); runtime.Gosched(); runtime.Gosched() }`, ""},
		{"variableBound", `for i := 0; i < n; i++ { runtime.Gosched() }`, ""},
		{"or", `for i := 0; i < 3 || !f.Load(); i++ { runtime.Gosched() }`, ""},
		{"wrongWay", `for i := 0; i > -3; i++ { runtime.Gosched() }`, ""},
		{"assigned", `for i := 0; i < 3; i++ { i = 0; runtime.Gosched() }`, ""},
		{"decremented", `for i := 0; i < 3; i++ { i--; runtime.Gosched() }`, ""},
		{"addressed", `for i := 0; i < 3; i++ { p := &i; _ = p; runtime.Gosched() }`, ""},
		{"inClosure", `for i := 0; i < 3; i++ { func() { i = 0 }(); runtime.Gosched() }`, ""},
		{"step2", `for i := 0; i < 3; i += 2 { runtime.Gosched() }`, ""},
		{"uint8Max", `for i := uint8(250); i <= 255; i++ { runtime.Gosched() }`, ""},
		{"uintZero", `for i := uint(3); i >= 0; i-- { runtime.Gosched() }`, ""},
		{"float", `for i := 0.0; i < 3; i++ { runtime.Gosched() }`, ""},
		{"goto", `for i := 0; i < 2; i++ { L: if !f.Load() { goto L } }`, ""},
		{"noPolls", `for i := 0; i < 2; i++ { n++ }`, ""},
	}
	bounds := regexp.MustCompile(`heddlert\.Count(?:R|Gosched|Select)\((\d+)`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `package p

import (
	"runtime"
	"sync/atomic"
)

var _ = runtime.Gosched
var _ = atomic.LoadInt32

func loop(f *atomic.Bool, ch chan int, n int) int {
	var x int32
	` + c.body + `
	return n + int(x)
}
`
			name, out := rewriteSrc(t, src)
			got := string(out)
			m := bounds.FindAllStringSubmatch(got, -1)
			switch {
			case c.bound == "" && len(m) > 0:
				t.Errorf("marked with bound %s, want unmarked:\n%s", m[0][1], got)
			case c.bound != "" && len(m) == 0:
				t.Errorf("unmarked, want bound %s:\n%s", c.bound, got)
			}
			for _, b := range m {
				if b[1] != c.bound {
					t.Errorf("bound %s, want %s:\n%s", b[1], c.bound, got)
				}
			}
			if _, _, _, err := checkFile(token.NewFileSet(), name, out); err != nil {
				t.Errorf("rewritten code does not type-check: %v\n%s", err, got)
			}
		})
	}
}
