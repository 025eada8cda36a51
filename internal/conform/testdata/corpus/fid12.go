package prog

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Twelfth fidelity audit: synchronization reached by other spellings
// than a direct method call on a concrete value: method values and
// function values (sync, sync/atomic), interfaces over a WaitGroup, a
// Cond, a Timer or a Ticker, a Locker interface embedded in a struct,
// type parameters constrained by sync.Locker, named channel types with
// methods, generic channel helpers; a select's operands evaluated once;
// a Once whose function blocks on another caller (deadlock), a Cond over
// a user Locker, iter.Seq producers with goroutines, and a few
// interleavings of Cond, RWMutex and Once observed through their results.

// TestAtomicAddMethodValueTwice: a goroutine adds 1 twice through a
// method value of an atomic.Int64; the test loads it once meanwhile: 0,
// 1 or 2.
func TestAtomicAddMethodValueTwice(t *testing.T) {
	var n atomic.Int64
	inc := n.Add
	done := make(chan bool)
	go func() {
		inc(1)
		inc(1)
		close(done)
	}()
	v := n.Load()
	<-done
	t.Errorf("saw %d", v)
}

// TestAtomicAddFuncValueTwice: the same through a function value of
// atomic.AddInt32.
func TestAtomicAddFuncValueTwice(t *testing.T) {
	var n int32
	add := atomic.AddInt32
	done := make(chan bool)
	go func() {
		add(&n, 1)
		add(&n, 1)
		close(done)
	}()
	v := atomic.LoadInt32(&n)
	<-done
	t.Errorf("saw %d", v)
}

// TestAtomicLoadMethodValueTwice: the goroutine stores twice directly;
// the test reads through a method value of Load, twice: the pair is
// ordered (never 2 then 1).
func TestAtomicLoadMethodValueTwice(t *testing.T) {
	var n atomic.Int32
	load := n.Load
	done := make(chan bool)
	go func() {
		n.Store(1)
		n.Store(2)
		close(done)
	}()
	a := load()
	b := load()
	<-done
	t.Errorf("saw %d %d", a, b)
}

// TestAtomicValueStoreMethodValue: atomic.Value stored twice through a
// method value; the test loads once: nil, 1 or 2.
func TestAtomicValueStoreMethodValue(t *testing.T) {
	var v atomic.Value
	store := v.Store
	done := make(chan bool)
	go func() {
		store(1)
		store(2)
		close(done)
	}()
	got := v.Load()
	<-done
	t.Errorf("saw %v", got)
}

// TestMutexMethodValues: lock and unlock through method values; the
// goroutine's two appends stay together.
func TestMutexMethodValues(t *testing.T) {
	var mu sync.Mutex
	lock, unlock := mu.Lock, mu.Unlock
	var log []string
	done := make(chan bool)
	go func() {
		lock()
		log = append(log, "g1")
		log = append(log, "g2")
		unlock()
		close(done)
	}()
	lock()
	log = append(log, "t")
	unlock()
	<-done
	t.Errorf("%s", strings.Join(log, " "))
}

// TestGoMethodValueUnlock: the test holds a mutex and starts `go
// mu.Unlock()`; its TryLock succeeds only once the goroutine unlocked.
func TestGoMethodValueUnlock(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	go mu.Unlock()
	ok := mu.TryLock()
	if !ok {
		mu.Lock()
	}
	mu.Unlock()
	t.Errorf("try %v", ok)
}

// TestWaitGroupDoneAsFuncArg: wg.Done passed as a function to
// context.AfterFunc and time.AfterFunc, and deferred as a method value;
// the test's Wait returns once all three ran.
func TestWaitGroupDoneAsFuncArg(t *testing.T) {
	var wg sync.WaitGroup
	var n atomic.Int32
	wg.Add(3)
	ctx, cancel := context.WithCancel(context.Background())
	context.AfterFunc(ctx, wg.Done)
	time.AfterFunc(0, wg.Done)
	done := wg.Done
	go func() {
		defer done()
		n.Add(1)
		cancel()
	}()
	wg.Wait()
	t.Errorf("n %d", n.Load())
}

