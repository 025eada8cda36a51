package prog

import (
	"bytes"
	"expvar"
	"iter"
	"log"
	"log/slog"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"
)

// Fourth fidelity audit: log/slog and expvar (state guarded by the
// standard library's own locks and atomics), iter.Pull coroutines
// (stopped from another goroutine, panics, interleaving with a
// goroutine), runtime.AddCleanup and weak pointers, sync.Map's Clear,
// parallel subtests' cleanups, and misuse of t.Parallel that testing
// detects.

// slogText is a TextHandler without the time, so lines compare.
func slogText(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// TestSlogTwoGoroutines: two goroutines log through one slog.Logger; its
// handler's lock (in package slog, not rewritten) orders the lines
// either way.
func TestSlogTwoGoroutines(t *testing.T) {
	var buf bytes.Buffer
	l := slogText(&buf)
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Info(s)
		}()
	}
	wg.Wait()
	t.Errorf("%q", buf.String())
}

// TestSlogDerivedLoggers: loggers derived with With share their parent
// handler's lock and writer; the two lines come in either order.
func TestSlogDerivedLoggers(t *testing.T) {
	var buf bytes.Buffer
	l := slogText(&buf)
	la := l.With("k", "a")
	lb := l.WithGroup("g").With("k", "b")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); la.Warn("x") }()
	go func() { defer wg.Done(); lb.Error("y") }()
	wg.Wait()
	t.Errorf("%q", buf.String())
}

// TestExpvarIntCheckThenAct: two goroutines check an expvar.Int and add
// to it if it was 0; expvar's atomics let both see 0.
func TestExpvarIntCheckThenAct(t *testing.T) {
	v := new(expvar.Int)
	var mu sync.Mutex
	var won []string
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v.Value() == 0 {
				v.Add(1)
				mu.Lock()
				won = append(won, s)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(won)
	t.Errorf("won %v value %d", won, v.Value())
}

// TestExpvarMapGetVsAdd: a goroutine adds to an expvar.Map while the test
// reads the key; the read sees it or not.
func TestExpvarMapGetVsAdd(t *testing.T) {
	m := new(expvar.Map).Init()
	done := make(chan bool)
	go func() {
		m.Add("k", 1)
		done <- true
	}()
	got := m.Get("k")
	<-done
	t.Errorf("got %v now %s", got, m.String())
}

// TestExpvarStringSetVsValue: an expvar.String set by a goroutine and
// read by the test.
func TestExpvarStringSetVsValue(t *testing.T) {
	var s expvar.String
	done := make(chan bool)
	go func() {
		s.Set("x")
		done <- true
	}()
	got := s.Value()
	<-done
	t.Errorf("got %q", got)
}

// TestIterPullStopFromGoroutine: an iter.Pull iterator stopped by another
// goroutine between two calls of next; the iterator's deferred call runs
// in stop, and next then returns false.
func TestIterPullStopFromGoroutine(t *testing.T) {
	var log []string
	next, stop := iter.Pull(func(yield func(int) bool) {
		defer func() { log = append(log, "seq done") }()
		for i := 0; ; i++ {
			if !yield(i) {
				log = append(log, "yield false")
				return
			}
		}
	})
	v, ok := next()
	done := make(chan bool)
	go func() {
		stop()
		done <- true
	}()
	<-done
	w, ok2 := next()
	t.Errorf("%d %v %d %v %v", v, ok, w, ok2, log)
}

// TestIterPullPanic: the iterator's panic comes out of next in the
// caller's goroutine, and the recovered value is reported.
func TestIterPullPanic(t *testing.T) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		yield(1)
		panic("seq boom")
	})
	defer stop()
	a, _ := next()
	var r any
	func() {
		defer func() { r = recover() }()
		next()
	}()
	b, ok := next()
	t.Errorf("%d %v %d %v", a, r, b, ok)
}

