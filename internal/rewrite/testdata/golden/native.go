package native

import (
	"sync/atomic"
)

// Things the rewriter deliberately leaves alone.

type B bool

func f(ro <-chan int) {
	var ok B
	var v int
	if v, ok = <-ro; ok {
		_ = v
	}
	d := make(<-chan int)
	_ = d
	add := atomic.AddInt64
	var n int64
	add(&n, 1)
}
