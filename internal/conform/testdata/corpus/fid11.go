package prog

import (
	"fmt"
	"iter"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Eleventh fidelity audit: iter.Pull and iter.Pull2 whose iterators
// block, lock or log beside other goroutines, goroutines started in a
// range-over-func loop's body, WaitGroup.Go nested and waited on twice,
// sync.Map CompareAndSwap chains, Clear and Swap against Range and
// CompareAndDelete, atomic.Bool/Uint32/Uintptr/Pointer claims and
// lock-free pushes, selects over channels that become non-nil, channels
// of channels, a channel used as a semaphore, and Goexit with a lock
// held across an iterator.

// TestIterPull2LogsBesideGoroutine: an iter.Pull2 iterator logs before
// each yield; a goroutine logs once; where its line falls among the
// iterator's is the scheduler's.
func TestIterPull2LogsBesideGoroutine(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	done := make(chan bool)
	go func() {
		add("g")
		close(done)
	}()
	next, stop := iter.Pull2(func(yield func(string, int) bool) {
		for i := 0; i < 2; i++ {
			add(fmt.Sprint("i", i))
			if !yield("k", i) {
				return
			}
		}
	})
	k, v, ok := next()
	add(fmt.Sprint(k, v, ok))
	next()
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestIterPullIteratorBlocksOnChannel: the iterator's body receives from
// a channel a goroutine sends two values on; after the first next, the
// caller polls how many values wait in the channel.
func TestIterPullIteratorBlocksOnChannel(t *testing.T) {
	ch := make(chan int, 2)
	go func() {
		ch <- 1
		ch <- 2
	}()
	next, stop := iter.Pull(func(yield func(int) bool) {
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	})
	defer stop()
	v, _ := next()
	n := len(ch)
	w, _ := next()
	t.Errorf("got %d, %d waiting, then %d", v, n, w)
}

// TestIterPullLockHeldAcrossYield: the iterator holds a mutex across its
// yield and releases it when resumed; a goroutine's TryLock fails while
// the caller holds a value and succeeds before the first next or after
// stop.
func TestIterPullLockHeldAcrossYield(t *testing.T) {
	var mu sync.Mutex
	next, stop := iter.Pull(func(yield func(int) bool) {
		mu.Lock()
		defer mu.Unlock()
		yield(1)
	})
	res := make(chan bool)
	go func() {
		ok := mu.TryLock()
		if ok {
			mu.Unlock()
		}
		res <- ok
	}()
	next()
	stop()
	t.Errorf("trylock %v", <-res)
}

// TestIterPullNextOnTwoGoroutinesInTurn: a goroutine takes the first
// value and hands next to the test goroutine over a channel; a third
// goroutine logs once, anywhere among them.
func TestIterPullNextOnTwoGoroutinesInTurn(t *testing.T) {
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 1; i <= 2; i++ {
			if !yield(i) {
				return
			}
		}
	})
	turn := make(chan bool)
	go func() {
		v, _ := next()
		add(fmt.Sprint("a", v))
		turn <- true
	}()
	done := make(chan bool)
	go func() {
		add("x")
		close(done)
	}()
	<-turn
	v, _ := next()
	add(fmt.Sprint("b", v))
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestIterPullStopRunsDeferBeforeOther: stop runs the iterator's deferred
// call, which sets a flag a goroutine polls once.
func TestIterPullStopRunsDeferBeforeOther(t *testing.T) {
	var flag atomic.Bool
	next, stop := iter.Pull(func(yield func(int) bool) {
		defer flag.Store(true)
		for i := 0; ; i++ {
			if !yield(i) {
				return
			}
		}
	})
	next()
	res := make(chan bool)
	go func() { res <- flag.Load() }()
	stop()
	t.Errorf("goroutine saw defer done %v", <-res)
}

// TestRangeFuncGoInBody: each iteration of a range-over-func loop starts
// a goroutine that adds its value to a counter; the iterator records the
// counter after each yield returns.
func TestRangeFuncGoInBody(t *testing.T) {
	var sum atomic.Int32
	var seen []int32
	var wg sync.WaitGroup
	seq := func(yield func(int32) bool) {
		for i := int32(1); i <= 2; i++ {
			if !yield(i) {
				return
			}
			seen = append(seen, sum.Load())
		}
	}
	for v := range seq {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum.Add(v)
		}()
	}
	wg.Wait()
	t.Errorf("seen %v", seen)
}

