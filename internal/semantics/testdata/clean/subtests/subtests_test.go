// Package subtests: subtests with Parallel and Cleanup.
package subtests

import (
	"sync"
	"testing"
)

func TestSubtestsCleanup(t *testing.T) {
	var order []string
	var mu sync.Mutex
	add := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	t.Run("a", func(t *testing.T) {
		t.Cleanup(func() { add("cleanup a") })
		done := make(chan bool)
		go func() { add("a"); done <- true }()
		<-done
	})
	add("after a")
	if len(order) != 3 || order[1] != "cleanup a" {
		t.Fatalf("order %v", order)
	}
}

func TestParallelSubtestsMeet(t *testing.T) {
	ch := make(chan int)
	t.Run("group", func(t *testing.T) {
		t.Run("send", func(t *testing.T) {
			t.Parallel()
			ch <- 1
		})
		t.Run("recv", func(t *testing.T) {
			t.Parallel()
			<-ch
		})
	})
}
