package engine

import "testing"

// TestGrowTo checks that growTo keeps a slice's entries, doubles its
// capacity when it is full (from 256 at least, up to doubleUpTo), leaves a
// slice with room as it is, and that what is appended after it lands past
// the old entries with the rest zero.
func TestGrowTo(t *testing.T) {
	if RaceEnabled {
		t.Skip("under the race detector growTo leaves growing to append")
	}
	s := make([]Step, 0, 3)
	if got := growTo(s); cap(got) != 3 {
		t.Fatalf("growTo of a slice with room: cap %d, want 3", cap(got))
	}
	var grown []Step
	for i := 1; i <= 1000; i++ {
		before := cap(s)
		s = append(growTo(s), Step{N: i})
		if cap(s) != before {
			grown = append(grown, Step{N: cap(s)})
		}
	}
	want := []int{256, 512, 1024}
	if len(grown) != len(want) {
		t.Fatalf("capacities after growing: %v, want %v", grown, want)
	}
	for i, g := range grown {
		if g.N != want[i] {
			t.Fatalf("capacities after growing: %v, want %v", grown, want)
		}
	}
	for i, st := range s {
		if st.N != i+1 {
			t.Fatalf("entry %d is step %d after growing", i, st.N)
		}
	}
	if tail := s[len(s):cap(s)]; len(tail) > 0 && tail[len(tail)-1].N != 0 {
		t.Fatalf("the entries past the length are not zero")
	}
	big := make([]Choice, doubleUpTo)
	if got := growTo(big); cap(got) != doubleUpTo {
		t.Fatalf("growTo of a full slice of doubleUpTo entries: cap %d, want it left to append", cap(got))
	}
}
