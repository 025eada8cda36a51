package pollloops

import (
	"runtime"
	"sync/atomic"
)

type S struct {
	closed atomic.Bool
	n      int32
}

// Marked: the condition reads only the polled value.
func flagLoop(flag *atomic.Bool) {
	for !flag.Load() {
		runtime.Gosched()
	}
}

// Marked: an atomic.Load function, an empty body.
func loadLoop(x *int32) {
	for atomic.LoadInt32(x) == 0 {
	}
}

// Marked: a select with a default; the case leaves.
func selectLoop(ch chan int) int {
	for {
		select {
		case v := <-ch:
			return v
		default:
		}
	}
}

// Marked: an if that leaves, a Gosched on the way back, a field of a
// pointer.
func ifLoop(s *S, want int32) {
	for {
		if s.closed.Load() || atomic.LoadInt32(&s.n) >= want {
			break
		}
		runtime.Gosched()
	}
}

// Marked, labeled: the exit's writes are the last iteration's.
func labeled(ch chan int, done *atomic.Bool) (n int) {
outer:
	for {
		select {
		case v := <-ch:
			n += v
			break outer
		default:
			if done.Load() {
				return -1
			}
		}
	}
	return n
}

// Not a poll loop: a counter (a counted loop, countloops.go).
func counter(flag *atomic.Bool) bool {
	seen := flag.Load()
	for i := 0; i < 2 && !seen; i++ {
		runtime.Gosched()
		seen = flag.Load()
	}
	return seen
}

// Not marked: a write on the way back.
func counts(flag *atomic.Bool) int {
	n := 0
	for !flag.Load() {
		n++
		runtime.Gosched()
	}
	return n
}

// Not marked: a case that does not leave.
func sums(ch chan int, done *atomic.Bool) int {
	sum := 0
	for !done.Load() {
		select {
		case v := <-ch:
			sum += v
		default:
		}
	}
	return sum
}

// Not marked: a break in a select clause ends the select, and the loop
// goes on after the clause's write.
func selectBreak(ch chan int, done *atomic.Bool) int {
	sum := 0
	for !done.Load() {
		select {
		case v := <-ch:
			sum += v
			break
		default:
		}
	}
	return sum
}

// Not marked: a call.
func calls(flag *atomic.Bool, f func()) {
	for !flag.Load() {
		f()
	}
}

// Not marked: a send case.
func sends(ch chan int, flag *atomic.Bool) {
	for {
		select {
		case ch <- 1:
			return
		default:
			if flag.Load() {
				return
			}
		}
	}
}
