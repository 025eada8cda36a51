package engine

import "testing"

// TestChoicePosReadsKeptIndex checks choicePos and gallop against a
// linear scan, on choices that carry their goroutine's index (gi) and no
// goroutine: the searches must not load a G for its Index (a cache line
// per look, with a thousand waiters on one mutex), and they panicked on
// these choices when they did.
func TestChoicePosReadsKeptIndex(t *testing.T) {
	// Goroutines 1, 3 (two choices: a select's cases), 4, 8, 9, 13, 20.
	var cs []Choice
	for _, idx := range []int{1, 3, 3, 4, 8, 9, 13, 20} {
		cs = append(cs, Choice{Case: -1, gi: int32(idx + 1)})
	}
	linear := func(from, idx int) int {
		for i := from; i < len(cs); i++ {
			if int(cs[i].gi)-1 >= idx {
				return i
			}
		}
		return len(cs)
	}
	for idx := 0; idx <= 22; idx++ {
		if got, want := choicePos(cs, idx), linear(0, idx); got != want {
			t.Errorf("choicePos(%d) = %d, want %d", idx, got, want)
		}
		for from := 0; from <= len(cs); from++ {
			if linear(0, idx) < from {
				continue // gallop's callers look only forward
			}
			if got, _ := gallop(cs, from, idx); got != linear(from, idx) {
				t.Errorf("gallop(from %d, %d) = %d, want %d", from, idx, got, linear(from, idx))
			}
		}
	}
}
