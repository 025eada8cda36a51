package selects

import "time"

type B bool

func f(a chan int, b <-chan string, c chan<- int, done chan struct{}) int {
	var x int
	var ok B
	var arr [2]int
	for {
		select {
		case v := <-a:
			if v > 10 {
				break
			}
			x += v
		case s, ok := <-b:
			_ = s
			_ = ok
		case c <- x:
		case arr[0], ok = <-a:
			_ = ok
		case <-time.After(time.Second):
			return -1
		case <-done:
			return x
		}
	}
}

func g(a chan int) int {
	select {
	case v := <-a:
		return v
	default:
		return 0
	}
}

func h(a chan int) int {
outer:
	for {
		select {
		case v := <-a:
			if v == 0 {
				break outer
			}
			if v == 1 {
				continue outer
			}
		}
	}
	return 0
}

func block() int {
	select {}
}

func labelled(a chan int) {
L:
	select {
	case <-a:
		break L
	}
}
