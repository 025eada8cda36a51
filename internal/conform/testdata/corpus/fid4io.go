package prog

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fourth fidelity audit, second part: process state the standard library
// guards with its own locks (the environment, an os.File's offset),
// t.Context in parallel subtests, and finalizers.

// TestEnvSetVsGet: a goroutine sets an environment variable while the
// test reads it; syscall's lock orders them either way.
func TestEnvSetVsGet(t *testing.T) {
	const key = "HEDDLE_CONFORM_FID4_ENV"
	os.Unsetenv(key)
	done := make(chan bool)
	go func() {
		os.Setenv(key, "x")
		done <- true
	}()
	v, ok := os.LookupEnv(key)
	<-done
	os.Unsetenv(key)
	t.Errorf("%q %v", v, ok)
}

// TestFileTwoWriters: two goroutines write to one os.File; the writes
// land in either order.
func TestFileTwoWriters(t *testing.T) {
	f, err := os.CreateTemp("", "fid4")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.WriteString(s)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(f.Name())
	t.Errorf("%s", b)
}

// TestFileFprintTwoWriters: the same through fmt.Fprint (the io.Writer
// interface).
func TestFileFprintTwoWriters(t *testing.T) {
	f, err := os.CreateTemp("", "fid4")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprint(f, s)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(f.Name())
	t.Errorf("%s", b)
}

// TestParallelSubtestContexts: a parallel subtest's t.Context is
// cancelled when it ends, before its parent's cleanup runs, and the
// parent's is not yet.
func TestParallelSubtestContexts(t *testing.T) {
	var mu sync.Mutex
	var ctxs []context.Context
	var log []string
	t.Run("group", func(t *testing.T) {
		parent := t.Context()
		t.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range ctxs {
				log = append(log, fmt.Sprint(c.Err()))
			}
			log = append(log, fmt.Sprint("parent ", parent.Err()))
		})
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				mu.Lock()
				ctxs = append(ctxs, t.Context())
				mu.Unlock()
			})
		}
	})
	t.Errorf("%s", strings.Join(log, ", "))
}

// TestTContextDoneInGoroutine: a goroutine waits on t.Context; it is
// released when the test ends, before its cleanup.
func TestTContextDoneInGoroutine(t *testing.T) {
	var seen atomic.Bool
	done := make(chan bool)
	t.Run("sub", func(t *testing.T) {
		ctx := t.Context()
		go func() {
			<-ctx.Done()
			seen.Store(true)
			done <- true
		}()
		t.Cleanup(func() { <-done })
	})
	t.Errorf("seen %v", seen.Load())
}

type finObj struct{ b [64]byte }

// TestFinalizerVsTest: a finalizer (run on the runtime's finalizer
// goroutine) sets a flag the test polls.
func TestFinalizerVsTest(t *testing.T) {
	var flag atomic.Int32
	p := new(finObj)
	runtime.SetFinalizer(p, func(*finObj) { flag.Store(1) })
	p = nil
	runtime.GC()
	first := flag.Load()
	for i := 0; i < 100 && flag.Load() == 0; i++ {
		time.Sleep(time.Millisecond)
	}
	t.Errorf("first %d then %d", first, flag.Load())
}

// TestDeferAtomicAdd: a goroutine's deferred atomic Add runs when it
// returns, after its Store; the test reads both.
func TestDeferAtomicAdd(t *testing.T) {
	var n, m atomic.Int32
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		defer n.Add(1)
		m.Store(1)
	}()
	a := n.Load()
	b := m.Load()
	<-done
	t.Errorf("n %d m %d", a, b)
}

// TestDeferFileClose: a goroutine writes to a file and closes it in a
// deferred call; the test's write lands before or after, or fails once
// the file is closed.
func TestDeferFileClose(t *testing.T) {
	f, err := os.CreateTemp("", "fid4")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		defer f.Close()
		f.WriteString("g")
	}()
	_, err = f.WriteString("t")
	<-done
	b, _ := os.ReadFile(f.Name())
	t.Errorf("%s %v", b, err != nil)
}

// TestChdirVsGetwd: a goroutine changes the working directory while the
// test reads it.
func TestChdirVsGetwd(t *testing.T) {
	old, _ := os.Getwd()
	dir := os.TempDir()
	done := make(chan bool)
	go func() {
		os.Chdir(dir)
		done <- true
	}()
	wd, _ := os.Getwd()
	<-done
	os.Chdir(old)
	t.Errorf("moved %v", wd == dir)
}
