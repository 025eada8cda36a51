// Package deps: concurrency inside a dependency module with no go line.
package deps

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"example.com/dep/group"
)

func TestErrgroupLike(t *testing.T) {
	g, ctx := group.WithContext(context.Background())
	boom := errors.New("boom")
	g.Go(func() error { return boom })
	g.Go(func() error { <-ctx.Done(); return nil })
	if err := g.Wait(); err != boom {
		t.Fatal(err)
	}
}

func TestMockClock(t *testing.T) {
	var c group.Clock
	done := make(chan bool)
	go func() {
		<-c.After()
		done <- true
	}()
	for c.Waiters() == 0 {
		runtime.Gosched()
	}
	c.Advance()
	<-done
}
