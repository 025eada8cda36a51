// Package generics: generic types holding sync values, channels whose type
// is a type parameter, channels of type parameters.
package generics

import (
	"sync"
	"testing"
)

type SafeMap[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func (s *SafeMap[K, V]) Put(k K, v V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[K]V{}
	}
	s.m[k] = v
}

func (s *SafeMap[K, V]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func Pipe[C ~chan E, E any](c C, vs ...E) []E {
	go func() {
		for _, v := range vs {
			c <- v
		}
		close(c)
	}()
	var out []E
	for v := range c {
		out = append(out, v)
	}
	return out
}

func First[C ~<-chan int | ~chan int](c C) int {
	select {
	case v := <-c:
		return v
	}
}

func Merge[T any](cs ...chan T) chan T {
	out := make(chan T)
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func(c chan T) {
			defer wg.Done()
			for v := range c {
				out <- v
			}
		}(c)
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

type ints chan int

func TestGenericMutexHolder(t *testing.T) {
	var m SafeMap[string, int]
	var wg sync.WaitGroup
	for _, k := range []string{"a", "b"} {
		wg.Add(1)
		go func() { defer wg.Done(); m.Put(k, 1) }()
	}
	wg.Wait()
	if m.Len() != 2 {
		t.Fatal(m.Len())
	}
}

func TestTypeParamChannels(t *testing.T) {
	if got := Pipe(make(ints), 1, 2, 3); len(got) != 3 {
		t.Fatal(got)
	}
	if got := Pipe(make(chan string, 1), "a"); len(got) != 1 {
		t.Fatal(got)
	}
	c := make(ints, 1)
	c <- 5
	if First(c) != 5 {
		t.Fatal("First")
	}
}

func TestChannelsOfTypeParams(t *testing.T) {
	a, b := make(chan int), make(chan int)
	go func() { a <- 1; close(a) }()
	go func() { b <- 2; close(b) }()
	sum := 0
	for v := range Merge(a, b) {
		sum += v
	}
	if sum != 3 {
		t.Fatal(sum)
	}
}

// A type parameter constrained by sync.Locker, called and used as a
// method value.
func With[L sync.Locker](l L, f func()) {
	l.Lock()
	defer l.Unlock()
	f()
}

func Unlocker[L sync.Locker](l L) func() { return l.Unlock }

type door struct {
	sync.Mutex
	open bool
}

func TestLockerTypeParam(t *testing.T) {
	d := &door{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			With(d, func() { d.open = !d.open })
			d.Lock()
			Unlocker(d)()
		}()
	}
	wg.Wait()
	if d.open {
		t.Fatal("toggled an odd number of times")
	}
}
