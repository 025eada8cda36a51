package prog

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Ninth fidelity audit, pipes and shared writers: io.Pipe and os.Pipe
// written by two goroutines in several writes, a bufio.Writer shared under
// a lock, and two plain receivers of one timer.

// TestIoPipeTwoWritersTwoWritesEach: each writer writes two pieces; each
// Write is whole (the pipe's write lock), the pieces of the two writers
// interleave in any order that keeps each writer's own.
func TestIoPipeTwoWritersTwoWritesEach(t *testing.T) {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	for _, p := range [][2]string{{"a", "b"}, {"c", "d"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Write([]byte(p[0]))
			w.Write([]byte(p[1]))
		}()
	}
	go func() { wg.Wait(); w.Close() }()
	got, _ := io.ReadAll(r)
	t.Errorf("%s", got)
}

// TestOsPipeCloseVsWrite: one goroutine writes "x" and closes the write
// end, another writes "y" at the same time: "y" is read, or its Write
// fails on the closed file.
func TestOsPipeCloseVsWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	var werr error
	go func() {
		defer wg.Done()
		w.Write([]byte("x"))
		w.Close()
	}()
	go func() {
		defer wg.Done()
		_, werr = w.Write([]byte("y"))
	}()
	got, _ := io.ReadAll(r)
	wg.Wait()
	s := []byte(got)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	t.Errorf("read %s, write err %v", s, werr != nil)
}

// TestBufioSharedUnderLock: two goroutines write through one bufio.Writer
// under a mutex; the last flushes: either order.
func TestBufioSharedUnderLock(t *testing.T) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			bw.WriteString(s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	bw.Flush()
	t.Errorf("%s", buf.String())
}

// TestBufioSharedFileUnderLock: the same over a file both goroutines
// flush into after their write.
func TestBufioSharedFileUnderLock(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "w")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 16)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			bw.WriteString(s)
			bw.Flush()
			mu.Unlock()
		}()
	}
	wg.Wait()
	got, _ := os.ReadFile(f.Name())
	t.Errorf("%s", got)
}

// TestTimerTwoPlainReceivers: two goroutines receive from one timer's
// channel; the timer fires once, wakes one of them, and a Reset then
// wakes the other.
func TestTimerTwoPlainReceivers(t *testing.T) {
	tm := time.NewTimer(time.Millisecond)
	got := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			<-tm.C
			got <- name
		}()
	}
	first := <-got
	tm.Reset(time.Millisecond)
	second := <-got
	t.Errorf("%s", strings.Join([]string{first, second}, " then "))
}
