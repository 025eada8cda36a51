package chans

import (
	"fmt"
	"testing"
)

type pipeline struct {
	stages [2]chan int
	byName map[string]chan string
	funcs  chan func() int
}

// Channels inside arrays, maps and structs, channels of functions, and
// values evaluated on entry to a select.
func TestChannelsInContainers(t *testing.T) {
	p := pipeline{byName: map[string]chan string{"a": make(chan string, 1)}, funcs: make(chan func() int, 1)}
	for i := range p.stages {
		p.stages[i] = make(chan int, 1)
	}
	go func() {
		p.stages[0] <- 1
		p.byName["a"] <- "x"
		p.funcs <- func() int { return 2 }
	}()
	v := <-p.stages[0]
	s := <-p.byName["a"]
	f := <-p.funcs
	calls := 0
	next := func() int { calls++; return v + f() }
	select {
	case p.stages[1] <- next():
	default:
		t.Fatal("buffered send not ready")
	}
	if calls != 1 || <-p.stages[1] != 3 || s != "x" {
		t.Fatal(calls, s)
	}
	ccc := make(chan chan chan int, 1)
	cc := make(chan chan int, 1)
	c := make(chan int, 1)
	ccc <- cc
	cc <- c
	c <- 9
	if <-<-<-ccc != 9 {
		t.Fatal("chan chan chan")
	}
}

// An example runs outside any exploration: the rewritten calls act
// natively.
func Example_pingPong() {
	ch := make(chan string)
	go func() { ch <- "pong" }()
	fmt.Println(<-ch)
	// Output: pong
}

func BenchmarkSend(b *testing.B) {
	ch := make(chan int, 1)
	for i := 0; i < b.N; i++ {
		ch <- i
		<-ch
	}
}

func FuzzChan(f *testing.F) {
	f.Add(3)
	f.Fuzz(func(t *testing.T, n int) {
		ch := make(chan int, 1)
		go func() { ch <- n }()
		if <-ch != n {
			t.Fatal("lost value")
		}
	})
}
