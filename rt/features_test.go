package rt_test

import (
	"fmt"
	"iter"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"heddle.dev/internal/engine"
	"heddle.dev/internal/strategy"
	"heddle.dev/rt"
)

// exhaustControlled is exhaust for bodies that must run entirely under
// heddle's control: a run in which rewritten code ran natively (in a
// goroutine heddle does not see as the one holding the processor) fails
// the test.
func exhaustControlled(t *testing.T, body func() string) (outcomes map[string]bool, bugs map[string]string) {
	t.Helper()
	outcomes, bugs = map[string]bool{}, map[string]string{}
	dfs := strategy.NewDFS(0)
	for run := 1; dfs.Begin(run); run++ {
		if run > 100000 {
			t.Fatal("DFS did not finish within 100000 runs")
		}
		var out string
		res := engine.Run(engine.Config{MaxStarve: 100 * time.Millisecond}, dfs, func() { out = body() })
		dfs.End(res)
		if dfs.Diverged {
			t.Fatal("program diverged under a fixed schedule")
		}
		if res.Internal != "" {
			t.Fatalf("internal error: %s", res.Internal)
		}
		if res.Natives > 0 {
			t.Fatalf("run %d: %d calls ran natively", run, res.Natives)
		}
		if res.Bug != nil {
			bugs[res.Bug.Kind] = res.Bug.Message
			continue
		}
		outcomes[out] = true
	}
	return outcomes, bugs
}

// reflect.Select over channels whose senders are controlled goroutines is
// a select of heddle's: both orders are explored, and nothing is blocked
// outside heddle's control.
func TestReflectSelectExplored(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		a, b := rt.MakeChan[chan int](0), rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(a, 1) })
		rt.Go(func() { rt.Send(b, 2) })
		i, v, ok := rt.ReflectSelect([]reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(a)},
			{Dir: reflect.SelectRecv, Chan: reflect.Value{}}, // ignored
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(b)},
		})
		if i == 0 {
			rt.Recv(b)
		} else {
			rt.Recv(a)
		}
		return fmt.Sprint(i, v.Int(), ok)
	})
	if want := "0 1 true | 2 2 true"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// A reflect.Select with a default case polls: the default is taken before
// the sender arrives, the receive after; a send case on a full channel is
// not ready.
func TestReflectSelectDefaultAndSend(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan int](0)
		full := rt.MakeChan[chan int](1)
		rt.Send(full, 0)
		rt.Go(func() { rt.Send(c, 1) })
		i, _, _ := rt.ReflectSelect([]reflect.SelectCase{
			{Dir: reflect.SelectSend, Chan: reflect.ValueOf(full), Send: reflect.ValueOf(9)},
			{Dir: reflect.SelectDefault},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)},
		})
		if i == 1 {
			rt.Recv(c)
		}
		return fmt.Sprint(i)
	})
	if want := "1 | 2"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// A channel made by reflect.MakeChan is the run's own: reflect's Send and
// Recv and the rewritten operations on the same channel are explored
// together.
func TestReflectMethodsExplored(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		v := rt.ReflectMakeChan(reflect.TypeOf((chan any)(nil)), 0)
		c := v.Interface().(chan any)
		done := rt.MakeChan[chan bool](2)
		rt.Go(func() {
			rt.ReflectSend(v, reflect.ValueOf(1)) // wrapped in the interface element type
			rt.Send(done, true)
		})
		rt.Go(func() {
			rt.Send(c, any(2))
			rt.Send(done, true)
		})
		x, _ := rt.ReflectRecv(v)
		y := rt.Recv(c)
		rt.Recv(done)
		rt.Recv(done)
		polled, ok := rt.ReflectTryRecv(v)
		rt.ReflectClose(v)
		_, ok2 := rt.ReflectRecv(v)
		return fmt.Sprint(x.Interface(), y, polled.IsValid(), ok, ok2)
	})
	if want := "1 2 false false false | 2 1 false false false"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// reflect's checks panic as reflect does, before the scheduling point.
