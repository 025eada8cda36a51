package explore

import "testing"

// TestSamePlace checks that a failure's place, compared between a replay
// and its recording, ignores package log's wall-clock stamps and the
// schedule file's newlines (a quoted "\n" is read back as a newline), and
// nothing else.
func TestSamePlace(t *testing.T) {
	for _, c := range []struct {
		got, recorded string
		same          bool
	}{
		{"option_test.go:40: got: 2026/11/25 17:05:21 start", "option_test.go:40: got: 2026/11/25 17:05:04 start", true},
		{"x.go:1: 2026/11/25 17:05:21.123456 tick", "x.go:1: 2026/11/25 17:05:04.000001 tick", true},
		{"x.go:1: 2026/11/25 17:05:21 start", "x.go:1: 2026/11/25 17:05:21 stop", false},
		{"x.go:1: got 3", "x.go:1: got 4", false},
		{"x.go:1: got 3", "x.go:2: got 3", false},
		// The schedule file read a quoted "\n" back as a newline.
		{"x.go:1: in chain: \"a:\\n#1: b\"\n\tTest: T", "x.go:1: in chain: \"a:\n#1: b\"\n\tTest: T", true},
		{"x.go:1: in chain: \"a:\\n#1: b\"", "x.go:1: in chain: \"a:\\n#1: c\"", false},
	} {
		if got := samePlace(c.got, c.recorded); got != c.same {
			t.Errorf("samePlace(%q, %q) = %v, want %v", c.got, c.recorded, got, c.same)
		}
	}
}
