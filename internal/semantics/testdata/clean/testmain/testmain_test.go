// Package testmain: a TestMain that sets up shared state with goroutines.
package testmain

import (
	"flag"
	"os"
	"sync"
	"testing"
)

var (
	pool    chan int
	setupWG sync.WaitGroup
)

var verbose = flag.Bool("semantics.verbose", false, "")

func TestMain(m *testing.M) {
	flag.Parse()
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

func TestFlagSetParse(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	n := fs.Int("n", 0, "")
	done := make(chan error)
	go func() { done <- fs.Parse([]string{"-n", "3"}) }()
	if err := <-done; err != nil || *n != 3 || *verbose {
		t.Fatal(err, *n)
	}
}
