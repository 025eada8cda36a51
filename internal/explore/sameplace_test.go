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
		// Pointers printed by the failure differ from process to process.
		{"inmem_test.go:36: bad: [0x2246e3600180 0x2246e36001e0]", "inmem_test.go:36: bad: [0x2c58f3d0e3c0 0x2c58f3d0e420]", true},
		{"x.go:1: %p 0xc000012345", "x.go:1: %p 0xc000098765", true},
		{"inmem_test.go:36: bad: [0x2246e3600180]", "inmem_test.go:36: bad: [0x2246e3600180 0x2246e36001e0]", false},
		{"x.go:1: flags 0x1f", "x.go:1: flags 0x2f", false},
	} {
		if got := samePlace(c.got, c.recorded); got != c.same {
			t.Errorf("samePlace(%q, %q) = %v, want %v", c.got, c.recorded, got, c.same)
		}
	}
}
