package chans

type C chan int
type E struct{}

func (E) Error() string { return "e" }

func f(n int64, in <-chan int, out chan<- int) (int, bool) {
	ch := make(chan int)
	buf := make(chan string, 3)
	var sized = make(chan int, n)
	c := make(C)
	errs := make(chan error, 1)
	anys := make(chan any, 1)
	ch2 := make(chan (<-chan int), 1)
	errs <- E{}
	anys <- 1.5
	anys <- E{}
	buf <- "x"
	c <- 1
	out <- <-in
	ch2 <- in
	x := <-ch
	<-buf
	v, ok := <-c
	v, ok = <-c
	if s, ok := <-buf; ok {
		_ = s
	}
	var w, ok2 = <-sized
	_ = w
	_ = ok2
	close(ch)
	close(out)
	total := len(ch) + cap(buf) + len(in) + cap(in) + len(out) + cap(out)
	var nilch chan int
	go func() { nilch <- 1 }()
	return x + v + total + <-<-ch2, ok
}
