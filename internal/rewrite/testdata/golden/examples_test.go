package examples

import (
	"fmt"
	"sync"
)

// An example go test runs: rt.Example explores it first.
func ExampleCount() {
	var mu sync.Mutex
	mu.Lock()
	fmt.Println(1)
	mu.Unlock()
	// Output: 1
}

func Example_unordered() {
	fmt.Println("a")
	fmt.Println("b")
	// Unordered output:
	// b
	// a
}

// No output comment: compiled, not run, not rewritten.
func Example_compiled() {
	fmt.Println("x")
}
