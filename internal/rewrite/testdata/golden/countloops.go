package countloops

import (
	"runtime"
	"sync/atomic"
)

// Counted: TestGoschedSpin's loop, two trips, two polls each (bound 4).
func twoTrips(flag *atomic.Bool) bool {
	seen := flag.Load()
	for i := 0; i < 2 && !seen; i++ {
		runtime.Gosched()
		seen = flag.Load()
	}
	return seen
}

// Counted: a select with a default, three trips (bound 3).
func selects(ch chan int) (seen []int) {
	for i := 0; i < 3; i++ {
		select {
		case v := <-ch:
			seen = append(seen, v)
		default:
			seen = append(seen, -1)
		}
	}
	return seen
}

// Counted: a load in the condition runs trips+1 times, down to 0 with
// >= (bound 3*1 + 4*1 = 7).
func down(x *int32) int {
	n := 0
	for i := 3; atomic.LoadInt32(x) == 0 && i >= 1; i-- {
		runtime.Gosched()
		n++
	}
	return n
}

// Counted: the constant on the left, <=, a named constant.
const rounds = 2

func leftConst(flag *atomic.Bool) {
	for i := 1; rounds >= i; i += 1 {
		if flag.Load() {
			return
		}
	}
}

// Counted: range over an integer and over an array; the nested loop's
// polls are not the outer loop's, the function literal's neither.
func ranges(flag *atomic.Bool, arr *[4]int) {
	for range 3 {
		runtime.Gosched()
		for !flag.Load() {
			runtime.Gosched()
		}
		go func() { runtime.Gosched() }()
	}
	for i := range arr {
		if flag.Load() {
			arr[i] = 1
		}
	}
}

// Not counted: the counter is written in the body.
func written(flag *atomic.Bool) {
	for i := 0; i < 3; i++ {
		if !flag.Load() {
			i--
		}
	}
}

// Not counted: the counter's address is taken.
func addressed(flag *atomic.Bool, p **int) {
	for i := 0; i < 3 && !flag.Load(); i++ {
		*p = &i
	}
}

// Not counted: too many trips, a bound that is not a constant, a
// condition that does not bound the counter (||), <= the type's maximum.
func notCounted(flag *atomic.Bool, n int) {
	for i := 0; i < 100; i++ {
		runtime.Gosched()
	}
	for i := 0; i < n; i++ {
		runtime.Gosched()
	}
	for i := 0; i < 3 || !flag.Load(); i++ {
		runtime.Gosched()
	}
	for i := uint8(250); i <= 255; i++ {
		runtime.Gosched()
	}
}

// Not counted: a goto in the body may run its polls again.
func withGoto(flag *atomic.Bool) {
	for i := 0; i < 2; i++ {
	again:
		if !flag.Load() {
			goto again
		}
	}
}
