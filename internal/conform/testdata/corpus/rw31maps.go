package prog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fmt's printing and encoding/json's Marshal of a map another goroutine
// writes: they iterate the map in standard-library code (fmt sorts the
// entries after a MapRange over them), where Go's map may detect the
// overlap ("concurrent map iteration and map write"), or the write lands
// between two entries; and reflect's map methods, likewise.

// rw31Map is a map of n entries, key i to value i.
func rw31Map(n int) map[int]int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i] = i
	}
	return m
}

// TestFmtSprintMapVsWrite: fmt.Sprint of a map the test goroutine adds a
// key to.
//
// conform: racy
func TestFmtSprintMapVsWrite(t *testing.T) {
	m := rw31Map(16)
	done := make(chan string)
	go func() {
		done <- fmt.Sprint(m)
	}()
	m[1000] = 1
	s := <-done
	t.Errorf("entries %d", strings.Count(s, ":"))
}

// TestFmtStructMapVsWrite: fmt.Sprintf("%v") of a struct holding a map
// the test goroutine adds a key to.
//
// conform: racy
func TestFmtStructMapVsWrite(t *testing.T) {
	type box struct {
		name string
		m    map[int]int
	}
	b := &box{name: "b", m: rw31Map(16)}
	done := make(chan string)
	go func() {
		done <- fmt.Sprintf("%v", b)
	}()
	b.m[1000] = 1
	s := <-done
	t.Errorf("entries %d", strings.Count(s, ":"))
}

// TestJSONMarshalMapVsWrite: json.Marshal of a map the test goroutine
// adds a key to.
//
// conform: racy
func TestJSONMarshalMapVsWrite(t *testing.T) {
	m := rw31Map(16)
	done := make(chan string)
	go func() {
		b, err := json.Marshal(m)
		if err != nil {
			done <- err.Error()
			return
		}
		done <- string(b)
	}()
	m[1000] = 1
	s := <-done
	t.Errorf("entries %d", strings.Count(s, ":"))
}

// TestReflectMapRangeVsWrite: a loop over reflect's MapRange of a map the
// test goroutine adds a key to.
//
// conform: racy
func TestReflectMapRangeVsWrite(t *testing.T) {
	m := rw31Map(16)
	done := make(chan int)
	go func() {
		n := 0
		it := reflect.ValueOf(m).MapRange()
		for it.Next() {
			n++
		}
		done <- n
	}()
	m[1000] = 1
	t.Errorf("entries %d", <-done)
}

// TestReflectSetMapIndexVsRead: reflect's SetMapIndex adds a key to a map
// another goroutine reads.
//
// conform: racy
func TestReflectSetMapIndexVsRead(t *testing.T) {
	m := rw31Map(16)
	done := make(chan int)
	go func() {
		done <- m[3]
	}()
	reflect.ValueOf(m).SetMapIndex(reflect.ValueOf(1000), reflect.ValueOf(1))
	t.Errorf("read %d, len %d", <-done, len(m))
}
