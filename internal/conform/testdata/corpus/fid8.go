package prog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Eighth fidelity audit: context causes racing between a parent and a
// child and between two cancels of one context, context.AfterFunc on a
// child cancelled through its parent, deadlines of a parent and a child
// due at the same instant in a bubble, bubble timers due at the same
// instant committing a parked select or racing a Stop, a select with
// default polled in a loop while a channel is closed, runtime.Goexit in a
// WaitGroup.Go function, in a OnceFunc's f and in an iter.Pull iterator,
// panics in deferred calls, and io.Pipe's reader closed during a write.

var (
	errFid8Parent = errors.New("parent cause")
	errFid8Child  = errors.New("child cause")
)

// TestContextCancelCauseParentVsChild: the parent and the child are
// cancelled with their own causes at once: the child's cause is the first
// cancel's (a parent's cancel cancels its children before it returns).
func TestContextCancelCauseParentVsChild(t *testing.T) {
	parent, cancelP := context.WithCancelCause(context.Background())
	child, cancelC := context.WithCancelCause(parent)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cancelP(errFid8Parent) }()
	go func() { defer wg.Done(); cancelC(errFid8Child) }()
	wg.Wait()
	t.Errorf("child %v, parent %v", context.Cause(child), context.Cause(parent))
}

// TestContextCancelCauseNilVsErr: two cancels of one context, one with a
// nil cause (context.Canceled), one with an error: the first wins.
func TestContextCancelCauseNilVsErr(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cancel(nil) }()
	go func() { defer wg.Done(); cancel(errFid8Child) }()
	wg.Wait()
	t.Errorf("cause %v", context.Cause(ctx))
}

// TestContextAfterFuncChildStopVsParentCancel: an AfterFunc on a child
// whose parent a goroutine cancels, stopped by another goroutine: f runs
// or the stop wins, never both, never neither.
func TestContextAfterFuncChildStopVsParentCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	child, cancelChild := context.WithCancel(parent)
	defer cancelChild()
	ran := make(chan bool, 1)
	stop := context.AfterFunc(child, func() { ran <- true })
	stopped := make(chan bool)
	go func() { cancel() }()
	go func() { stopped <- stop() }()
	s := <-stopped
	<-child.Done()
	r := false
	if !s {
		r = <-ran
	}
	t.Errorf("stop %v, ran %v", s, r)
}

// TestContextAfterFuncRegisteredDuringCancel: AfterFunc registered while
// another goroutine cancels: f runs exactly once, after the context is
// done, whichever came first.
func TestContextAfterFuncRegisteredDuringCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	go cancel(errFid8Parent)
	res := make(chan string, 2)
	context.AfterFunc(ctx, func() { res <- fmt.Sprint(context.Cause(ctx)) })
	<-ctx.Done()
	got := <-res
	select {
	case again := <-res:
		got += " and " + again
	case <-time.After(10 * time.Millisecond):
	}
	t.Errorf("f saw %s", got)
}

// TestSynctestDeadlineParentChildSameInstant: a parent and a child with
// their own deadline causes due at the same instant (the child's is not
// before the parent's, so it has its own timer): the child's cause is
// whichever timer's cancel came first.
func TestSynctestDeadlineParentChildSameInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := time.Now().Add(time.Second)
		parent, cancelP := context.WithDeadlineCause(context.Background(), d, errFid8Parent)
		defer cancelP()
		child, cancelC := context.WithDeadlineCause(parent, d, errFid8Child)
		defer cancelC()
		<-child.Done()
		synctest.Wait()
		t.Errorf("child %v, parent %v", context.Cause(child), context.Cause(parent))
	})
}

// TestSynctestTwoTimersSameInstantParkedSelect: two timers due at the
// same instant, a made first, and a select parked on both channels: the
// bubble's timer pass runs them in its heap's order, so a's value commits
// the select and b's stays in b's channel.
func TestSynctestTwoTimersSameInstantParkedSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := time.NewTimer(time.Second)
		b := time.NewTimer(time.Second)
		done := make(chan string, 1)
		go func() {
			select {
			case <-a.C:
				done <- "a"
			case <-b.C:
				done <- "b"
			}
		}()
		got := <-done
		left := ""
		select {
		case <-a.C:
			left = "a"
		case <-b.C:
			left = "b"
		default:
			left = "none"
		}
		t.Errorf("%s, left %s", got, left)
	})
}

// TestSynctestSleeperStopsSameInstantAfterFunc: a goroutine's sleep and an
// AfterFunc made after it are due at the same instant; the sleeper stops
// the AfterFunc as it wakes. The timer pass fires the sleep first; with
// GOMAXPROCS > 1 the sleeper may run before the pass reaches the AfterFunc.
func TestSynctestSleeperStopsSameInstantAfterFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tm *time.Timer
		ran := make(chan bool, 1)
		stopped := make(chan bool, 1)
		armed := make(chan bool)
		go func() {
			<-armed
			time.Sleep(time.Second)
			stopped <- tm.Stop()
		}()
		armed <- true
		synctest.Wait()
		tm = time.AfterFunc(time.Second, func() { ran <- true })
		s := <-stopped
		synctest.Wait()
		t.Errorf("stop %v, ran %v", s, len(ran) == 1)
	})
}

