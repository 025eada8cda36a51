package namedok

type B bool

// A receive's ok of a named boolean type, in statement lists and in
// if/switch/for headers.
func f(ro <-chan int) int {
	var ok B
	var v int
	v, ok = <-ro
	if v, ok = <-ro; ok {
		_ = v
	}
	switch v, ok = <-ro; ok {
	case true:
	}
	n := 0
	for v, ok = <-ro; ok; v, ok = <-ro {
		n += v
	}
	return n
}
