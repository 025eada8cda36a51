package prog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// Tenth fidelity audit, I/O: io.Pipe's CloseWithError racing a write and
// a read, a bufio.Reader over a net.Pipe with two writers, a bufio.Scanner
// over an io.Pipe closed with an error, and an exec.CommandContext
// cancelled while it runs.

// TestIoPipeCloseWithErrorVsWrite: a writer's Write races another
// goroutine's CloseWithError; the reader sees the data or the error.
func TestIoPipeCloseWithErrorVsWrite(t *testing.T) {
	r, w := io.Pipe()
	wres := make(chan string, 1)
	go func() {
		_, err := w.Write([]byte("x"))
		wres <- errStr10(err)
	}()
	go w.CloseWithError(errors.New("stop"))
	buf := make([]byte, 4)
	n, err := r.Read(buf)
	got := fmt.Sprintf("read %q %v", buf[:n], err)
	if n > 0 {
		_, err = r.Read(buf)
		got += fmt.Sprintf(", then %v", err)
	} else {
		r.Close()
	}
	t.Errorf("%s; write %s", got, <-wres)
}

// TestIoPipeReaderCloseWithErrorVsRead: the reader side closed with an
// error by one goroutine while another reads: the read returns the
// writer's data or io.ErrClosedPipe; the writer sees the error.
func TestIoPipeReaderCloseWithErrorVsRead(t *testing.T) {
	r, w := io.Pipe()
	wres := make(chan string, 1)
	go func() {
		_, err := w.Write([]byte("y"))
		wres <- errStr10(err)
	}()
	rres := make(chan string, 1)
	go func() {
		buf := make([]byte, 4)
		n, err := r.Read(buf)
		rres <- fmt.Sprintf("%q %v", buf[:n], err)
	}()
	r.CloseWithError(errors.New("reader gone"))
	t.Errorf("read %s; write %s", <-rres, <-wres)
}

// TestBufioOverNetPipeTwoWriters: two goroutines write lines into one end
// of a net.Pipe, one of them two lines in one Write; a bufio.Reader reads
// the first two lines from the other end.
func TestBufioOverNetPipeTwoWriters(t *testing.T) {
	a, b := net.Pipe()
	go a.Write([]byte("a1\na2\n"))
	go a.Write([]byte("c\n"))
	br := bufio.NewReader(b)
	l1, _ := br.ReadString('\n')
	l2, _ := br.ReadString('\n')
	l3, _ := br.ReadString('\n')
	a.Close()
	b.Close()
	t.Errorf("%s %s %s", strings.TrimSpace(l1), strings.TrimSpace(l2), strings.TrimSpace(l3))
}

// TestScannerOverIoPipeCloseWithError: a goroutine writes two lines and
// closes with an error, another writes a line; a Scanner reads until the
// error.
func TestScannerOverIoPipeCloseWithError(t *testing.T) {
	r, w := io.Pipe()
	done := make(chan bool)
	go func() {
		fmt.Fprintln(w, "b")
		done <- true
	}()
	go func() {
		fmt.Fprintln(w, "a1")
		fmt.Fprintln(w, "a2")
		<-done
		w.CloseWithError(errors.New("end"))
	}()
	sc := bufio.NewScanner(r)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	t.Errorf("%s, err %v", strings.Join(lines, " "), sc.Err())
}

// TestExecCommandContextCancel: a command started under a context a
// goroutine cancels: Run returns nil, the context's error (not started)
// or the kill.
func TestExecCommandContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	err := exec.CommandContext(ctx, "true").Run()
	t.Errorf("run %v", err)
}

// TestExecTwoCommandsOutputOrder: two goroutines run `echo` and report
// their output through one channel.
func TestExecTwoCommandsOutputOrder(t *testing.T) {
	res := make(chan string, 2)
	for _, s := range []string{"x", "y"} {
		go func() {
			out, err := exec.Command("echo", s).Output()
			res <- fmt.Sprintf("%s%v", strings.TrimSpace(string(out)), err != nil)
		}()
	}
	got := []string{<-res, <-res}
	first := got[0]
	sort.Strings(got)
	t.Errorf("first %s of %s", first, strings.Join(got, " "))
}

func errStr10(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
