package rt_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// callersOf returns the function names of the frames rt.Callers returns to
// its caller.
func callersOf() []string {
	pcs := make([]uintptr, 64)
	n := rt.Callers(1, pcs)
	var names []string
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		names = append(names, f.Function)
		if !more {
			return names
		}
	}
}

// A goroutine of a run sees its own frames, from its function down to
// runtime.goexit, without heddle's (engine.(*Exec).goroutine, the pool's
// worker loop); rt.Caller agrees.
func TestCallersLeaveHeddleOut(t *testing.T) {
	var names []string
	var file string
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		done := rt.MakeChan[chan bool](0)
		rt.Go(func() {
			names = callersOf()
			_, file, _, _ = rt.Caller(0)
			rt.Send(done, true)
		})
		rt.Recv(done)
	})
	if res.Bug != nil {
		t.Fatalf("bug: %v", res.Bug.Message)
	}
	if len(names) != 3 || !strings.HasSuffix(names[0], ".callersOf") || !strings.Contains(names[1], "TestCallersLeaveHeddleOut.func") || names[2] != "runtime.goexit" {
		t.Errorf("frames = %q, want callersOf, the goroutine's function, runtime.goexit", names)
	}
	if !strings.HasSuffix(file, "testenv_test.go") {
		t.Errorf("rt.Caller(0) file = %q, want testenv_test.go", file)
	}
}

// AllocsPerRun counts the measured function's allocations only: its
// locks and atomics take no scheduling point (engine/quiet.go), and the
// run says how many did so.
func TestAllocsPerRunLeavesHeddleOut(t *testing.T) {
	var mu sync.Mutex
	var n int64
	var allocs float64
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		allocs = rt.AllocsPerRun(100, func() {
			rt.MutexLock(&mu)
			atomic.AddInt64(rt.AtomicW(&n), 1)
			rt.MutexUnlock(&mu)
		})
	})
	if res.Bug != nil {
		t.Fatalf("bug: %v", res.Bug.Message)
	}
	if allocs != 0 {
		t.Errorf("AllocsPerRun = %v, want 0", allocs)
	}
	if res.Quiet != 300 {
		t.Errorf("Result.Quiet = %d, want 300 (the measured calls' operations)", res.Quiet)
	}
	if n != 101 {
		t.Errorf("n = %d, want 101", n)
	}
}

// A lock first used in a region at the address of a lock of the same run
// that was collected: heddle replaces the state it kept for the old one,
// and that allocation is heddle's, not the program's.
func TestAllocsAtAReusedAddress(t *testing.T) {
	type counter struct {
		mu sync.Mutex
		n  int64
	}
	use := func(c *counter) {
		rt.MutexLock(&c.mu)
		atomic.AddInt64(rt.AtomicW(&c.n), 1)
		rt.MutexUnlock(&c.mu)
	}
	var counts []uint64
	reused := 0
	s := strategy.NewRandom(1)
	s.Begin(1)
	res := engine.Run(engine.Config{}, s, func() {
		seen := map[uintptr]bool{}
		for i := 0; i < 50; i++ {
			c := new(counter)
			if seen[uintptr(unsafe.Pointer(c))] {
				reused++
			}
			seen[uintptr(unsafe.Pointer(c))] = true
			var m runtime.MemStats
			rt.ReadMemStats(&m)
			before := m.Mallocs
			use(c)
			rt.ReadMemStats(&m)
			counts = append(counts, m.Mallocs-before)
			c = nil
			runtime.GC()
			time.Sleep(10 * time.Millisecond) // the runtime's own work after a collection allocates
		}
	})
	if res.Bug != nil {
		t.Fatalf("bug: %v", res.Bug.Message)
	}
	if reused == 0 {
		t.Skip("no address was reused")
	}
	// Mallocs counts the whole process: the runtime's own work (after a
	// collection, a timer) may allocate once in a while during a measure.
	// heddle's shadow state at a reused address allocated at every reuse.
	var bad []string
	for i, n := range counts {
		if n != 0 {
			bad = append(bad, fmt.Sprintf("measure %d: %d", i, n))
		}
	}
	if len(bad) > 2 {
		t.Errorf("%d of %d measures allocated (addresses reused %d times), want 0 but for the runtime's own once in a while: %s", len(bad), len(counts), reused, strings.Join(bad, ", "))
	}
}