// TestRangeFuncBreakDeferVsGoroutine: breaking out of a range-over-func
// loop runs the iterator's deferred close; a goroutine started in the
// body polls the closed channel once.
func TestRangeFuncBreakDeferVsGoroutine(t *testing.T) {
	closed := make(chan struct{})
	seq := func(yield func(int) bool) {
		defer close(closed)
		for i := 0; ; i++ {
			if !yield(i) {
				return
			}
		}
	}
	res := make(chan string, 1)
	for v := range seq {
		if v == 1 {
			go func() {
				select {
				case <-closed:
					res <- "closed"
				default:
					res <- "open"
				}
			}()
			break
		}
	}
	t.Errorf("goroutine saw %s", <-res)
}

// TestWaitGroupGoNested: a function started by WaitGroup.Go starts
// another with the same WaitGroup while the test waits; the order of
// their ends is the scheduler's, and Wait returns after both.
func TestWaitGroupGoNested(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var log []string
	add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	wg.Go(func() {
		wg.Go(func() { add("inner") })
		add("outer")
	})
	wg.Wait()
	t.Errorf("%s", strings.Join(log, " "))
}

// TestWaitGroupGoTwoWaiters: two goroutines wait on a WaitGroup whose two
// functions run with Go; the order the waiters report in is the
// scheduler's, and each sees both functions done.
func TestWaitGroupGoTwoWaiters(t *testing.T) {
	var wg sync.WaitGroup
	var n atomic.Int32
	wg.Go(func() { n.Add(1) })
	wg.Go(func() { n.Add(1) })
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			wg.Wait()
			res <- fmt.Sprint(name, n.Load())
		}()
	}
	t.Errorf("%s %s", <-res, <-res)
}

// TestSyncMapCASChain: three goroutines each try one CompareAndSwap of a
// chain 0->1, 1->2, 2->3; the final value and who succeeded depend on
// the order.
func TestSyncMapCASChain(t *testing.T) {
	var m sync.Map
	m.Store("k", 0)
	var wg sync.WaitGroup
	var ok [3]bool
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok[i] = m.CompareAndSwap("k", i, i+1)
		}()
	}
	wg.Wait()
	v, _ := m.Load("k")
	t.Errorf("final %v, swapped %v", v, ok)
}

// TestSyncMapClearVsCompareAndDelete: Clear races CompareAndDelete of the
// one key and a Store of another.
func TestSyncMapClearVsCompareAndDelete(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	var wg sync.WaitGroup
	var deleted bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		m.Clear()
	}()
	go func() {
		defer wg.Done()
		deleted = m.CompareAndDelete("a", 1)
		m.Store("b", 2)
	}()
	wg.Wait()
	var keys []string
	m.Range(func(k, v any) bool {
		keys = append(keys, k.(string))
		return true
	})
	sort.Strings(keys)
	t.Errorf("deleted %v, left %v", deleted, keys)
}

// TestSyncMapSwapVsRange: a Range over two keys races a Swap of one and
// the Store of a third.
func TestSyncMapSwapVsRange(t *testing.T) {
	var m sync.Map
	m.Store("a", 1)
	m.Store("b", 1)
	done := make(chan any)
	go func() {
		prev, _ := m.Swap("a", 2)
		m.Store("c", 3)
		done <- prev
	}()
	var got []string
	m.Range(func(k, v any) bool {
		got = append(got, fmt.Sprint(k, v))
		return true
	})
	sort.Strings(got)
	prev := <-done
	t.Errorf("range %v, swapped %v", got, prev)
}

