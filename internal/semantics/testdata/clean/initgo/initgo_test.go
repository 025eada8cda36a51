// Package initgo: a goroutine started in init, which heddle does not
// control, serving requests from the test's controlled goroutines.
package initgo

import (
	"sync"
	"testing"
)

var requests = make(chan chan int)

func init() {
	go func() {
		n := 0
		for reply := range requests {
			n++
			reply <- n
		}
	}()
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