// TestWaitGroupThroughInterface: a goroutine calls Done on the WaitGroup
// through an interface; the test's Wait returns after the goroutine's
// store.
func TestWaitGroupThroughInterface(t *testing.T) {
	var wg sync.WaitGroup
	var x atomic.Int32
	wg.Add(1)
	var d interface{ Done() } = &wg
	go func() {
		x.Store(1)
		d.Done()
	}()
	var w interface{ Wait() } = &wg
	w.Wait()
	t.Errorf("x %d", x.Load())
}

// TestWaitGroupAddThroughInterface: Add and Done through an interface
// with both methods; Wait directly.
func TestWaitGroupAddThroughInterface(t *testing.T) {
	var wg sync.WaitGroup
	var c interface {
		Add(int)
		Done()
	} = &wg
	var log []string
	var mu sync.Mutex
	for _, name := range []string{"a", "b"} {
		c.Add(1)
		go func() {
			defer c.Done()
			mu.Lock()
			log = append(log, name)
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestCondThroughInterface: a waiter waits on a Cond for a flag; the
// signaller sets it and signals through an interface.
func TestCondThroughInterface(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var s interface{ Signal() } = c
	ready := false
	waited := false
	done := make(chan bool)
	go func() {
		mu.Lock()
		for !ready {
			waited = true
			c.Wait()
		}
		mu.Unlock()
		close(done)
	}()
	mu.Lock()
	ready = true
	mu.Unlock()
	s.Signal()
	<-done
	t.Errorf("waited %v", waited)
}

// TestTimerStopThroughInterface: a timer stopped through an interface
// is stopped: a Reset after it finds it inactive.
func TestTimerStopThroughInterface(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	var s interface{ Stop() bool } = tm
	stopped := s.Stop()
	active := tm.Reset(time.Millisecond)
	<-tm.C
	t.Errorf("stopped %v, then active %v", stopped, active)
}

// TestTimerResetThroughInterface: a stopped timer reset through an
// interface fires.
func TestTimerResetThroughInterface(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	var r interface{ Reset(time.Duration) bool } = tm
	active := r.Reset(time.Millisecond)
	<-tm.C
	t.Errorf("fired, was active %v", active)
}

// TestTickerStopThroughInterface: a ticker stopped through an interface
// delivers no tick.
func TestTickerStopThroughInterface(t *testing.T) {
	tk := time.NewTicker(time.Millisecond)
	var s interface{ Stop() } = tk
	s.Stop()
	time.Sleep(5 * time.Millisecond)
	select {
	case <-tk.C:
		t.Errorf("ticked")
	default:
		t.Errorf("no tick")
	}
}

type lockerHolder struct {
	sync.Locker
	log []string
}

// TestEmbeddedLockerInterfaceField: a struct embeds a sync.Locker
// interface holding a *sync.Mutex; g.Lock() is promoted through it.
func TestEmbeddedLockerInterfaceField(t *testing.T) {
	g := &lockerHolder{Locker: &sync.Mutex{}}
	done := make(chan bool)
	go func() {
		g.Lock()
		g.log = append(g.log, "g1")
		g.log = append(g.log, "g2")
		g.Unlock()
		close(done)
	}()
	g.Lock()
	g.log = append(g.log, "t")
	g.Unlock()
	<-done
	t.Errorf("%s", strings.Join(g.log, " "))
}

func withLock[L sync.Locker](l L, f func()) {
	l.Lock()
	defer l.Unlock()
	f()
}

// TestGenericLockerTypeParam: critical sections through a function whose
// type parameter is constrained by sync.Locker, instantiated with
// *sync.Mutex and with an RWMutex's RLocker beside its writer.
func TestGenericLockerTypeParam(t *testing.T) {
	var mu sync.Mutex
	var log []string
	done := make(chan bool)
	go func() {
		withLock(&mu, func() {
			log = append(log, "g1")
			log = append(log, "g2")
		})
		close(done)
	}()
	withLock(&mu, func() { log = append(log, "t") })
	<-done
	t.Errorf("%s", strings.Join(log, " "))
}

type guarded[T any] struct {
	mu sync.RWMutex
	v  T
}

func (g *guarded[T]) update(f func(T) T) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.v = f(g.v)
}

func (g *guarded[T]) get() T {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.v
}

// TestGenericGuardedValue: a generic RWMutex-guarded value updated by two
// goroutines with a read-modify-write each, read by the test between: the
// updates never lose each other; the read sees 0, 1, 10 or 11.
func TestGenericGuardedValue(t *testing.T) {
	var g guarded[int]
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); g.update(func(v int) int { return v + 1 }) }()
	go func() { defer wg.Done(); g.update(func(v int) int { return v + 10 }) }()
	mid := g.get()
	wg.Wait()
	t.Errorf("mid %d end %d", mid, g.get())
}

