package prog

import (
	"context"
	"testing"
)

// TestContextCancelVsSend: a select on a context's Done racing a value.
func TestContextCancelVsSend(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := make(chan int, 1)
	go func() { c <- 1 }()
	go cancel()
	select {
	case <-ctx.Done():
		t.Errorf("canceled: %v", ctx.Err())
	case v := <-c:
		t.Errorf("value %d", v)
	}
}

// TestContextErrPoll: ctx.Err polled while another goroutine cancels.
func TestContextErrPoll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() {
		cancel()
		done <- true
	}()
	err := ctx.Err()
	<-done
	t.Errorf("err %v", err)
}

// TestContextWorker: a worker loops until canceled, counting the items it
// took from a buffered channel.
func TestContextWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	items := make(chan int, 2)
	items <- 1
	items <- 2
	count := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-ctx.Done():
				count <- n
				return
			case <-items:
				n++
			}
		}
	}()
	cancel()
	t.Errorf("worker took %d", <-count)
}
