package native

// Things the rewriter deliberately leaves alone. (A function of
// sync/atomic used as a value was one: ifacesync.go.)

func f(ro <-chan int) {
	d := make(<-chan int)
	_ = d
}