type queue chan int

func (q queue) put(v int) { q <- v }
func (q queue) take() int { return <-q }

// TestNamedChanTypeMethods: two producers put through a named channel
// type's methods; the consumer takes two: either order.
func TestNamedChanTypeMethods(t *testing.T) {
	q := make(queue)
	go q.put(1)
	go q.put(2)
	a := q.take()
	b := q.take()
	t.Errorf("%d %d", a, b)
}

func sendAll[C ~chan E, E any](c C, vs ...E) {
	for _, v := range vs {
		c <- v
	}
}

func firstOf[T any](a, b <-chan T) T {
	select {
	case v := <-a:
		return v
	case v := <-b:
		return v
	}
}

// TestGenericChanHelpers: two goroutines send through a generic helper
// over a named channel type; a generic select takes the first value from
// either.
func TestGenericChanHelpers(t *testing.T) {
	a, b := make(queue), make(queue)
	go sendAll(a, 1, 2)
	go sendAll(b, 10)
	x := firstOf(a, b)
	y := firstOf(a, b)
	// drain what is left
	var rest []int
	for len(rest)+2 < 3 {
		rest = append(rest, firstOf(a, b))
	}
	t.Errorf("%d %d %v", x, y, rest)
}

// TestSelectOperandsEvaluatedOnce: a blocking select's send value and
// channel expressions are evaluated once, on entry, however long it
// waits.
func TestSelectOperandsEvaluatedOnce(t *testing.T) {
	var calls atomic.Int32
	ch := make(chan int)
	other := make(chan int)
	val := func() int { calls.Add(1); return 7 }
	chf := func() chan int { calls.Add(10); return other }
	go func() {
		runtime.Gosched()
		<-ch
	}()
	select {
	case ch <- val():
	case <-chf():
	}
	t.Errorf("calls %d", calls.Load())
}

// TestOnceDoBlockedByOtherCaller: g1's Once function waits for a value g2
// sends after its own Do: if g1 enters first, g2 blocks in Do forever
// (deadlock); if g2 enters first, both return.
func TestOnceDoBlockedByOtherCaller(t *testing.T) {
	var once sync.Once
	ch := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	var ran atomic.Value
	go func() {
		defer wg.Done()
		once.Do(func() { ran.Store("g1"); <-ch })
	}()
	go func() {
		defer wg.Done()
		once.Do(func() { ran.Store("g2") })
		ch <- 1
	}()
	wg.Wait()
	t.Errorf("ran %v", ran.Load())
}

type countingLocker struct {
	mu sync.Mutex
	n  int
}

func (l *countingLocker) Lock()   { l.mu.Lock(); l.n++ }
func (l *countingLocker) Unlock() { l.mu.Unlock() }

