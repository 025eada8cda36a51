// Package testmain: a TestMain that sets up shared state with goroutines.
package testmain

import (
	"os"
	"sync"
	"testing"
)

var (
	pool    chan int
	setupWG sync.WaitGroup
)

func TestMain(m *testing.M) {
	pool = make(chan int, 2)
	setupWG.Add(1)
	go func() {
		defer setupWG.Done()
		pool <- 1
		pool <- 2
	}()
	setupWG.Wait()
	code := m.Run()
	os.Exit(code)
}

func TestUsesPool(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		v := <-pool
		pool <- v
	}()
	wg.Wait()
	if len(pool) != 2 {
		t.Fatal(len(pool))
	}
}
