package prog

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"expvar"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"unique"
)

// Fifth fidelity audit: registries and settings the standard library
// keeps under locks of its own, which heddle does not rewrite (mime's
// types, http.DefaultServeMux, expvar's names, database/sql's drivers,
// the GC percent), a standard-library function walking a map another
// goroutine writes, unique.Make from two goroutines, a semaphore channel
// limiting workers (errgroup's SetLimit), and panics recovered in the
// deferred calls of two goroutines.

// fid5Seq numbers the names the registries below are given, one per run:
// they panic on a name registered twice, and they outlive a run. Only
// the test goroutine uses it.
var fid5Seq int

func fid5Name(prefix string) string {
	fid5Seq++
	return fmt.Sprintf("%s%d", prefix, fid5Seq)
}

// TestMimeAddVsLookup: a goroutine registers a MIME type while the test
// looks it up; package mime's lock orders them either way.
func TestMimeAddVsLookup(t *testing.T) {
	ext := fid5Name(".fidfive")
	done := make(chan bool)
	go func() {
		mime.AddExtensionType(ext, "application/x-fid5")
		done <- true
	}()
	got := mime.TypeByExtension(ext)
	<-done
	t.Errorf("%q", got)
}

// TestServeMuxHandleVsHandler: a goroutine registers a handler on
// http.DefaultServeMux while the test looks the path up; the mux's lock
// orders them either way.
func TestServeMuxHandleVsHandler(t *testing.T) {
	p := fid5Name("/fid5/")
	done := make(chan bool)
	go func() {
		http.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
		done <- true
	}()
	_, pat := http.DefaultServeMux.Handler(&http.Request{Method: "GET", Host: "h", URL: &url.URL{Path: p}})
	<-done
	t.Errorf("found %v", pat == p)
}

// TestExpvarPublishVsGet: a goroutine publishes an expvar while the test
// gets it by name; expvar's lock orders them either way.
func TestExpvarPublishVsGet(t *testing.T) {
	name := fid5Name("fid5var")
	done := make(chan bool)
	go func() {
		expvar.NewInt(name)
		done <- true
	}()
	v := expvar.Get(name)
	<-done
	t.Errorf("found %v", v != nil)
}

type fid5Driver struct{}

func (fid5Driver) Open(string) (driver.Conn, error) { return nil, errors.New("fid5: no connection") }

// TestSQLRegisterVsDrivers: a goroutine registers a database/sql driver
// while the test lists them; package sql's lock orders them either way.
func TestSQLRegisterVsDrivers(t *testing.T) {
	name := fid5Name("fid5drv")
	done := make(chan bool)
	go func() {
		sql.Register(name, fid5Driver{})
		done <- true
	}()
	found := slices.Contains(sql.Drivers(), name)
	<-done
	t.Errorf("found %v", found)
}

// TestSetGCPercentOrder: two goroutines set the GC percent; each gets the
// value before its own, so the results show the order.
func TestSetGCPercentOrder(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	done := make(chan int)
	go func() { done <- debug.SetGCPercent(150) }()
	b := debug.SetGCPercent(200)
	a := <-done
	t.Errorf("a got %d, b got %d", a, b)
}

// TestMapsCopyVsWrite: maps.Copy (code of package maps, not rewritten)
// reads a map the test goroutine writes: Go's map may detect it.
//
// conform: racy
func TestMapsCopyVsWrite(t *testing.T) {
	m := map[int]int{}
	for i := 0; i < 200; i++ {
		m[i] = i
	}
	done := make(chan int)
	go func() {
		dst := map[int]int{}
		maps.Copy(dst, m)
		done <- len(dst)
	}()
	m[1000] = 1
	n := <-done
	t.Errorf("copied %d", n)
}

// TestUniqueMakeTwoGoroutines: unique.Make from two goroutines gives
// equal handles whoever comes first.
func TestUniqueMakeTwoGoroutines(t *testing.T) {
	s := fid5Name("fid5unique")
	hs := make(chan unique.Handle[string], 2)
	for i := 0; i < 2; i++ {
		go func() { hs <- unique.Make(strings.Clone(s)) }()
	}
	a, b := <-hs, <-hs
	t.Errorf("equal %v %v", a == b, a.Value() == s)
}

// TestSemaphoreLimit: three workers limited to one at a time by a
// buffered channel of capacity 1 (errgroup's SetLimit): they run in any
// order, never two at once.
func TestSemaphoreLimit(t *testing.T) {
	sem := make(chan struct{}, 1)
	var mu sync.Mutex
	var order []string
	running := 0
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mu.Lock()
			running++
			if running > 1 {
				order = append(order, "two at once")
			}
			order = append(order, s)
			mu.Unlock()
			mu.Lock()
			running--
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Errorf("%s", strings.Join(order, " "))
}

// TestRecoverInDeferTwoGoroutines: two goroutines panic and recover in a
// deferred call that records the value under a lock: either comes first.
func TestRecoverInDeferTwoGoroutines(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for _, s := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				r := recover()
				mu.Lock()
				got = append(got, fmt.Sprint(r))
				mu.Unlock()
			}()
			panic(s)
		}()
	}
	wg.Wait()
	t.Errorf("%v", got)
}