// TestSyncMapLoadAndDeleteVsLoadOrStore: LoadAndDelete races
// LoadOrStore of the same key.
func TestSyncMapLoadAndDeleteVsLoadOrStore(t *testing.T) {
	var m sync.Map
	m.Store("k", 1)
	res := make(chan string)
	go func() {
		v, loaded := m.LoadOrStore("k", 2)
		res <- fmt.Sprint(v, loaded)
	}()
	v, loaded := m.LoadAndDelete("k")
	other := <-res
	last, ok := m.Load("k")
	t.Errorf("deleted %v %v, loadorstore %s, left %v %v", v, loaded, other, last, ok)
}

// TestAtomicBoolCASClaim: three goroutines claim a flag with
// CompareAndSwap; one wins.
func TestAtomicBoolCASClaim(t *testing.T) {
	var claimed atomic.Bool
	var winner atomic.Value
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if claimed.CompareAndSwap(false, true) {
				winner.Store(name)
			}
		}()
	}
	wg.Wait()
	t.Errorf("winner %v", winner.Load())
}

// TestAtomicUint32OrBits: three goroutines set their bit with Or, which
// returns the bits before; each learns who came before it.
func TestAtomicUint32OrBits(t *testing.T) {
	var bits atomic.Uint32
	var before [3]uint32
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			before[i] = bits.Or(1 << i)
		}()
	}
	wg.Wait()
	t.Errorf("before %v", before)
}

// TestAtomicUintptrCASLoopTwo: two goroutines add 1 and 10 with a
// Load/CompareAndSwap loop; the sum is always 11, and the second value
// the first loader saw tells whether its first CAS failed.
func TestAtomicUintptrCASLoopTwo(t *testing.T) {
	var v atomic.Uintptr
	var tries [2]int
	var wg sync.WaitGroup
	for i, d := range []uintptr{1, 10} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				tries[i]++
				old := v.Load()
				if v.CompareAndSwap(old, old+d) {
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Errorf("sum %d, tries %v", v.Load(), tries)
}

type node11 struct {
	v    string
	next *node11
}

// TestAtomicPointerStackPushPop: two goroutines push onto a lock-free
// stack; a third pops once, before, between or after them.
func TestAtomicPointerStackPushPop(t *testing.T) {
	var top atomic.Pointer[node11]
	push := func(v string) {
		n := &node11{v: v}
		for {
			old := top.Load()
			n.next = old
			if top.CompareAndSwap(old, n) {
				return
			}
		}
	}
	pop := func() string {
		for {
			old := top.Load()
			if old == nil {
				return "empty"
			}
			if top.CompareAndSwap(old, old.next) {
				return old.v
			}
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); push("a") }()
	go func() { defer wg.Done(); push("b") }()
	got := pop()
	wg.Wait()
	t.Errorf("popped %s", got)
}

// TestAtomicBoolSwapFirstDoesWork: two goroutines Swap a flag to true;
// the one that saw false does the work, and a third reads the flag once.
func TestAtomicBoolSwapFirstDoesWork(t *testing.T) {
	var flag atomic.Bool
	var worker atomic.Value
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !flag.Swap(true) {
				worker.Store(name)
			}
		}()
	}
	early := flag.Load()
	wg.Wait()
	t.Errorf("worker %v, early %v", worker.Load(), early)
}

// TestSelectChanBecomesNonNil: a goroutine publishes a channel under a
// lock and sends on it; the test takes the channel once under the lock
// and selects on it with a default: nil, not ready, or the value.
func TestSelectChanBecomesNonNil(t *testing.T) {
	var mu sync.Mutex
	var in chan int
	sent := make(chan bool)
	go func() {
		c := make(chan int, 1)
		mu.Lock()
		in = c
		mu.Unlock()
		c <- 7
		close(sent)
	}()
	mu.Lock()
	c := in
	mu.Unlock()
	var got string
	select {
	case v := <-c:
		got = fmt.Sprint("value ", v)
	default:
		got = fmt.Sprint("default, nil ", c == nil)
	}
	<-sent
	t.Errorf("%s", got)
}

