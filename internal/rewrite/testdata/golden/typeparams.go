package typeparams

// Channels whose type is a type parameter: every operation goes through
// the parameter's core type.

type Chans interface{ ~chan int }

func ops[C ~chan int](c C) int {
	d := make(C, 1)
	d <- 1
	c <- 1
	v := <-c
	x, ok := <-c
	_ = len(c) + cap(c)
	close(d)
	for y := range d {
		v += y
	}
	select {
	case c <- 2:
	case z := <-c:
		v += z
	default:
	}
	if ok {
		return v + x
	}
	return v
}

func named[C Chans](c C) { c <- 1 }

func elem[C ~chan E, E any](c C, e E) E {
	c <- e
	return <-c
}

func recvOnly[C ~<-chan int | ~chan int](c C) int { return <-c }

// A channel of channels of a type parameter.
func chans[T any](cc chan chan T, v T) {
	c := make(chan T, 1)
	cc <- c
	(<-cc) <- v
}
