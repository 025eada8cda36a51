package native

import (
	"sync/atomic"
)

// Things the rewriter deliberately leaves alone.

func f(ro <-chan int) {
	d := make(<-chan int)
	_ = d
	add := atomic.AddInt64
	var n int64
	add(&n, 1)
}