// TestCondCustomLocker: a Cond over a user Locker that counts its Lock
// calls: 2 if the waiter found the flag set, 3 if it waited (Wait locks
// again).
func TestCondCustomLocker(t *testing.T) {
	l := &countingLocker{}
	c := sync.NewCond(l)
	ready := false
	done := make(chan bool)
	go func() {
		c.L.Lock()
		for !ready {
			c.Wait()
		}
		c.L.Unlock()
		close(done)
	}()
	c.L.Lock()
	ready = true
	c.Signal()
	c.L.Unlock()
	<-done
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Errorf("locks %d", l.n)
}

// TestCondWaitMethodValue: a waiter's Wait and a signaller's Broadcast
// through method values.
func TestCondWaitMethodValue(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	wait, bcast := c.Wait, c.Broadcast
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for n == 0 {
				wait()
			}
			n++
			mu.Unlock()
		}()
	}
	mu.Lock()
	n = 1
	bcast()
	mu.Unlock()
	wg.Wait()
	t.Errorf("n %d", n)
}

// TestIterSeqProducerBreak: an iter.Seq whose body starts a producer
// goroutine feeding an unbuffered channel and stops it when the consumer
// breaks; how many values the producer counted when the loop ended is 1
// or 2.
func TestIterSeqProducerBreak(t *testing.T) {
	var produced atomic.Int32
	var wg sync.WaitGroup
	seq := func(yield func(int) bool) {
		ch := make(chan int)
		stop := make(chan struct{})
		defer close(stop)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(ch)
			for i := 0; i < 3; i++ {
				select {
				case ch <- i:
					produced.Add(1)
				case <-stop:
					return
				}
			}
		}()
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	}
	for v := range seq {
		if v == 1 {
			break
		}
	}
	n := produced.Load()
	wg.Wait()
	t.Errorf("produced %d", n)
}

// TestIterSeqFanIn: an iter.Seq2 merging two producer goroutines' values
// in arrival order.
func TestIterSeqFanIn(t *testing.T) {
	merge := func(srcs ...[]string) iter.Seq2[int, string] {
		return func(yield func(int, string) bool) {
			ch := make(chan string)
			var wg sync.WaitGroup
			for _, s := range srcs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, v := range s {
						ch <- v
					}
				}()
			}
			go func() { wg.Wait(); close(ch) }()
			i := 0
			for v := range ch {
				if !yield(i, v) {
					for range ch {
					}
					return
				}
				i++
			}
		}
	}
	var out []string
	for i, v := range merge([]string{"a1", "a2"}, []string{"b1"}) {
		out = append(out, fmt.Sprint(i, v))
	}
	t.Errorf("%s", strings.Join(out, " "))
}

// TestRWMutexTryLockBesideReaders: two readers hold the read lock in turn
// around a rendezvous; the test's TryLock and TryRLock at one moment.
func TestRWMutexTryLockBesideReaders(t *testing.T) {
	var rw sync.RWMutex
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw.RLock()
			runtime.Gosched()
			rw.RUnlock()
		}()
	}
	w := rw.TryLock()
	if w {
		rw.Unlock()
	}
	r := rw.TryRLock()
	if r {
		rw.RUnlock()
	}
	wg.Wait()
	t.Errorf("trylock %v tryrlock %v", w, r)
}

// TestRWMutexWriterUnlockWakesReaders: a writer holds the lock while two
// readers queue; at Unlock both readers get in before a second writer
// that queued after them. The readers log in either order, the second
// writer last.
func TestRWMutexWriterUnlockWakesReaders(t *testing.T) {
	var rw sync.RWMutex
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	var readers sync.WaitGroup
	rw.Lock()
	var wg sync.WaitGroup
	for _, name := range []string{"r1", "r2"} {
		wg.Add(1)
		readers.Add(1)
		go func() {
			defer wg.Done()
			readers.Done()
			rw.RLock()
			add(name)
			rw.RUnlock()
		}()
	}
	readers.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		rw.Lock()
		add("w")
		rw.Unlock()
	}()
	rw.Unlock()
	wg.Wait()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestOnceValuesConcurrentCallers: three goroutines call a OnceValues