// TestIterPullInterleave: the iterator appends to a log under a lock
// around its yields while a goroutine appends once; the goroutine's entry
// can land anywhere.
func TestIterPullInterleave(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	done := make(chan bool)
	go func() {
		add("g")
		done <- true
	}()
	next, stop := iter.Pull(func(yield func(int) bool) {
		add("s1")
		if !yield(1) {
			return
		}
		add("s2")
		yield(2)
	})
	next()
	next()
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestIterPullStopWhileGoroutineWaits: a goroutine blocked in the
// iterator's body (on a channel the test sends to after stop) keeps
// stop from returning until it is released.
func TestIterPullStopUnblocks(t *testing.T) {
	c := make(chan int, 1)
	var log []string
	var mu sync.Mutex
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	next, stop := iter.Pull(func(yield func(int) bool) {
		for yield(<-c) {
			add("yielded")
		}
		add("stopped")
	})
	c <- 1
	go func() { c <- 2 }()
	v, _ := next()
	stop()
	add("after stop")
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("%d %s", v, strings.Join(log, " "))
}

type cleanupObj struct{ b [64]byte }

// TestAddCleanupOtherGoroutine: a cleanup runs on the runtime's cleanup
// goroutine after a collection; the test waits for it.
func TestAddCleanupOtherGoroutine(t *testing.T) {
	ch := make(chan int, 1)
	p := new(cleanupObj)
	runtime.AddCleanup(p, func(v int) { ch <- v }, 7)
	p = nil
	for i := 0; i < 10; i++ {
		runtime.GC()
		select {
		case v := <-ch:
			t.Errorf("cleanup %d", v)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Errorf("no cleanup")
}

// TestWeakPointerCleared: a weak pointer's Value is nil once its object
// was collected, and the same pointer before.
func TestWeakPointerCleared(t *testing.T) {
	p := new(cleanupObj)
	w := weak.Make(p)
	before := w.Value() == p
	runtime.KeepAlive(p)
	p = nil
	runtime.GC()
	runtime.GC()
	t.Errorf("before %v after %v", before, w.Value() == nil)
}

// TestSyncMapClearVsLoad: a goroutine clears a sync.Map while the test
// loads a key.
func TestSyncMapClearVsLoad(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	done := make(chan bool)
	go func() {
		m.Clear()
		done <- true
	}()
	_, ok := m.Load("a")
	<-done
	_, ok2 := m.Load("a")
	t.Errorf("%v %v", ok, ok2)
}

// TestParallelSubtestCleanups: each parallel subtest's cleanup runs when
// it ends, and the group's cleanup after both.
func TestParallelSubtestCleanups(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	t.Run("group", func(t *testing.T) {
		t.Cleanup(func() { add("group") })
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				t.Cleanup(func() { add("c" + name) })
				add(name)
			})
		}
	})
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("log %s", strings.Join(log, " "))
}

// TestParallelTwice: t.Parallel called twice panics.
func TestParallelTwice(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		t.Parallel()
		t.Parallel()
	})
}

// TestSetenvThenParallel: t.Parallel after t.Setenv panics.
func TestSetenvThenParallel(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		t.Setenv("HEDDLE_CONFORM_FID4", "1")
		t.Parallel()
	})
}

// TestRepanicInGoroutine: a goroutine recovers a panic and panics again
// with the same value.
func TestRepanicInGoroutine(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer func() {
			r := recover()
			panic(r)
		}()
		panic("boom")
	}()
	<-done
}

// TestWaitGroupGoPanics: a function started by WaitGroup.Go panics; the
// process crashes with its value.
func TestWaitGroupGoPanics(t *testing.T) {
	var wg sync.WaitGroup
	wg.Go(func() { panic("in Go") })
	wg.Wait()
}

// TestLoggerSetPrefixVsPrint: a goroutine changes a log.Logger's prefix
// while the test logs (the prefix is an atomic of package log).
func TestLoggerSetPrefixVsPrint(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "old ", 0)
	done := make(chan bool)
	go func() {
		l.SetPrefix("new ")
		done <- true
	}()
	l.Print("x")
	<-done
	t.Errorf("%q", buf.String())
}

// TestSlogSetDefaultVsInfo: a goroutine installs a default slog logger
// while the test logs with slog.Info, which goes to the old or the new
// default logger.
func TestSlogSetDefaultVsInfo(t *testing.T) {
	prev := slog.Default()
	defer slog.SetDefault(prev)
	var a, b bytes.Buffer
	slog.SetDefault(slogText(&a))
	done := make(chan bool)
	go func() {
		slog.SetDefault(slogText(&b))
		done <- true
	}()
	slog.Info("x")
	<-done
	t.Errorf("old %q new %q", a.String(), b.String())
}
