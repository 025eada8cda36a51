// Package imports: aliased and dot imports, and local names that shadow
// package and type names.
package imports

import (
	ctxpkg "context"
	"fmt"
	. "sync"
	s "sync"
	"testing"
	. "time"
	tm "time"
)

type item struct{ v int }

type Shape interface{ Area() int }

type sq int

func (q sq) Area() int { return int(q * q) }

func TestAliasedAndDot(t *testing.T) {
	var mu Mutex
	var wg s.WaitGroup
	once := new(Once)
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
			once.Do(func() {})
		}()
	}
	wg.Wait()
	tm.Sleep(tm.Millisecond)
	Sleep(Millisecond)
	<-After(Millisecond)
	timer := NewTimer(Hour)
	timer.Stop()
	ctx, cancel := ctxpkg.WithTimeout(ctxpkg.Background(), tm.Millisecond)
	defer cancel()
	<-ctx.Done()
	if n != 2 {
		t.Fatal(n)
	}
}

func shadowParams(time int, sync string, context bool, t *tm.Timer) func(tm.Duration) bool {
	_, _, _ = time, sync, context
	return t.Reset
}

func TestShadowedNames(t *testing.T) {
	reset := shadowParams(1, "", false, tm.NewTimer(tm.Hour))
	reset(tm.Hour)
	ch := make(chan fmt.Stringer, 1)
	fmt := str("x")
	go func() { ch <- fmt }()
	if (<-ch).String() != "x" {
		t.Fatal("stringer")
	}
	shapes := make(chan Shape, 1)
	Shape := sq(3)
	shapes <- Shape
	if (<-shapes).Area() != 9 {
		t.Fatal("area")
	}
	items := make(chan any, 1)
	item := &item{v: 1}
	items <- item
	<-items
	errc := make(chan error, 1)
	error := myErr{}
	go func() { errc <- error }()
	<-errc
	var wg s.WaitGroup
	len := 1
	add := wg.Add
	add(len)
	go wg.Done()
	wg.Wait()
}

type str string

func (x str) String() string { return string(x) }

type myErr struct{}

func (myErr) Error() string { return "e" }
