// Package misc: runtime, map iteration and math/rand.
package misc

import (
	"math/rand"
	randv2 "math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

func TestGoschedAndNumGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	done := make(chan bool)
	go func() {
		runtime.Gosched()
		done <- true
	}()
	runtime.Gosched()
	<-done
	if runtime.NumGoroutine() < before {
		t.Fatal("fewer goroutines than before")
	}
}

func TestGoexit(t *testing.T) {
	var wg sync.WaitGroup
	ran := false
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { ran = true }()
		runtime.Goexit()
	}()
	wg.Wait()
	if !ran {
		t.Fatal("deferred call did not run")
	}
}

func TestMapIterationAndRand(t *testing.T) {
	m := map[int]int{1: 1, 2: 2, 3: 3}
	sum := 0
	for k, v := range m {
		sum += k + v
		delete(m, k)
	}
	if sum != 12 || len(m) != 0 {
		t.Fatal(sum, m)
	}
	if n := rand.Intn(10); n < 0 || n >= 10 {
		t.Fatal(n)
	}
	if n := randv2.IntN(10); n < 0 || n >= 10 {
		t.Fatal(n)
	}
	if n := randv2.N(10); n < 0 || n >= 10 {
		t.Fatal(n)
	}
}
