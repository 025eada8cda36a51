// Package iters: range-over-func iterators and iter.Pull, with channels
// and goroutines behind them.
package iters

import (
	"iter"
	"sync"
	"testing"
)

// Gen yields values a goroutine produces on a channel.
func Gen(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		ch := make(chan int)
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(ch)
			for i := 0; i < n; i++ {
				select {
				case ch <- i:
				case <-done:
					return
				}
			}
		}()
		defer wg.Wait()
		defer close(done)
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	}
}

func Pairs(m map[string]int) iter.Seq2[string, int] {
	var mu sync.Mutex
	return func(yield func(string, int) bool) {
		mu.Lock()
		defer mu.Unlock()
		for k, v := range m {
			if !yield(k, v) {
				return
			}
		}
	}
}

func TestRangeOverFunc(t *testing.T) {
	sum := 0
	for v := range Gen(4) {
		sum += v
	}
	if sum != 6 {
		t.Fatal(sum)
	}
	for v := range Gen(10) {
		if v == 2 {
			break
		}
	}
	n := 0
	for _, v := range Pairs(map[string]int{"a": 1, "b": 2}) {
		n += v
	}
	if n != 3 {
		t.Fatal(n)
	}
}

func TestPull(t *testing.T) {
	next, stop := iter.Pull(Gen(3))
	defer stop()
	a, ok1 := next()
	b, ok2 := next()
	if !ok1 || !ok2 || a != 0 || b != 1 {
		t.Fatal(a, b, ok1, ok2)
	}
}
