package explore

import "testing"

// TestSamePlace checks that a failure's place, compared between a replay
// and its recording, ignores package log's wall-clock stamps and the
// schedule file's newlines (a quoted "\n" is read back as a newline),
// pointers and the ports of IP addresses, and nothing else.
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
		// The ports of a real connection are the kernel's (yamux's
		// TestSendData_Small over TCP).
		{"session_test.go:600: err: write tcp [::1]:37051->[::1]:48502: write: connection reset by peer", "session_test.go:600: err: write tcp [::1]:32907->[::1]:55502: write: connection reset by peer", true},
		{"x.go:1: read tcp 127.0.0.1:33736->127.0.0.1:34987: i/o timeout", "x.go:1: read tcp 127.0.0.1:40000->127.0.0.1:40001: i/o timeout", true},
		{"x.go:1: read tcp 127.0.0.1:33736->127.0.0.1:34987: i/o timeout", "x.go:1: read tcp 127.0.0.2:33736->127.0.0.1:34987: i/o timeout", false},
		{"x.go:1: read tcp 127.0.0.1:1->127.0.0.1:2: EOF", "x.go:1: read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout", false},
		{"x.go:1: at 12:30", "x.go:1: at 12:31", false},
	} {
		if got := samePlace(c.got, c.recorded); got != c.same {
			t.Errorf("samePlace(%q, %q) = %v, want %v", c.got, c.recorded, got, c.same)
		}
	}
}
