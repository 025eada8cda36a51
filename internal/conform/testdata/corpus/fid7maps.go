package prog

import (
	"maps"
	"slices"
	"testing"
)

// Functions of package maps (standard-library code, not rewritten) that
// iterate, read or write a map another goroutine writes: Go's map may
// detect the overlap ("concurrent map iteration and map write", "...
// clone and map write", "concurrent map writes", "... read and map
// write"). The other goroutine makes one racing access. A function that
// heddle models as one access (Copy, Clone, Equal) gets a map large
// enough for the native runs to show the overlap now and then; one
// modelled as a step per entry (the iterators, EqualFunc, DeleteFunc,
// Insert) a small one: every position of the other goroutine's access in
// the iteration is a schedule to explore.

// fid7Map is a map of n entries, key i to value i.
func fid7Map(n int) map[int]int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i] = i
	}
	return m
}

// TestMapsCloneVsWrite: maps.Clone of a map the test goroutine writes.
//
// conform: racy
func TestMapsCloneVsWrite(t *testing.T) {
	m := fid7Map(1000)
	done := make(chan int)
	go func() {
		c := maps.Clone(m)
		done <- len(c)
	}()
	m[1000] = 1
	n := <-done
	t.Errorf("cloned %d", n)
}

// TestMapsEqualVsWrite: maps.Equal ranges over m while the test goroutine
// overwrites one of its entries.
//
// conform: racy
func TestMapsEqualVsWrite(t *testing.T) {
	m := fid7Map(200)
	other := fid7Map(200)
	done := make(chan bool)
	go func() {
		done <- maps.Equal(m, other)
	}()
	m[100] = -1
	eq := <-done
	t.Errorf("equal %v", eq)
}

// TestMapsEqualFuncVsWrite: maps.EqualFunc looks entries up in m while
// the test goroutine overwrites one.
//
// conform: racy
func TestMapsEqualFuncVsWrite(t *testing.T) {
	m := fid7Map(16)
	other := fid7Map(16)
	done := make(chan bool)
	go func() {
		done <- maps.EqualFunc(other, m, func(a, b int) bool { return a == b })
	}()
	m[10] = -1
	eq := <-done
	t.Errorf("equal %v", eq)
}

// TestMapsDeleteFuncVsWrite: maps.DeleteFunc deletes the even keys of m
// while the test goroutine adds one.
//
// conform: racy
func TestMapsDeleteFuncVsWrite(t *testing.T) {
	m := fid7Map(16)
	done := make(chan bool)
	go func() {
		maps.DeleteFunc(m, func(k, v int) bool { return k%2 == 0 })
		done <- true
	}()
	m[1001] = 1
	<-done
	t.Errorf("left %d", len(m))
}

// TestMapsKeysVsWrite: a loop over maps.Keys(m) (the iteration happens
// while the loop runs) while the test goroutine adds a key.
//
// conform: racy
func TestMapsKeysVsWrite(t *testing.T) {
	m := fid7Map(16)
	done := make(chan int)
	go func() {
		n := 0
		for k := range maps.Keys(m) {
			if k >= 0 {
				n++
			}
		}
		done <- n
	}()
	m[1000] = 1
	n := <-done
	t.Errorf("keys %d", n)
}

// TestMapsValuesCollectVsWrite: slices.Collect(maps.Values(m)) while the
// test goroutine adds a key.
//
// conform: racy
func TestMapsValuesCollectVsWrite(t *testing.T) {
	m := fid7Map(16)
	done := make(chan int)
	go func() {
		done <- len(slices.Collect(maps.Values(m)))
	}()
	m[1000] = 1
	n := <-done
	t.Errorf("values %d", n)
}

// TestMapsAllCollectVsDelete: maps.Collect(maps.All(m)) while the test
// goroutine deletes a key.
//
// conform: racy
func TestMapsAllCollectVsDelete(t *testing.T) {
	m := fid7Map(16)
	done := make(chan int)
	go func() {
		done <- len(maps.Collect(maps.All(m)))
	}()
	delete(m, 10)
	n := <-done
	t.Errorf("collected %d", n)
}

// TestMapsInsertVsRead: maps.Insert writes m while the test goroutine
// looks a key up.
//
// conform: racy
func TestMapsInsertVsRead(t *testing.T) {
	m := map[int]int{}
	src := fid7Map(16)
	done := make(chan bool)
	go func() {
		maps.Insert(m, maps.All(src))
		done <- true
	}()
	v, ok := m[10]
	<-done
	t.Errorf("read %d %v", v, ok)
}

// TestMapsCopyIntoVsWrite: maps.Copy writes m while the test goroutine
// writes it too.
//
// conform: racy
func TestMapsCopyIntoVsWrite(t *testing.T) {
	m := map[int]int{}
	src := fid7Map(200)
	done := make(chan bool)
	go func() {
		maps.Copy(m, src)
		done <- true
	}()
	m[1000] = 1
	<-done
	t.Errorf("len %d", len(m))
}
