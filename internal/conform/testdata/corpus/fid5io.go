package prog

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Fifth fidelity audit: file I/O through io.Writer and io.Reader, files
// kept by the standard library, two files on one path, os.Pipe, and
// t.Setenv against a goroutine.

// emit writes s to w: a method call on an io.Writer whose dynamic value
// is an *os.File.
func emit(w io.Writer, s string) { w.Write([]byte(s)) }

// TestFileWriterInterfaceTwoWriters: two goroutines write to one os.File
// through a function taking an io.Writer.
func TestFileWriterInterfaceTwoWriters(t *testing.T) {
	f, err := os.CreateTemp("", "fid5")
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
			emit(f, s)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(f.Name())
	t.Errorf("%s", b)
}

// TestFileBufioTwoWriters: two goroutines write to one os.File, each
// through a bufio.Writer of its own, which writes at Flush, in package
// bufio.
func TestFileBufioTwoWriters(t *testing.T) {
	f, err := os.CreateTemp("", "fid5")
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
			w := bufio.NewWriter(f)
			w.WriteString(s)
			w.Flush()
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(f.Name())
	t.Errorf("%s", b)
}

// TestFileTwoOpensOnePath: two goroutines append to one path, each
// through a file it opens.
func TestFileTwoOpensOnePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared")
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return
			}
			defer f.Close()
			fmt.Fprint(f, s)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(path)
	t.Errorf("%s", b)
}

// TestFileWriteVsReadFile: a goroutine writes a file while the test reads
// it by its name.
func TestFileWriteVsReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	done := make(chan bool)
	go func() {
		os.WriteFile(path, []byte("x"), 0o600)
		done <- true
	}()
	b, err := os.ReadFile(path)
	<-done
	t.Errorf("%q %v", b, err == nil)
}

// TestOsPipeTwoWriters: two goroutines write to one os.Pipe; the reader
// gets either write first.
func TestOsPipeTwoWriters(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	for _, s := range []string{"ab", "cd"} {
		s := s
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Write([]byte(s))
		}()
	}
	wg.Wait()
	w.Close()
	got, err := io.ReadAll(r)
	t.Errorf("%s %v", got, err)
}

// TestNetPipeReadPartial: a Read with a short buffer takes part of a
// write on a net.Pipe; the writer waits for the rest to be read.
func TestNetPipeReadPartial(t *testing.T) {
	a, b := net.Pipe()
	res := make(chan string, 1)
	go func() {
		n, err := a.Write([]byte("abcd"))
		res <- fmt.Sprint(n, err)
	}()
	buf := make([]byte, 2)
	n, _ := b.Read(buf)
	first := string(buf[:n])
	b.Close()
	t.Errorf("%s then %s", first, <-res)
}

// TestSetenvVsGoroutine: t.Setenv while a goroutine reads the variable.
func TestSetenvVsGoroutine(t *testing.T) {
	const key = "HEDDLE_CONFORM_FID5_ENV"
	os.Unsetenv(key)
	done := make(chan string)
	go func() {
		done <- os.Getenv(key)
	}()
	t.Setenv(key, "x")
	t.Errorf("%q", <-done)
}