func TestReflectMisusePanics(t *testing.T) {
	c := make(chan int, 1)
	recvOnly := reflect.ValueOf((<-chan int)(c))
	sendOnly := reflect.ValueOf((chan<- int)(c))
	cases := map[string]func(){
		"reflect: send on recv-only channel": func() { rt.ReflectSend(recvOnly, reflect.ValueOf(1)) },
		"reflect: recv on send-only channel": func() { rt.ReflectRecv(sendOnly) },
		"reflect: close of receive-only channel": func() {
			rt.ReflectClose(recvOnly)
		},
		"reflect.Value.Send: value of type string is not assignable to type int": func() {
			rt.ReflectSend(reflect.ValueOf(c), reflect.ValueOf("x"))
		},
		"reflect.Select: RecvDir case using send-only channel": func() {
			rt.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: sendOnly}})
		},
		"reflect.Select: multiple default cases": func() {
			rt.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectDefault}, {Dir: reflect.SelectDefault}})
		},
		"close of closed channel": func() {
			v := reflect.ValueOf(make(chan int))
			rt.ReflectClose(v)
			rt.ReflectClose(v)
		},
	}
	for want, f := range cases {
		for _, explored := range []bool{false, true} {
			var got string
			body := func() {
				defer func() { got = fmt.Sprint(recover()) }()
				f()
			}
			if explored {
				res := engine.Run(engine.Config{}, strategy.NewRandom(1), body)
				if res.Bug != nil {
					t.Errorf("%s: bug %s", want, res.Bug.Message)
				}
			} else {
				body()
			}
			if !strings.Contains(got, want) {
				t.Errorf("explored=%v: panic %q, want %q", explored, got, want)
			}
		}
	}
}

// An iter.Pull iterator runs on a coroutine, on behalf of the goroutine
// that calls next: its channel operations are that goroutine's scheduling
// points, so both orders of its two senders are explored, with nothing
// run natively.
func TestPullExplored(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(c, 1) })
		rt.Go(func() { rt.Send(c, 2) })
		next, stop := rt.Pull(iter.Seq[int](func(yield func(int) bool) {
			for i := 0; i < 2; i++ {
				if !yield(rt.Recv(c)) {
					return
				}
			}
		}))
		defer stop()
		a, _ := next()
		b, _ := next()
		_, more := next()
		return fmt.Sprint(a, b, more)
	})
	if want := "1 2 false | 2 1 false"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// A goroutine left blocked inside an iterator when the test returns is a
// leak, found in the schedules where it is, and is unwound at the end of
// the run as any other: the iterator's deferred calls run, then its
// caller's (iter.Pull propagates the Goexit). The runs after it work on
// the reused goroutines.
func TestPullLeakUnwound(t *testing.T) {
	unwound := 0
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan int](0)
		ready := rt.MakeChan[chan bool](1)
		rt.Go(func() {
			next, stop := rt.Pull2(iter.Seq2[int, int](func(yield func(int, int) bool) {
				defer func() { unwound++ }()
				rt.Send(ready, true)
				yield(0, rt.Recv(c))
			}))
			defer stop()
			next()
		})
		rt.Recv(ready)
		if rt.Select(true, rt.SendCase(c, 1)) < 0 {
			return "polled"
		}
		return "sent"
	})
	if want := "sent"; keys(outcomes) != want || bugs["leak"] == "" || len(bugs) != 1 {
		t.Errorf("outcomes %q, bugs %v; want %q and a leak", keys(outcomes), bugs, want)
	}
	if unwound == 0 {
		t.Error("the iterator's deferred call did not run when its goroutine was unwound")
	}
}

// A panic in an iterator is its caller's (iter.Pull propagates it): a
// recover in the caller catches it, and the caller goes on under heddle's
// control.
func TestPullPanicRecovered(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		c := rt.MakeChan[chan int](0)
		rt.Go(func() { rt.Send(c, 1) })
		next, _ := rt.Pull(iter.Seq[int](func(yield func(int) bool) {
			panic("in the iterator")
		}))
		var got any
		func() {
			defer func() { got = recover() }()
			next()
		}()
		return fmt.Sprintf("%v %v", got, rt.Recv(c))
	})
	if want := "in the iterator 1"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// bubble runs root as the root goroutine of a synctest bubble, waits for
