package engine

import "testing"

// TestKeepChoicesAppends checks dropSpinners' block copy, by elements for
// short blocks and by appendChoices for long ones, against a plain append,
// onto a buffer that already holds choices and at every block length
// around the switch.
func TestKeepChoicesAppends(t *testing.T) {
	gs := make([]*G, 12)
	src := make([]Choice, len(gs))
	for i := range gs {
		gs[i] = &G{Index: i}
		src[i] = Choice{G: gs[i], Case: i - 1, Early: 0}
	}
	for n := 0; n <= len(src); n++ {
		head := []Choice{{G: gs[0], Case: 7}}
		got := keepChoices(append([]Choice(nil), head...), src[:n])
		want := append(append([]Choice(nil), head...), src[:n]...)
		if len(got) != len(want) {
			t.Fatalf("block of %d: %d choices, want %d", n, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("block of %d: choice %d is %+v, want %+v", n, i, got[i], want[i])
			}
		}
	}
}
