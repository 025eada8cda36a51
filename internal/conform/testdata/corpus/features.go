package prog

import (
	"iter"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestReflectSelect: reflect.Select receives from two senders; which one
// it takes first is reported.
func TestReflectSelect(t *testing.T) {
	a, b := make(chan int), make(chan int)
	go func() { a <- 1 }()
	go func() { b <- 2 }()
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(a)},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(b)},
	}
	i, v, _ := reflect.Select(cases)
	if i == 0 {
		<-b
	} else {
		<-a
	}
	t.Errorf("case %d got %d", i, v.Int())
}

// TestReflectSelectDefault: a reflect.Select with a default case polls a
// sender that may not have arrived.
func TestReflectSelectDefault(t *testing.T) {
	c := make(chan int, 1)
	go func() { c <- 1 }()
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectDefault},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)},
	}
	i, _, _ := reflect.Select(cases)
	if i == 0 {
		<-c
	}
	t.Errorf("case %d", i)
}

// TestReflectMethods: a channel made by reflect.MakeChan, used by reflect's
// Send and Recv and by plain channel operations; the order of the values
// is reported.
func TestReflectMethods(t *testing.T) {
	v := reflect.MakeChan(reflect.TypeOf((chan int)(nil)), 0)
	c := v.Interface().(chan int)
	done := make(chan bool)
	go func() {
		v.Send(reflect.ValueOf(1))
		done <- true
	}()
	go func() {
		c <- 2
		done <- true
	}()
	x, _ := v.Recv()
	y := <-c
	<-done
	<-done
	t.Errorf("got %d %d", x.Int(), y)
}

// TestReflectTryClose: TryRecv polls a buffered channel that another
// goroutine fills and closes with reflect.
func TestReflectTryClose(t *testing.T) {
	v := reflect.ValueOf(make(chan int, 1))
	done := make(chan bool)
	go func() {
		if !v.TrySend(reflect.ValueOf(7)) {
			t.Errorf("full")
		}
		v.Close()
		done <- true
	}()
	x, ok := v.TryRecv()
	<-done
	if !x.IsValid() {
		t.Errorf("nothing")
		return
	}
	t.Errorf("got %d %v", x.Int(), ok)
}

// TestPullOrder: an iter.Pull iterator receives from two senders; the order
// its caller gets the values in is reported.
func TestPullOrder(t *testing.T) {
	c := make(chan int)
	go func() { c <- 1 }()
	go func() { c <- 2 }()
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; i < 2; i++ {
			if !yield(<-c) {
				return
			}
		}
	})
	defer stop()
	a, _ := next()
	b, _ := next()
	t.Errorf("order %d %d", a, b)
}

// TestPullLock: an iter.Pull2 iterator reads a counter under a lock while a
// goroutine increments it; what the caller sees is reported.
func TestPullLock(t *testing.T) {
	var mu sync.Mutex
	n := 0
	done := make(chan bool)
	go func() {
		mu.Lock()
		n++
		mu.Unlock()
		done <- true
	}()
	next, stop := iter.Pull2(func(yield func(int, int) bool) {
		for i := 0; ; i++ {
			mu.Lock()
			v := n
			mu.Unlock()
			if !yield(i, v) {
				return
			}
		}
	})
	_, a, _ := next()
	_, b, _ := next()
	stop()
	<-done
	t.Errorf("saw %d %d", a, b)
}

// TestSynctestOrder: two goroutines of a synctest bubble send to its root;
// the order it receives in is reported.
func TestSynctestOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := make(chan int)
		go func() { c <- 1 }()
		go func() { c <- 2 }()
		a, b := <-c, <-c
		t.Errorf("order %d %d", a, b)
	})
}

// TestSynctestTime: a bubble's clock starts at 2000-01-01 and advances
// only when every goroutine of the bubble is blocked, so a goroutine that
// can run finishes before the root's sleep ends.
func TestSynctestTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var done atomic.Bool
		go func() {
			for i := 0; i < 100; i++ {
				runtime.Gosched()
			}
			done.Store(true)
		}()
		time.Sleep(time.Millisecond)
		t.Errorf("done=%v elapsed=%v year=%d", done.Load(), time.Since(start), start.Year())
	})
}

// TestSynctestWait: Wait returns once both goroutines are blocked, after
// their increments.
func TestSynctestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		c := make(chan bool)
		for i := 0; i < 2; i++ {
			go func() {
				n.Add(1)
				<-c
			}()
		}
		synctest.Wait()
		t.Errorf("n=%d", n.Load())
		close(c)
	})
}

// TestSynctestDeadlock: the root of a bubble waits for a goroutine that
// only polls: synctest.Test panics when the bubble's goroutines are all
// blocked.
func TestSynctestDeadlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := make(chan int)
		go func() {
			select {
			case c <- 1:
			default:
			}
		}()
		<-c
	})
}
