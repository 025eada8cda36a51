package gostmt

import "fmt"

type S struct{ n int }

func (s S) Val(x int)    { fmt.Println(s.n + x) }
func (s *S) Ptr(x int)   { s.n += x }
func variadic(xs ...int) {}
func two() (int, string) { return 1, "a" }
func pair(int, string)   {}
func generic[T any](v T) {}

type I interface{ M(int) }

func g(i I, f func(int), ch chan int, xs []int, s S, p *S, sh uint) {
	go fmt.Println("constant", 1, nil)
	go f(len(xs))
	go s.Val(2)
	go p.Ptr(s.n)
	go i.M(3)
	go variadic(xs...)
	go variadic(1, 2, 3)
	go pair(two())
	go generic(s)
	go generic[int](4)
	go close(ch)
	go println(s.n)
	go func() {
		fmt.Println("literal")
	}()
	go func(a int) {
		fmt.Println(a)
	}(s.n)
	go f(1 << sh)
	go S.Val(s, 5)
}

type holder struct{ fn func() }

func noArgs() {}

// names: a go statement's goroutine is named as natively (gonames.go):
// go of a func() call names its target, the rest are wrappers numbered
// with the wrapped defers.
func names(fn func(), h holder, s *S) {
	defer s.Ptr(1)
	defer noArgs()
	go noArgs()
	go fn()
	go h.fn()
	go s.Ptr(2)
	func() {
		go s.Ptr(3)
		go func() {}()
	}()
}
