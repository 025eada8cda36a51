// Package initgo: a goroutine started in init, which heddle does not
// control, serving requests from the test's controlled goroutines.
package initgo

import (
	"context"
	"sync"
	"testing"
)

var (
	requests = make(chan chan int)
	cancels  = make(chan context.CancelFunc)
)

func init() {
	go func() {
		n := 0
		for reply := range requests {
			n++
			reply <- n
		}
	}()
	go func() {
		for cancel := range cancels {
			cancel()
		}
	}()
}

// A context cancelled by a goroutine heddle does not control.
func TestCancelledByInitGoroutine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancels <- cancel
	<-ctx.Done()
	if ctx.Err() != context.Canceled {
		t.Fatalf("Err() = %v after the cancel", ctx.Err())
	}
}

func TestServedByInitGoroutine(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply := make(chan int)
			requests <- reply
			<-reply
		}()
	}
	wg.Wait()
}
