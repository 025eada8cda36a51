// Package atomics: sync/atomic functions and types. (A handoff by spinning
// on an atomic is left out: it costs about 0.1 s a run, issue 11.)
package atomics

import (
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
