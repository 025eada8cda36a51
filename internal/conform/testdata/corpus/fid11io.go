package prog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Eleventh fidelity audit, pipes and buffers: read deadlines set in the
// past by a goroutine while another writes to an os.Pipe or a net.Pipe
// the test reads, an os.Pipe's read end closed against a write, a
// deadline cleared again, and a strings.Builder and a bytes.Buffer shared
// by goroutines (under a lock, and racily).

func deadlineOrValue(n int, buf []byte, err error) string {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "deadline"
	case err != nil:
		return "error " + err.Error()
	}
	return "read " + string(buf[:n])
}

// TestOsPipeReadDeadlineVsWrite: the test reads an os.Pipe; one goroutine
// writes to it and another sets a read deadline in the past.
func TestOsPipeReadDeadlineVsWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	go w.Write([]byte("x"))
	go r.SetReadDeadline(time.Unix(1, 0))
	buf := make([]byte, 4)
	n, err := r.Read(buf)
	t.Errorf("%s", deadlineOrValue(n, buf, err))
}

// TestOsPipeDeadlineClearedVsRead: a goroutine clears a past read deadline
// while another writes and the test reads once.
func TestOsPipeDeadlineClearedVsRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	r.SetReadDeadline(time.Unix(1, 0))
	cleared := make(chan bool)
	go func() {
		r.SetReadDeadline(time.Time{})
		w.Write([]byte("x"))
		close(cleared)
	}()
	buf := make([]byte, 4)
	n, err := r.Read(buf)
	<-cleared
	t.Errorf("%s", deadlineOrValue(n, buf, err))
}

// TestOsPipeReadEndClosedVsWrite: a goroutine closes the read end while
// the test writes once: the write succeeds or fails with a broken pipe.
func TestOsPipeReadEndClosedVsWrite(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go r.Close()
	_, err = w.Write([]byte("x"))
	t.Errorf("write error %v", err != nil)
}

// TestNetPipeReadDeadlineVsWrite: the test reads a net.Pipe; one goroutine
// writes to it and another sets a read deadline in the past.
func TestNetPipeReadDeadlineVsWrite(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	wrote := make(chan error, 1)
	go func() {
		_, err := b.Write([]byte("x"))
		wrote <- err
	}()
	go a.SetReadDeadline(time.Unix(1, 0))
	buf := make([]byte, 4)
	n, err := a.Read(buf)
	got := deadlineOrValue(n, buf, err)
	if err != nil {
		a.SetReadDeadline(time.Time{})
		a.Read(buf)
	}
	t.Errorf("%s, write error %v", got, <-wrote)
}

// TestIoPipeTwoReadersOneWrite: two goroutines read an io.Pipe one write
// of two bytes feeds with one-byte buffers; the writer's close ends the
// other.
func TestIoPipeTwoReadersOneWrite(t *testing.T) {
	r, w := io.Pipe()
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			buf := make([]byte, 1)
			n, err := r.Read(buf)
			res <- fmt.Sprint(name, string(buf[:n]), err == nil)
		}()
	}
	w.Write([]byte("xy"))
	w.Close()
	got := []string{<-res, <-res}
	if got[0] > got[1] {
		got[0], got[1] = got[1], got[0]
	}
	t.Errorf("%s %s", got[0], got[1])
}

// TestStringsBuilderUnderLock: two goroutines append to a strings.Builder
// under a lock; the test reads it once in between.
func TestStringsBuilderUnderLock(t *testing.T) {
	var mu sync.Mutex
	var sb strings.Builder
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sb.WriteString(s)
			mu.Unlock()
		}()
	}
	mu.Lock()
	mid := sb.String()
	mu.Unlock()
	wg.Wait()
	t.Errorf("mid %q, end %q", mid, sb.String())
}

// TestBytesBufferRacyWrites: two goroutines write to one bytes.Buffer
// without a lock: a data race inside the Buffer, which can lose a write.
//
// conform: racy
func TestBytesBufferRacyWrites(t *testing.T) {
	var buf bytes.Buffer
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf.WriteString(s)
		}()
	}
	wg.Wait()
	t.Errorf("len %d", buf.Len())
}