// TestSelectDefaultLoopVsClose: a goroutine polls a channel three times
// with a select's default while another sends one value and closes it:
// each poll sees nothing, the value, or the close.
func TestSelectDefaultLoopVsClose(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		ch <- 1
		close(ch)
	}()
	var seen []string
	for i := 0; i < 3; i++ {
		select {
		case v, ok := <-ch:
			if ok {
				seen = append(seen, fmt.Sprint(v))
			} else {
				seen = append(seen, "closed")
			}
		default:
			seen = append(seen, "-")
		}
	}
	t.Errorf("%s", strings.Join(seen, " "))
}

// TestWaitGroupGoGoexit: WaitGroup.Go's function calls runtime.Goexit:
// Done still runs (a deferred call), and Wait returns.
func TestWaitGroupGoGoexit(t *testing.T) {
	var wg sync.WaitGroup
	reached := false
	wg.Go(func() {
		runtime.Goexit()
		reached = true
	})
	wg.Wait()
	t.Errorf("waited, reached %v", reached)
}

// TestOnceFuncGoexit: a OnceFunc's f calls runtime.Goexit: recover in
// OnceFunc's deferred call sees nil, so it panics with nil.
func TestOnceFuncGoexit(t *testing.T) {
	f := sync.OnceFunc(func() { runtime.Goexit() })
	done := make(chan bool)
	go func() {
		defer close(done)
		f()
	}()
	<-done
	t.Errorf("returned")
}

// TestIterPullGoexit: the iterator calls runtime.Goexit: next propagates
// it to its caller's goroutine, whose deferred calls run.
func TestIterPullGoexit(t *testing.T) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		if !yield(1) {
			return
		}
		runtime.Goexit()
	})
	res := make(chan string, 1)
	go func() {
		defer stop()
		got := "goexit"
		defer func() { res <- got }()
		v, _ := next()
		got = fmt.Sprintf("got %d", v)
		next()
		got = "after next"
	}()
	t.Errorf("%s", <-res)
}

// TestPanicInDeferRecoversLatest: a deferred call panics while a panic
// unwinds; the outer recover gets the later panic, in each of two
// goroutines.
func TestPanicInDeferRecoversLatest(t *testing.T) {
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			defer func() { res <- fmt.Sprintf("%s %v", name, recover()) }()
			defer func() { panic(name + " second") }()
			panic(name + " first")
		}()
	}
	t.Errorf("%s, %s", <-res, <-res)
}

// TestPipeReaderCloseMidWrite: the writer writes 6 bytes, the reader reads
// 2 at a time, and another goroutine closes the reader after its first
// read: the write returns the bytes read and io.ErrClosedPipe.
func TestPipeReaderCloseMidWrite(t *testing.T) {
	r, w := io.Pipe()
	res := make(chan string, 1)
	go func() {
		n, err := w.Write([]byte("abcdef"))
		res <- fmt.Sprintf("wrote %d %v", n, err)
	}()
	buf := make([]byte, 2)
	io.ReadFull(r, buf)
	go r.Close()
	for {
		if _, err := r.Read(buf); err != nil {
			break
		}
	}
	t.Errorf("%s", <-res)
}

// TestPanicInDeferUnrecovered: a goroutine's deferred call panics while
// its first panic unwinds, and nothing recovers: the process crashes
// with both values, the first printed first.
func TestPanicInDeferUnrecovered(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer func() { panic("second") }()
		panic("first")
	}()
	<-done
}

// TestRepanicDifferentValue: a goroutine recovers a panic and panics with
// another value: the crash names the recovered one first.
func TestRepanicDifferentValue(t *testing.T) {
	done := make(chan bool)
	go func() {
		defer func() {
			r := recover()
			panic(fmt.Sprint("again after ", r))
		}()
		panic("boom")
	}()
	<-done
}

// TestPoolTwoPutsTwoGets: two goroutines each Put a value, then the test
// Gets twice: a Get returns a value put on its P, one stolen from
// another P's shared list, or New's (a value in another P's private slot
// cannot be stolen).
func TestPoolTwoPutsTwoGets(t *testing.T) {
	p := sync.Pool{New: func() any { return "new" }}
	var wg sync.WaitGroup
	for _, v := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Put(v)
		}()
	}
	wg.Wait()
	x, y := p.Get(), p.Get()
	t.Errorf("got %v %v", x, y)
}

// TestAfterFuncTwoStops: two goroutines stop one pending AfterFunc: one
// Stop returns true.
func TestAfterFuncTwoStops(t *testing.T) {
	tm := time.AfterFunc(time.Hour, func() {})
	res := make(chan bool, 2)
	for i := 0; i < 2; i++ {
		go func() { res <- tm.Stop() }()
	}
	a, b := <-res, <-res
	t.Errorf("stops %v %v", a, b)
}

// TestContextChildCreatedDuringCancel: a child made while another
// goroutine cancels its parent is done either way: made from a done
// parent, or cancelled with it.
func TestContextChildCreatedDuringCancel(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	go cancel(errFid8Parent)
	child, cancelChild := context.WithCancel(parent)
	defer cancelChild()
	select {
	case <-child.Done():
		t.Errorf("child done: %v", context.Cause(child))
	case <-time.After(time.Second):
		t.Errorf("child not done")
	}
}
