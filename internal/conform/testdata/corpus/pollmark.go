package prog

import (
	"bytes"
	"fmt"
	"log"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// Poll loops the rewriter marks (internal/rewrite/pollloop.go): their
// iterations, all but the one that leaves, read and change nothing, so a
// goroutine heddle keeps from polling on while another can run leaves out
// no outcome, and an exhaustive search claims every schedule (plain
// "exhausted", not "up to the spin bound"). Each reports what it saw
// after the loop, which depends on where the loop ends among the other
// goroutine's steps.

// TestPollSelectDefault: a goroutine polls a channel with a select's
// default until the test goroutine closes it, then loads a counter the
// test goroutine stores before and after the close.
func TestPollSelectDefault(t *testing.T) {
	ch := make(chan int)
	var x atomic.Int32
	done := make(chan int32)
	go func() {
		for {
			select {
			case <-ch:
				done <- x.Load()
				return
			default:
			}
		}
	}()
	x.Store(1)
	close(ch)
	x.Store(2)
	t.Errorf("saw %d", <-done)
}

// TestPollLoadEmptyBody: a goroutine spins on atomic.LoadInt32 with an
// empty body until the test goroutine sets the flag, then loads y, which
// the test goroutine stores after the flag.
func TestPollLoadEmptyBody(t *testing.T) {
	var flag, y int32
	done := make(chan int32)
	go func() {
		for atomic.LoadInt32(&flag) == 0 {
		}
		done <- atomic.LoadInt32(&y)
	}()
	atomic.StoreInt32(&flag, 1)
	atomic.StoreInt32(&y, 1)
	t.Errorf("y %d", <-done)
}

// TestPollTwoFlags: a goroutine polls two flags in turn with a Gosched
// between, each set by another goroutine, and reports the first it saw
// set and whether the other was set then.
func TestPollTwoFlags(t *testing.T) {
	var a, b atomic.Bool
	done := make(chan string)
	go func() {
		for {
			if a.Load() {
				done <- fmt.Sprint("a, b ", b.Load())
				return
			}
			if b.Load() {
				done <- fmt.Sprint("b, a ", a.Load())
				return
			}
			runtime.Gosched()
		}
	}()
	go func() { b.Store(true) }()
	a.Store(true)
	t.Errorf("%s", <-done)
}

// pollmarkMap is a map of n entries, key i to value i.
func pollmarkMap(n int) map[int]int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i] = i
	}
	return m
}

// TestMapReadInSendVsWrite: a goroutine sends a map lookup (the value of
// a send statement) while the test goroutine writes the map: natively Go
// may catch the read inside the write ("concurrent map read and map
// write").
//
// conform: racy
func TestMapReadInSendVsWrite(t *testing.T) {
	m := pollmarkMap(16)
	done := make(chan int)
	go func() {
		done <- m[3]
	}()
	for i := 100; i < 108; i++ {
		m[i] = i
	}
	t.Errorf("read %d, len %d", <-done, len(m))
}

// TestLoggerPrintfMapVsWrite: a goroutine prints a map with a
// log.Logger's Printf while the test goroutine adds keys to it: the
// logger formats with fmt, which iterates the map in code heddle does not
// rewrite, where Go may catch the iteration across a write ("concurrent
// map iteration and map write"), or the writes land before, between or
// after the entries it prints.
//
// conform: racy
func TestLoggerPrintfMapVsWrite(t *testing.T) {
	m := pollmarkMap(8)
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	done := make(chan bool)
	go func() {
		l.Printf("%v", m)
		done <- true
	}()
	m[100] = 1
	m[101] = 1
	<-done
	t.Errorf("%s", strings.TrimSpace(buf.String()))
}