// TestSelectNilSendAndRecvWithReady: a select whose send and receive
// cases are on nil channels and whose third case waits for a goroutine's
// send, with a default: the default or the value.
func TestSelectNilSendAndRecvWithReady(t *testing.T) {
	var nilSend, nilRecv chan int
	ready := make(chan int)
	go func() {
		select {
		case ready <- 1:
		default:
		}
	}()
	runtime.Gosched()
	var got string
	select {
	case nilSend <- 1:
		got = "nil send"
	case <-nilRecv:
		got = "nil recv"
	case v := <-ready:
		got = fmt.Sprint("value ", v)
	default:
		got = "default"
	}
	t.Errorf("%s", got)
}

// TestChanOfChansTwoClients: two clients send their reply channels to a
// server that answers with a sequence number; who gets 1 is the
// scheduler's.
func TestChanOfChansTwoClients(t *testing.T) {
	reqs := make(chan chan int, 2)
	go func() {
		for i := 1; i <= 2; i++ {
			r := <-reqs
			r <- i
		}
	}()
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			r := make(chan int)
			reqs <- r
			res <- fmt.Sprint(name, <-r)
		}()
	}
	got := []string{<-res, <-res}
	sort.Strings(got)
	t.Errorf("%s %s", got[0], got[1])
}

// TestChanOfChansSelectInner: a select waits on a channel of channels and
// on a channel a goroutine sends on through it.
func TestChanOfChansSelectInner(t *testing.T) {
	outer := make(chan chan string, 1)
	inner := make(chan string, 1)
	go func() {
		outer <- inner
		inner <- "v"
	}()
	var got []string
	var in chan string
	for len(got) < 2 {
		select {
		case c := <-outer:
			in = c
			got = append(got, "outer")
		case v := <-in:
			got = append(got, v)
		}
	}
	t.Errorf("%s", strings.Join(got, " "))
}

// TestChanLenAfterReceive: the receiver of a buffered channel reads len
// right after its first receive, while two senders each send one value.
func TestChanLenAfterReceive(t *testing.T) {
	ch := make(chan int, 2)
	go func() { ch <- 1 }()
	go func() { ch <- 2 }()
	v := <-ch
	n := len(ch)
	w := <-ch
	t.Errorf("first %d, len %d, sum %d", v, n, v+w)
}

// TestChanSemaphoreTryAcquire: three goroutines try to take a one-slot
// semaphore with a non-blocking send and release it after; how many got
// it depends on the overlap.
func TestChanSemaphoreTryAcquire(t *testing.T) {
	sem := make(chan struct{}, 1)
	var got atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				got.Add(1)
				<-sem
			default:
			}
		}()
	}
	wg.Wait()
	t.Errorf("acquired %d", got.Load())
}

// TestGoexitHoldingIteratorLock: a goroutine takes a value from an
// iter.Pull iterator that holds a lock across its yield, then calls
// Goexit, whose deferred stop releases it; the test's TryLock polls the
// lock once.
func TestGoexitHoldingIteratorLock(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	started := make(chan bool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		next, stop := iter.Pull(func(yield func(int) bool) {
			mu.Lock()
			defer mu.Unlock()
			yield(1)
		})
		defer stop()
		next()
		started <- true
		runtime.Goexit()
	}()
	<-started
	ok := mu.TryLock()
	if ok {
		mu.Unlock()
	}
	wg.Wait()
	t.Errorf("trylock %v", ok)
}

// TestOnceValueInIteratorFromGoroutines: two goroutines range over an
// iterator that records its caller and then yields a OnceValue's value,
// which is the caller recorded last when the first call ran it.
func TestOnceValueInIteratorFromGoroutines(t *testing.T) {
	var last atomic.Value
	get := sync.OnceValue(func() string { return last.Load().(string) })
	seq := func(name string) iter.Seq[string] {
		return func(yield func(string) bool) {
			last.Store(name)
			yield(get())
		}
	}
	res := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			for v := range seq(name) {
				res <- v
			}
		}()
	}
	a, b := <-res, <-res
	t.Errorf("value %s %s", a, b)
}
