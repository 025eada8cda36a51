package rt_test

import (
	"testing"

	"heddle.dev/internal/engine"
	"heddle.dev/rt"
)

// firstChoice always takes the first choice: a select's first ready case.
type firstChoice struct{}

func (firstChoice) Begin(int) bool           { return true }
func (firstChoice) End(*engine.Result)       {}
func (firstChoice) Choose(*engine.Point) int { return 0 }

// A select whose cases are all ready does not take one channel more than
// selectStreak (30) times in a row, whatever the strategy prefers: Go
// chooses uniformly among ready cases. The streak counts only selects with
// two ready cases or more, which the engine counts from the enabled set.
func TestSelectStreakIsBounded(t *testing.T) {
	const n = 200
	var took []int
	res := engine.Run(engine.Config{}, firstChoice{}, func() {
		a := rt.MakeChan[chan int](n)
		b := rt.MakeChan[chan int](n)
		for i := range n {
			rt.Send(a, i)
			rt.Send(b, i)
		}
		for range n {
			took = append(took, rt.Select(false, rt.RecvCase(a), rt.RecvCase(b)))
		}
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	longest, run, bs := 0, 0, 0
	for i, c := range took {
		if c == 1 {
			bs++
		}
		if i > 0 && c == took[i-1] {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	if bs == 0 || longest > 31 {
		t.Errorf("the select took case 1 %d times of %d, its longest streak of one case %d; want case 1 taken and streaks of at most 31", bs, n, longest)
	}

	// With one case ready only, there is no streak: the same channel is
	// taken every time.
	took = took[:0]
	res = engine.Run(engine.Config{}, firstChoice{}, func() {
		a := rt.MakeChan[chan int](n)
		never := rt.MakeChan[chan int](0)
		for i := range n {
			rt.Send(a, i)
		}
		for range n {
			took = append(took, rt.Select(false, rt.RecvCase(a), rt.RecvCase(never)))
		}
	})
	if res.Bug != nil {
		t.Fatalf("%s: %s", res.Bug.Kind, res.Bug.Message)
	}
	for i, c := range took {
		if c != 0 {
			t.Fatalf("select %d took case %d with only case 0 ready", i, c)
		}
	}
}
