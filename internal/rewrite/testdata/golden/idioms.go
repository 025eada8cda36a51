package idioms

import (
	"context"
	"sync"
	"time"
)

type handler func() int

type pair [2]int

func work[T any](v T, out chan<- T) { out <- v }

// Idioms of real code around rewritten constructs.
func idioms(ctx context.Context, in chan int, out chan int) int {
	hs := make(chan handler, 1)
	hs <- func() int { return 1 }
	ps := make(chan pair, 1)
	ps <- pair{1, 2}
	ps <- [2]int{3, 4}
	go work(<-in, out)
	go work[int](1, out)
	out <- <-in
	switch v := any(<-in).(type) {
	case int:
		_ = v
	}
	if v, ok := <-in; ok {
		_ = v
	}
	_ = <-in
	m := map[string]int{}
	m["a"] = <-in
	var mu sync.Mutex
	defer mu.Unlock()
	mu.Lock()
	for {
		select {
		case <-ctx.Done():
			return 0
		case v := <-in:
			if v > 0 {
				break
			}
			return v
		case <-time.After(time.Second):
			continue
		}
	}
}
