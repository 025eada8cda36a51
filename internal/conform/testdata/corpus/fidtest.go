package prog

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Package testing and goroutine ends (fidelity audit): runtime.Goexit,
// t.FailNow in a goroutine, parallel subtests, cleanups, t.Run from
// goroutines.

// TestGoexitGoroutine: a goroutine ends with runtime.Goexit; its deferred
// calls run.
func TestGoexitGoroutine(t *testing.T) {
	c := make(chan string, 2)
	go func() {
		defer func() { c <- "deferred " + fmtRecover(recover()) }()
		c <- "before"
		runtime.Goexit()
		c <- "after"
	}()
	t.Errorf("%s, %s", <-c, <-c)
}

func fmtRecover(r any) string {
	if r == nil {
		return "nil"
	}
	return "panic"
}

// TestGoexitTest: the test goroutine calls runtime.Goexit: testing
// panics.
func TestGoexitTest(t *testing.T) {
	runtime.Goexit()
}

// TestFatalInGoroutine: t.Fatal in a goroutine ends that goroutine only;
// the test goes on.
func TestFatalInGoroutine(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer close(done)
		t.Fatal("from goroutine")
		t.Error("not reached")
	}()
	<-done
	t.Error("test goes on")
}

// TestParallelSubtests: two parallel subtests append to a log; after the
// group, the order is reported.
func TestParallelSubtests(t *testing.T) {
	var mu sync.Mutex
	var log []string
	t.Run("group", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				mu.Lock()
				log = append(log, name)
				mu.Unlock()
			})
		}
		mu.Lock()
		log = append(log, "body")
		mu.Unlock()
	})
	t.Errorf("log %s", strings.Join(log, " "))
}

// TestCleanupOrder: cleanups run last-in first-out, after the test and
// its subtests; a cleanup registered by a subtest runs when the subtest
// ends.
func TestCleanupOrder(t *testing.T) {
	var log []string
	var mu sync.Mutex
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	t.Run("wrap", func(t *testing.T) {
		t.Cleanup(func() { add("c1") })
		t.Cleanup(func() { add("c2") })
		t.Run("sub", func(t *testing.T) {
			t.Parallel()
			t.Cleanup(func() { add("sc") })
			add("sub")
		})
		add("body")
	})
	t.Errorf("log %s", strings.Join(log, " "))
}

// TestRunFromGoroutines: t.Run called from two goroutines at once; each
// subtest records its name.
func TestRunFromGoroutines(t *testing.T) {
	var mu sync.Mutex
	var names []string
	var wg sync.WaitGroup
	for _, n := range []string{"x", "y"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(n, func(t *testing.T) {
				mu.Lock()
				names = append(names, n)
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	first := names[0]
	sort.Strings(names)
	t.Errorf("first %s all %v", first, names)
}
