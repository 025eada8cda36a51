//go:build go1.21

package rangechan121

func f(ch chan int, funcs *[]func() int) {
	for v := range ch {
		*funcs = append(*funcs, func() int { return v })
	}
}
