// Package fam holds the DPOR benchmark families of seed-002 §8 (readers,
// lastzero, indexer), as ordinary Go, for measuring heddle -parallel.
package fam

import "sync/atomic"

// Readers: one writer writes x, n readers read it.
func Readers(n int) {
	var x int32
	go func() { atomic.StoreInt32(&x, 1) }()
	for i := 0; i < n; i++ {
		go func() { _ = atomic.LoadInt32(&x) }()
	}
}

// Lastzero: goroutine 0 finds the highest index of x holding zero; goroutine
// j sets x[j] = x[j-1] + 1.
func Lastzero(n int) {
	x := make([]int32, n+1)
	go func() {
		i := n
		for i > 0 && atomic.LoadInt32(&x[i]) != 0 {
			i--
		}
	}()
	for j := 1; j <= n; j++ {
		go func(j int) {
			v := atomic.LoadInt32(&x[j-1])
			atomic.StoreInt32(&x[j], v+1)
		}(j)
	}
}

// Indexer: n goroutines insert 4 messages each into a table of 128 cells
// with compare-and-swap and linear probing.
func Indexer(n int) {
	const size = 128
	table := make([]int32, size)
	for t := 0; t < n; t++ {
		go func(t int) {
			for m := 1; m <= 4; m++ {
				w := int32(m*11 + t)
				h := (w * 7) % size
				for !atomic.CompareAndSwapInt32(&table[h], 0, w) {
					h = (h + 1) % size
				}
			}
		}(t)
	}
}
