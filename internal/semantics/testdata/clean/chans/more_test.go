package chans

import (
	"sync"
	"testing"
)

// A receive whose ok has a named boolean type, in an if header, that
// blocks until another goroutine sends.
func TestNamedOKInHeader(t *testing.T) {
	c := make(chan int)
	go func() { c <- 3; close(c) }()
	var ok B
	var v int
	if v, ok = <-c; !ok || v != 3 {
		t.Fatal(v, ok)
	}
	n := 0
	for v, ok = <-c; ok; v, ok = <-c {
		n++
	}
	if n != 0 {
		t.Fatal(n)
	}
}

type worker struct {
	out chan int
}

func (w *worker) run(n int) { w.out <- n }

// go statements on builtins, method values and function values.
func TestGoForms(t *testing.T) {
	done := make(chan struct{})
	go close(done)
	<-done
	w := &worker{out: make(chan int)}
	go w.run(1)
	f := w.run
	go f(2)
	if a, b := <-w.out, <-w.out; a+b != 3 {
		t.Fatal(a, b)
	}
	var mu sync.Mutex
	mu.Lock()
	unlocked := make(chan bool)
	go func() { mu.Unlock(); unlocked <- true }()
	<-unlocked
	mu.Lock()
	mu.Unlock()
}

// The forms of range over a channel, with labels.
func TestRangeForms(t *testing.T) {
	ch := make(chan int, 4)
	for i := 0; i < 4; i++ {
		ch <- i
	}
	close(ch)
	var i int
	sum := 0
outer:
	for i = range ch {
		switch {
		case i == 1:
			continue outer
		case i == 3:
			break outer
		}
		sum += i
	}
	if sum != 2 || i != 3 {
		t.Fatal(sum, i)
	}
	ch2 := make(chan bool, 2)
	ch2 <- true
	ch2 <- false
	close(ch2)
	n := 0
	for range ch2 {
		n++
	}
	if n != 2 {
		t.Fatal(n)
	}
}
