package prog

import (
	"sync/atomic"
	"testing"
)

// TestCheckThenAct: a check-then-act on a plain variable by two
// goroutines (a data race): both may act.
//
// conform: racy
func TestCheckThenAct(t *testing.T) {
	owner := 0
	done := make(chan bool)
	acted := make(chan int, 2)
	for i := 1; i <= 2; i++ {
		go func() {
			if owner == 0 {
				owner = i
				acted <- i
			}
			done <- true
		}()
	}
	<-done
	<-done
	t.Errorf("%d acted", len(acted))
}

// TestLostUpdate: two unsynchronized increments of a plain variable.
//
// conform: racy
func TestLostUpdate(t *testing.T) {
	x := 0
	done := make(chan bool)
	for i := 0; i < 2; i++ {
		go func() {
			v := x
			x = v + 1
			done <- true
		}()
	}
	<-done
	<-done
	t.Errorf("x=%d", x)
}

// TestMapCheckThenAct: a check-then-act on a map entry under no lock.
//
// conform: racy
func TestMapCheckThenAct(t *testing.T) {
	m := map[string]int{}
	done := make(chan bool)
	for i := 1; i <= 2; i++ {
		go func() {
			if _, ok := m["k"]; !ok {
				m["k"] = i
			}
			done <- true
		}()
	}
	<-done
	<-done
	t.Errorf("k=%d", m["k"])
}

// TestAtomicCAS: two goroutines race to CAS a flag; both report.
func TestAtomicCAS(t *testing.T) {
	var flag atomic.Int32
	won := make(chan int32, 2)
	for i := int32(1); i <= 2; i++ {
		go func() {
			if flag.CompareAndSwap(0, i) {
				won <- i
			} else {
				won <- -i
			}
		}()
	}
	t.Errorf("%d %d", <-won, <-won)
}

// TestAtomicPublish: a value published with an atomic flag, read by a
// poller that does not wait.
func TestAtomicPublish(t *testing.T) {
	var ready atomic.Bool
	var data atomic.Int32
	done := make(chan bool)
	go func() {
		data.Store(7)
		ready.Store(true)
		done <- true
	}()
	r := ready.Load()
	d := data.Load()
	<-done
	t.Errorf("ready %v data %d", r, d)
}

// TestLostIncrement: two unsynchronized x++ (a data race): natively the
// read and the write of each are two accesses, and an update can be lost.
//
// conform: racy
func TestLostIncrement(t *testing.T) {
	x := 0
	done := make(chan bool)
	for range 2 {
		go func() {
			x++
			done <- true
		}()
	}
	<-done
	<-done
	t.Errorf("x=%d", x)
}

// TestStoreBuffer: the store-buffering litmus test on plain variables (a
// data race). Each goroutine writes one variable and then reads the
// other. Under any interleaving of the four accesses one read sees the
// other's write; natively both can read 0, because a processor's store
// buffer (x86-TSO, and weaker on arm64) lets a read pass an earlier write
// to another variable. The two goroutines spin until both have started,
// so that natively the accesses overlap. heddle -racy models x86-TSO's
// store buffers for the racing writes (docs/design.md, "Racy accesses").
//
// conform: racy weakmemory
func TestStoreBuffer(t *testing.T) {
	x, y := 0, 0
	var started atomic.Int32
	r1, r2 := -1, -1
	done := make(chan bool)
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		x = 1
		r1 = y
		done <- true
	}()
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		y = 1
		r2 = x
		done <- true
	}()
	<-done
	<-done
	if r1 == 0 && r2 == 0 {
		t.Errorf("both read 0")
	}
}

// TestMessagePassing: the message-passing litmus test on plain variables
// (a data race). The writer stores the data, then the flag; the reader
// loads the flag, then the data. x86-TSO keeps stores in order and loads
// in order, so a reader that sees the flag sees the data: heddle's store
// buffers must not produce "flag without data" (arm64 can, natively).
//
// conform: racy weakmemory
func TestMessagePassing(t *testing.T) {
	data, flag := 0, 0
	var started atomic.Int32
	r1, r2 := -1, -1
	done := make(chan bool)
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		data = 1
		flag = 1
		done <- true
	}()
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		r1 = flag
		r2 = data
		done <- true
	}()
	<-done
	<-done
	if r1 == 1 && r2 == 0 {
		t.Errorf("flag without data")
	}
}

// TestLoadBuffering: the load-buffering litmus test on plain variables (a
// data race). Each goroutine loads one variable, then stores the other.
// x86-TSO never lets a store pass an earlier load, so both loads cannot
// see the other's store: heddle's store buffers must not produce "both
// read 1".
//
// conform: racy weakmemory
func TestLoadBuffering(t *testing.T) {
	x, y := 0, 0
	var started atomic.Int32
	r1, r2 := -1, -1
	done := make(chan bool)
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		r1 = x
		y = 1
		done <- true
	}()
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		r2 = y
		x = 1
		done <- true
	}()
	<-done
	<-done
	if r1 == 1 && r2 == 1 {
		t.Errorf("both read 1")
	}
}

// TestStoreForwarding: a goroutine reads back the variable it just wrote
// while another goroutine writes it (a data race). The read sees its own
// store (forwarded from the store buffer before it reaches memory) or
// the other goroutine's, never the value from before both: heddle's store
// buffers must not produce "read 0".
//
// conform: racy weakmemory
func TestStoreForwarding(t *testing.T) {
	x := 0
	var started atomic.Int32
	r := -1
	done := make(chan bool)
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		x = 1
		r = x
		done <- true
	}()
	go func() {
		started.Add(1)
		for started.Load() < 2 {
		}
		x = 2
		done <- true
	}()
	<-done
	<-done
	if r == 0 {
		t.Errorf("read 0")
	}
	t.Errorf("read %d, x=%d", r, x)
}
