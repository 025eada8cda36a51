package shadow

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Local names that shadow a package or a type where the rewriter must
// write a type.

type node struct{ next *node }

type shape interface{ Area() int }

type square struct{ side int }

func (s square) Area() int { return s.side * s.side }

// A parameter named like the package of a method value's signature.
func resetter(t *time.Timer, time int) func(time.Duration) bool {
	_ = time
	return t.Reset
}

// A local named like the package of a channel's element type.
func stringers(v fmt.Stringer) {
	ch := make(chan fmt.Stringer, 1)
	fmt := v
	ch <- fmt
	<-ch
}

type str string

func (s str) String() string { return string(s) }

func stringersConv() {
	ch := make(chan fmt.Stringer, 1)
	fmt := str("x")
	ch <- fmt
	<-ch
}

// A local named like a package-level type.
func shapes() {
	ch := make(chan shape, 1)
	shape := square{2}
	ch <- shape
	<-ch
	nodes := make(chan any, 1)
	node := &node{}
	nodes <- node
}

// A local named like a predeclared type.
type myErr struct{}

func (myErr) Error() string { return "e" }

func errs() {
	ch := make(chan error, 1)
	error := myErr{}
	ch <- error
}

// Locals named sync and context, with method values whose signatures
// mention the packages.
func locals(ctx context.Context, wg *sync.WaitGroup) {
	sync := 1
	context := ctx
	add := wg.Add
	add(sync)
	ch := make(chan interface{ Done() <-chan struct{} }, 1)
	ch <- context
	var once = new(syncOnce)
	_ = once
}

type syncOnce = sync.Once

// A local type, used where it is in scope.
func localType() {
	type item struct{ n int }
	ch := make(chan any, 1)
	ch <- item{1}
	<-ch
}

// A local named int, where a channel's size needs a conversion.
func sizes(n int64) {
	int := 2
	ch := make(chan bool, n)
	ch <- int > 1
}
