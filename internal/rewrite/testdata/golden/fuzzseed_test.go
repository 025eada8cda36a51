package fuzzseed

import (
	"sync"
	"testing"
)

// A fuzz function literal: its body runs in rt.FuzzEntry, with its named
// arguments passed on.
func FuzzLiteral(f *testing.F) {
	f.Add([]byte("a"), 1)
	f.Fuzz(func(t *testing.T, data []byte, _ int) {
		var mu sync.Mutex
		mu.Lock()
		if len(data) == 0 {
			t.Fatal("empty")
		}
		mu.Unlock()
	})
}

// An unnamed T.
func FuzzUnnamed(f *testing.F) {
	f.Fuzz(func(_ *testing.T, s string) {
		_ = s
	})
}

func check(t *testing.T, n int) {
	if n < 0 {
		t.Error("negative")
	}
}

// A fuzz function given by name: rt.Fuzz wraps it.
func FuzzNamed(f *testing.F) {
	f.Fuzz(check)
}
