package strategy_test

import (
	"fmt"
	"sync/atomic"

	"heddle.dev/rt"
)

// The benchmark families of seed-002 §8, written against heddle.dev/rt as
// the rewriter emits them, with shared variables as atomics.

// readers(n): one writer writes x, n readers read it. 2^n classes.
func readers(n int) func() {
	return func() {
		var x int32
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x), 1) })
		for i := 0; i < n; i++ {
			rt.Go(func() { _ = atomic.LoadInt32(rt.AtomicR(&x)) })
		}
	}
}

// readersLogged is readers(n) whose readers log what they read: the
// terminal states of an outcome are the 2^n classes.
func readersLogged(n int) func(o *outcome) {
	return func(o *outcome) {
		var x int32
		rt.Go(func() { atomic.StoreInt32(rt.AtomicW(&x), 1) })
		for g := 1; g <= n; g++ {
			g := g
			rt.Go(func() { o.log(g, atomic.LoadInt32(rt.AtomicR(&x))) })
		}
	}
}

// lastzero(n): an array of n+1 zeros; goroutine 0 finds the highest index
// holding zero, scanning down from n; goroutine j (1..n) sets
// x[j] = x[j-1] + 1.
func lastzero(n int) func() {
	return func() {
		x := make([]int32, n+1)
		rt.Go(func() {
			i := n
			for i > 0 && atomic.LoadInt32(rt.AtomicR(&x[i])) != 0 {
				i--
			}
		})
		for j := 1; j <= n; j++ {
			j := j
			rt.Go(func() {
				v := atomic.LoadInt32(rt.AtomicR(&x[j-1]))
				atomic.StoreInt32(rt.AtomicW(&x[j]), v+1)
			})
		}
	}
}

// indexer(n): n goroutines each insert 4 messages into a hash table of
// size 128 with compare-and-swap and linear probing (Flanagan and
// Godefroid's indexer): message m of goroutine t is w = m*11 + t, hashed to
// (w*7) % 128. Cells collide only from n = 12 on.
func indexer(n int) func() {
	return func() {
		const size = 128
		table := make([]int32, size)
		for t := 0; t < n; t++ {
			t := t
			rt.Go(func() {
				for m := 1; m <= 4; m++ {
					w := int32(m*11 + t)
					h := (w * 7) % size
					for !atomic.CompareAndSwapInt32(rt.AtomicW(&table[h]), 0, w) {
						h = (h + 1) % size
					}
				}
			})
		}
	}
}

var _ = fmt.Sprint