// the bubble as synctest.Test does, and returns the deadlock message, if
// any.
func bubble(root func()) string {
	x := engine.Current()
	b := x.GoBubble(root)
	return x.BubbleEnd(b)
}

// synctest.Wait returns only once every other goroutine of the bubble is
// durably blocked: the write before the goroutine's receive is always
// seen, in every schedule.
func TestBubbleWaitSeesBlocked(t *testing.T) {
	outcomes, bugs := exhaustControlled(t, func() string {
		var seen bool
		msg := bubble(func() {
			c := rt.MakeChan[chan int](0)
			done := false
			rt.Go(func() {
				done = true
				rt.Recv(c)
			})
			engine.Current().BubbleWait()
			seen = done
			rt.Send(c, 1)
		})
		return fmt.Sprint(seen, msg == "")
	})
	if want := "true true"; keys(outcomes) != want || len(bugs) > 0 {
		t.Errorf("outcomes %q, bugs %v; want %q and none", keys(outcomes), bugs, want)
	}
}

// A bubble's clock advances only when all its goroutines are blocked: a
// goroutine that can still run always finishes before the root's sleep
// ends, where a timer of the run outside a bubble may fire early.
func TestBubbleTimeWaitsForRunnable(t *testing.T) {
	// flag is atomic: a sleep's end does not order the sleeper after
	// another goroutine of its bubble for the race detector, natively too.
	work := func(flag *atomic.Bool) func() {
		return func() {
			var mu sync.Mutex
			for i := 0; i < 3; i++ {
				rt.MutexLock(&mu)
				rt.MutexUnlock(&mu)
			}
			flag.Store(true)
		}
	}
	outcomes, _ := exhaustControlled(t, func() string {
		var flag atomic.Bool
		var seen bool
		bubble(func() {
			rt.Go(work(&flag))
			rt.Sleep(time.Millisecond)
			seen = flag.Load()
		})
		return fmt.Sprint(seen)
	})
	if want := "true"; keys(outcomes) != want {
		t.Errorf("in a bubble: outcomes %q, want %q", keys(outcomes), want)
	}
	outside, _ := exhaustControlled(t, func() string {
		var flag atomic.Bool
		rt.Go(work(&flag))
		rt.Sleep(time.Millisecond)
		return fmt.Sprint(flag.Load())
	})
	if !outside["false"] {
		t.Errorf("outside a bubble: outcomes %q, want the sleep to end first in some", keys(outside))
	}
}

// Deadlocks of a bubble are reported as synctest.Test reports them: all
// goroutines blocked, or blocked goroutines left when the root returned
// (whose clock then stops: a sleeper never wakes).
func TestBubbleDeadlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		root func()
		want string
	}{
		{"blocked", func() {
			c := rt.MakeChan[chan int](0)
			rt.Go(func() { rt.Send(c, 1) })
			rt.Send(c, 2)
			rt.Send(c, 3)
		}, "deadlock: all goroutines in bubble are blocked"},
		{"root returned", func() {
			rt.Go(func() { rt.Sleep(time.Second) })
		}, "deadlock: main bubble goroutine has exited but blocked goroutines remain"},
		{"ends", func() {
			c := rt.MakeChan[chan int](0)
			rt.Go(func() {
				rt.Sleep(time.Second)
				rt.Send(c, 1)
			})
			rt.Recv(c)
		}, ""},
	} {
		msgs := map[string]bool{}
		exhaustControlled(t, func() string {
			msg := bubble(tc.root)
			msgs[msg] = true // a deadlocked bubble's goroutines leak: synctest.Test panics
			return msg
		})
		if keys(msgs) != tc.want {
			t.Errorf("%s: BubbleEnd %q, want %q", tc.name, keys(msgs), tc.want)
		}
	}
}