// function whose f counts its calls; all see the same pair, f runs once.
func TestOnceValuesConcurrentCallers(t *testing.T) {
	var calls atomic.Int32
	var order atomic.Int32
	f := sync.OnceValues(func() (int32, error) {
		calls.Add(1)
		return order.Add(1), nil
	})
	var wg sync.WaitGroup
	res := make([]int32, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, _ := f()
			res[i] = v
		}()
	}
	wg.Wait()
	t.Errorf("calls %d results %v", calls.Load(), res)
}

// TestCondSignalWithoutWaiterThenWait: a Signal with no waiter is lost:
// a waiter that checks no predicate and waits after it sleeps forever
// (deadlock), one that waited before it wakes.
func TestCondSignalWithoutWaiterThenWait(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var waiting atomic.Bool
	done := make(chan bool)
	go func() {
		mu.Lock()
		waiting.Store(true)
		c.Wait()
		mu.Unlock()
		close(done)
	}()
	runtime.Gosched()
	mu.Lock()
	w := waiting.Load()
	c.Signal()
	mu.Unlock()
	if !w {
		t.Errorf("signal before wait")
		return
	}
	<-done
	t.Errorf("woken")
}

// TestAtomicInt32AndOrOld: two goroutines set different bits with Or and
// clear one with And; the old values they return show the order.
func TestAtomicInt32AndOrOld(t *testing.T) {
	var x atomic.Int32
	x.Store(1)
	var a, b int32
	done := make(chan bool)
	go func() {
		a = x.Or(2)
		close(done)
	}()
	b = x.And(^int32(1))
	<-done
	t.Errorf("or old %d and old %d final %d", a, b, x.Load())
}

// TestChanLenWhileTwoSend: two goroutines send one value each into a
// buffered channel; the test reads len twice before receiving both.
func TestChanLenWhileTwoSend(t *testing.T) {
	ch := make(chan int, 2)
	go func() { ch <- 1 }()
	go func() { ch <- 2 }()
	l1 := len(ch)
	l2 := len(ch)
	a, b := <-ch, <-ch
	t.Errorf("len %d %d got %d %d", l1, l2, a, b)
}

// TestContextAfterFuncStopMethodValue: context.AfterFunc's stop called
// through a variable from a goroutine racing the cancel.
func TestContextAfterFuncStopMethodValue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Bool
	stop := context.AfterFunc(ctx, func() { ran.Store(true) })
	res := make(chan bool)
	go func() { res <- stop() }()
	cancel()
	stopped := <-res
	if stopped && ran.Load() {
		t.Errorf("stopped but ran")
	}
	t.Errorf("stopped %v", stopped)
}

// TestOnceFuncRecursiveDeadlock: a OnceFunc's f calls the OnceFunc again
// from a goroutine it waits for: deadlock, whatever the order.
func TestOnceFuncRecursiveDeadlock(t *testing.T) {
	var f func()
	f = sync.OnceFunc(func() {
		done := make(chan bool)
		go func() { f(); close(done) }()
		<-done
	})
	f()
	t.Errorf("returned")
}

// TestSemaphoreChanTwoOfThree: a buffered channel of 2 as a semaphore;
// three workers record how many hold it at once: never 3.
func TestSemaphoreChanTwoOfThree(t *testing.T) {
	sem := make(chan struct{}, 2)
	var cur, peak atomic.Int32
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			cur.Add(-1)
			<-sem
		}()
	}
	wg.Wait()
	t.Errorf("peak %d", peak.Load())
}

// TestGoexitRunsDeferredUnlock: a goroutine holding a lock calls
// runtime.Goexit; its deferred Unlock runs, and the test's Lock then
// succeeds. The test's TryLock before may see it held or free.
func TestGoexitRunsDeferredUnlock(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		defer close(done)
		mu.Lock()
		defer mu.Unlock()
		runtime.Goexit()
	}()
	ok := mu.TryLock()
	if ok {
		mu.Unlock()
	}
	<-done
	mu.Lock()
	mu.Unlock()
	t.Errorf("try %v", ok)
}
