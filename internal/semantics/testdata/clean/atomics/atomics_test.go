// Package atomics: sync/atomic functions and types.
package atomics

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

type config struct{ n int }

func TestAtomicFuncsAndTypes(t *testing.T) {
	var n int64
	var m atomic.Int32
	var p atomic.Pointer[config]
	var v atomic.Value
	var flag atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&n, 1)
			m.Add(1)
			p.Store(&config{n: 1})
			v.Store(1)
			flag.CompareAndSwap(false, true)
		}()
	}
	wg.Wait()
	if atomic.LoadInt64(&n) != 3 || m.Load() != 3 || p.Load().n != 1 || v.Load() != 1 || !flag.Load() {
		t.Fatal("atomics")
	}
}

func TestSpinHandoff(t *testing.T) {
	var turn atomic.Int32
	done := make(chan bool)
	go func() {
		for turn.Load() != 1 {
			runtime.Gosched()
		}
		turn.Store(2)
		done <- true
	}()
	turn.Store(1)
	for turn.Load() != 2 {
		runtime.Gosched()
	}
	<-done
}
