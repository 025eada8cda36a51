package prog

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Thirteenth fidelity audit, first file: the synchronization of
// concurrency libraries real modules import, copied in their shape (the
// corpus is one module without dependencies): golang.org/x/sync's
// semaphore.Weighted (a waiter list, a ready channel closed under the
// lock, the cancel that finds it closed), singleflight (Do, DoChan,
// Forget, the double defer that tells a Goexit from a panic, and
// `go panic(e)`), errgroup (SetLimit, TryGo, the limit changed while
// goroutines are active, WithContext's cause); sourcegraph/conc's panic
// catcher and ordered stream (a channel of channels); an ants-like pool
// without blocking; an LRU over container/list; go-cache's eviction
// callback; a cancelled pipeline; a pub-sub broker; a double-checked
// generic map; a generic blocking queue over a Cond.

// fid13Weighted is x/sync/semaphore.Weighted (v0.16), as written there.
type fid13Weighted struct {
	size    int64
	cur     int64
	mu      sync.Mutex
	waiters list.List
}

type fid13Waiter struct {
	n     int64
	ready chan<- struct{}
}

func fid13NewWeighted(n int64) *fid13Weighted { return &fid13Weighted{size: n} }

func (s *fid13Weighted) Acquire(ctx context.Context, n int64) error {
	done := ctx.Done()
	s.mu.Lock()
	select {
	case <-done:
		s.mu.Unlock()
		return ctx.Err()
	default:
	}
	if s.size-s.cur >= n && s.waiters.Len() == 0 {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	if n > s.size {
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
	ready := make(chan struct{})
	w := fid13Waiter{n: n, ready: ready}
	elem := s.waiters.PushBack(w)
	s.mu.Unlock()
	select {
	case <-done:
		s.mu.Lock()
		select {
		case <-ready:
			s.cur -= n
			s.notifyWaiters()
		default:
			isFront := s.waiters.Front() == elem
			s.waiters.Remove(elem)
			if isFront && s.size > s.cur {
				s.notifyWaiters()
			}
		}
		s.mu.Unlock()
		return ctx.Err()
	case <-ready:
		select {
		case <-done:
			s.Release(n)
			return ctx.Err()
		default:
		}
		return nil
	}
}

func (s *fid13Weighted) TryAcquire(n int64) bool {
	s.mu.Lock()
	success := s.size-s.cur >= n && s.waiters.Len() == 0
	if success {
		s.cur += n
	}
	s.mu.Unlock()
	return success
}

func (s *fid13Weighted) Release(n int64) {
	s.mu.Lock()
	s.cur -= n
	if s.cur < 0 {
		s.mu.Unlock()
		panic("semaphore: released more than held")
	}
	s.notifyWaiters()
	s.mu.Unlock()
}

func (s *fid13Weighted) notifyWaiters() {
	for {
		next := s.waiters.Front()
		if next == nil {
			break
		}
		w := next.Value.(fid13Waiter)
		if s.size-s.cur < w.n {
			break
		}
		s.cur += w.n
		s.waiters.Remove(next)
		close(w.ready)
	}
}

// TestWeightedAcquireVsReleaseThenCancel: the test holds the only unit;
// a goroutine acquires with a context the test cancels just after it
// releases. The goroutine gets the unit (nil) or the context's error;
// either way the unit is free at the end (never "try false").
func TestWeightedAcquireVsReleaseThenCancel(t *testing.T) {
	s := fid13NewWeighted(1)
	if err := s.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error)
	go func() {
		err := s.Acquire(ctx, 1)
		if err == nil {
			s.Release(1)
		}
		res <- err
	}()
	s.Release(1)
	cancel()
	err := <-res
	ok := s.TryAcquire(1)
	t.Errorf("acquire %v, then try %v", err, ok)
}

// TestWeightedNoBarging: with one of two units held, a goroutine asks
// for both and queues; while it is queued a TryAcquire of the free unit
// fails (no barging past a waiter), before it queued it succeeds.
func TestWeightedNoBarging(t *testing.T) {
	s := fid13NewWeighted(2)
	if err := s.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		if err := s.Acquire(context.Background(), 2); err == nil {
			s.Release(2)
		}
		close(done)
	}()
	ok := s.TryAcquire(1)
	s.Release(1)
	if ok {
		s.Release(1)
	}
	<-done
	t.Errorf("try %v", ok)
}

// fid13Group is x/sync/singleflight's Group (its panic error without
// the stack, so that the message is the same in every run).
type fid13Group struct {
	mu sync.Mutex
	m  map[string]*fid13Call
}

type fid13Call struct {
	wg    sync.WaitGroup
	val   any
	err   error
	dups  int
	chans []chan<- fid13Result
}

type fid13Result struct {
	Val    any
	Err    error
	Shared bool
}

var fid13ErrGoexit = errors.New("runtime.Goexit was called")

type fid13PanicError struct{ value any }

func (p *fid13PanicError) Error() string { return fmt.Sprint(p.value) }

func (g *fid13Group) Do(key string, fn func() (any, error)) (any, error, bool) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[string]*fid13Call)
	}
	if c, ok := g.m[key]; ok {
		c.dups++
		g.mu.Unlock()
		c.wg.Wait()
		if e, ok := c.err.(*fid13PanicError); ok {
			panic(e)
		} else if c.err == fid13ErrGoexit {
			runtime.Goexit()
		}
		return c.val, c.err, true
	}
	c := new(fid13Call)
	c.wg.Add(1)
	g.m[key] = c
	g.mu.Unlock()
	g.doCall(c, key, fn)
	return c.val, c.err, c.dups > 0
}

func (g *fid13Group) DoChan(key string, fn func() (any, error)) <-chan fid13Result {
	ch := make(chan fid13Result, 1)
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[string]*fid13Call)
	}
	if c, ok := g.m[key]; ok {
		c.dups++
		c.chans = append(c.chans, ch)
		g.mu.Unlock()
		return ch
	}
	c := &fid13Call{chans: []chan<- fid13Result{ch}}
	c.wg.Add(1)
	g.m[key] = c
	g.mu.Unlock()
	go g.doCall(c, key, fn)
	return ch
}

func (g *fid13Group) doCall(c *fid13Call, key string, fn func() (any, error)) {
	normalReturn := false
	recovered := false
	defer func() {
		if !normalReturn && !recovered {
			c.err = fid13ErrGoexit
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		c.wg.Done()
		if g.m[key] == c {
			delete(g.m, key)
		}
		if e, ok := c.err.(*fid13PanicError); ok {
			if len(c.chans) > 0 {
				go panic(e)
				select {}
			} else {
				panic(e)
			}
		} else if c.err == fid13ErrGoexit {
			// Already Goexiting.
		} else {
			for _, ch := range c.chans {
				ch <- fid13Result{c.val, c.err, c.dups > 0}
			}
		}
	}()
	func() {
		defer func() {
			if !normalReturn {
				if r := recover(); r != nil {
					c.err = &fid13PanicError{value: r}
				}
			}
		}()
		c.val, c.err = fn()
		normalReturn = true
	}()
	if !normalReturn {
		recovered = true
	}
}

func (g *fid13Group) Forget(key string) {
	g.mu.Lock()
	delete(g.m, key)
	g.mu.Unlock()
}

// TestSingleflightDoTwoCallers: two goroutines Do one key. Either the
// second joins the first (one call, both shared) or comes after it (two
// calls, neither shared); never one shared and the other not.
func TestSingleflightDoTwoCallers(t *testing.T) {
	var g fid13Group
	var calls atomic.Int32
	fn := func() (any, error) { calls.Add(1); return "v", nil }
	var shared [2]bool
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, shared[i] = g.Do("k", fn)
		}()
	}
	wg.Wait()
	t.Errorf("calls %d, shared %v %v", calls.Load(), shared[0], shared[1])
}

// TestSingleflightDoChanForget: the test's DoChan call is in flight (its
// function waits); a goroutine forgets the key and then lets the
// function end, while the test calls Do on the key. Do joins the
// forgotten call ("a", shared) or starts its own ("b").
func TestSingleflightDoChanForget(t *testing.T) {
	var g fid13Group
	rel := make(chan bool)
	chA := g.DoChan("k", func() (any, error) { <-rel; return "a", nil })
	go func() {
		g.Forget("k")
		close(rel)
	}()
	vB, _, sharedB := g.Do("k", func() (any, error) { return "b", nil })
	rA := <-chA
	t.Errorf("b got %v shared %v; a got %v shared %v", vB, sharedB, rA.Val, rA.Shared)
}

// TestSingleflightGoexit: the function calls runtime.Goexit. singleflight
// tells it from a panic by its two deferred calls and makes a caller
// that joined Goexit too: neither caller returns from Do.
func TestSingleflightGoexit(t *testing.T) {
	var g fid13Group
	var calls, returned atomic.Int32
	fn := func() (any, error) { calls.Add(1); runtime.Goexit(); return nil, nil }
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.Do("k", fn)
			returned.Add(1)
		}()
	}
	wg.Wait()
	t.Errorf("calls %d, returned %d", calls.Load(), returned.Load())
}

// TestSingleflightDoChanPanic: DoChan's function panics; singleflight
// re-panics on a new goroutine (`go panic(e)`) so that the process
// crashes even though nobody waits on the call.
func TestSingleflightDoChanPanic(t *testing.T) {
	var g fid13Group
	ch := g.DoChan("k", func() (any, error) { panic("fid13 boom") })
	r := <-ch
	t.Errorf("result %v", r)
}

// TestSingleflightDoPanicJoined: a goroutine's Do panics inside the
// function while the test joined the call (the test re-panics) or came
// after it (the test's own call returns).
func TestSingleflightDoPanicJoined(t *testing.T) {
	var g fid13Group
	started := make(chan bool)
	rel := make(chan bool)
	go func() {
		defer func() { recover() }()
		g.Do("k", func() (any, error) {
			close(started)
			<-rel
			panic("fid13 leader")
		})
	}()
	<-started
	go close(rel)
	v, _, _ := g.Do("k", func() (any, error) { return "own", nil })
	t.Errorf("got %v", v)
}

// fid13ErrGroup is x/sync/errgroup's Group (v0.16).
type fid13ErrGroup struct {
	cancel  func(error)
	wg      sync.WaitGroup
	sem     chan struct{}
	errOnce sync.Once
	err     error
}

func fid13WithContext(ctx context.Context) (*fid13ErrGroup, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &fid13ErrGroup{cancel: cancel}, ctx
}

func (g *fid13ErrGroup) done() {
	if g.sem != nil {
		<-g.sem
	}
	g.wg.Done()
}

func (g *fid13ErrGroup) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}

func (g *fid13ErrGroup) run(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.done()
		if err := f(); err != nil {
			g.errOnce.Do(func() {
				g.err = err
				if g.cancel != nil {
					g.cancel(g.err)
				}
			})
		}
	}()
}

func (g *fid13ErrGroup) Go(f func() error) {
	if g.sem != nil {
		g.sem <- struct{}{}
	}
	g.run(f)
}

func (g *fid13ErrGroup) TryGo(f func() error) bool {
	if g.sem != nil {
		select {
		case g.sem <- struct{}{}:
		default:
			return false
		}
	}
	g.run(f)
	return true
}

func (g *fid13ErrGroup) SetLimit(n int) {
	if n < 0 {
		g.sem = nil
		return
	}
	if len(g.sem) != 0 {
		panic(fmt.Errorf("errgroup: modify limit while %v goroutines in the group are still active", len(g.sem)))
	}
	g.sem = make(chan struct{}, n)
}

// TestErrgroupSetLimitTryGo: with a limit of 1, TryGo fails while the
// first function still holds the token and succeeds after it finished.
func TestErrgroupSetLimitTryGo(t *testing.T) {
	var g fid13ErrGroup
	g.SetLimit(1)
	g.Go(func() error { return nil })
	ok := g.TryGo(func() error { return errors.New("second") })
	err := g.Wait()
	t.Errorf("trygo %v, err %v", ok, err)
}

// TestErrgroupSetLimitWhileActive: changing the limit while a function
// still holds a token panics; after it finished, it does not.
func TestErrgroupSetLimitWhileActive(t *testing.T) {
	var g fid13ErrGroup
	g.SetLimit(1)
	g.Go(func() error { return nil })
	g.SetLimit(2)
	t.Errorf("limit changed, wait %v", g.Wait())
}

// TestErrgroupWithContextCause: one function fails; the other waits for
// the group's context and returns its cause: Wait returns the first
// error, and the context's cause is it.
func TestErrgroupWithContextCause(t *testing.T) {
	g, ctx := fid13WithContext(context.Background())
	errA := errors.New("fid13 a failed")
	var seen atomic.Value
	g.Go(func() error {
		<-ctx.Done()
		seen.Store(context.Cause(ctx))
		return ctx.Err()
	})
	g.Go(func() error { return errA })
	err := g.Wait()
	t.Errorf("wait %v, seen %v, cause %v", err, seen.Load(), context.Cause(ctx))
}

// fid13Catcher is sourcegraph/conc's panics.Catcher: the first panic
// recovered wins a CompareAndSwap.
type fid13Catcher struct {
	recovered atomic.Pointer[fid13Recovered]
}

type fid13Recovered struct{ Value any }

func (p *fid13Catcher) Try(f func()) {
	defer p.tryRecover()
	f()
}

func (p *fid13Catcher) tryRecover() {
	if val := recover(); val != nil {
		p.recovered.CompareAndSwap(nil, &fid13Recovered{Value: val})
	}
}

// TestConcWaitGroupFirstPanic: conc's WaitGroup runs two functions that
// panic; WaitAndRecover returns the first recovered, either one.
func TestConcWaitGroupFirstPanic(t *testing.T) {
	var wg sync.WaitGroup
	var pc fid13Catcher
	for _, v := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pc.Try(func() { panic(v) })
		}()
	}
	wg.Wait()
	t.Errorf("recovered %v", pc.recovered.Load().Value)
}

// fid13Stream is conc's stream.Stream: tasks run concurrently, their
// callbacks in submission order, through a queue of one-value channels.
type fid13Stream struct {
	tasks      sync.WaitGroup
	callbacker sync.WaitGroup
	queue      chan chan func()
	initOnce   sync.Once
}

func (s *fid13Stream) init() {
	s.initOnce.Do(func() {
		s.queue = make(chan chan func(), 3)
		s.callbacker.Add(1)
		go func() {
			defer s.callbacker.Done()
			for ch := range s.queue {
				(<-ch)()
			}
		}()
	})
}

func (s *fid13Stream) Go(f func() func()) {
	s.init()
	ch := make(chan func(), 1)
	s.queue <- ch
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		ch <- f()
	}()
}

func (s *fid13Stream) Wait() {
	s.init()
	s.tasks.Wait()
	close(s.queue)
	s.callbacker.Wait()
}

// TestConcStreamCallbacksInOrder: two tasks run in either order; their
// callbacks always run in submission order (never "cb b a").
func TestConcStreamCallbacksInOrder(t *testing.T) {
	var s fid13Stream
	var mu sync.Mutex
	var ran, cbs []string
	for _, name := range []string{"a", "b"} {
		s.Go(func() func() {
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			return func() { cbs = append(cbs, name) }
		})
	}
	s.Wait()
	t.Errorf("ran %s, cb %s", strings.Join(ran, " "), strings.Join(cbs, " "))
}

// fid13Pool is an ants-like pool of capacity cap that does not block:
// Submit fails with fid13ErrOverload when every worker is busy.
type fid13Pool struct {
	mu      sync.Mutex
	running int
	cap     int
	wg      sync.WaitGroup
}

var fid13ErrOverload = errors.New("too many goroutines blocked on submit or Nonblocking is set")

func (p *fid13Pool) Submit(task func()) error {
	p.mu.Lock()
	if p.running >= p.cap {
		p.mu.Unlock()
		return fid13ErrOverload
	}
	p.running++
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() {
			p.mu.Lock()
			p.running--
			p.mu.Unlock()
		}()
		task()
	}()
	return nil
}

// TestPoolNonblockingOverload: a pool of one worker; the second Submit
// is refused while the first task runs and accepted after it.
func TestPoolNonblockingOverload(t *testing.T) {
	p := &fid13Pool{cap: 1}
	var n atomic.Int32
	if err := p.Submit(func() { n.Add(1) }); err != nil {
		t.Fatal(err)
	}
	err := p.Submit(func() { n.Add(1) })
	p.wg.Wait()
	t.Errorf("second %v, ran %d", err, n.Load())
}

// fid13LRU is a two-entry LRU cache over container/list, under a mutex.
type fid13LRU struct {
	mu    sync.Mutex
	ll    *list.List
	items map[string]*list.Element
	size  int
}

func fid13NewLRU(size int) *fid13LRU {
	return &fid13LRU{ll: list.New(), items: map[string]*list.Element{}, size: size}
}

func (c *fid13LRU) Add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(k)
	if c.ll.Len() > c.size {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(string))
	}
}

func (c *fid13LRU) Get(k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if ok {
		c.ll.MoveToFront(e)
	}
	return ok
}

func (c *fid13LRU) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ks []string
	for e := c.ll.Front(); e != nil; e = e.Next() {
		ks = append(ks, e.Value.(string))
	}
	return ks
}

// TestLRUGetVsAddEviction: a and b cached (b the most recent); a
// goroutine reads a (promoting it) while another adds c (evicting the
// least recent). A hit keeps a and evicts b; a miss means a was evicted.
func TestLRUGetVsAddEviction(t *testing.T) {
	c := fid13NewLRU(2)
	c.Add("a")
	c.Add("b")
	hit := make(chan bool)
	done := make(chan bool)
	go func() { hit <- c.Get("a") }()
	go func() { c.Add("c"); close(done) }()
	h := <-hit
	<-done
	t.Errorf("hit %v, keys %v", h, c.Keys())
}

// fid13Cache is go-cache's Delete: the item is removed under the lock
// and the eviction callback runs after it is released.
type fid13Cache struct {
	mu        sync.RWMutex
	items     map[string]int
	onEvicted func(string, int)
}

func (c *fid13Cache) Set(k string, v int) {
	c.mu.Lock()
	c.items[k] = v
	c.mu.Unlock()
}

func (c *fid13Cache) Delete(k string) {
	c.mu.Lock()
	v, evicted := c.delete(k)
	c.mu.Unlock()
	if evicted {
		c.onEvicted(k, v)
	}
}

func (c *fid13Cache) delete(k string) (int, bool) {
	if c.onEvicted != nil {
		if v, found := c.items[k]; found {
			delete(c.items, k)
			return v, true
		}
	}
	delete(c.items, k)
	return 0, false
}

func (c *fid13Cache) Get(k string) (int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.items[k]
	return v, ok
}

// TestCacheDeleteDeleteSet: k cached; two goroutines delete it and a
// third sets it again. The callback runs once or twice (twice only if
// the set came between the deletes), and k is present at the end only
// if the set came last.
func TestCacheDeleteDeleteSet(t *testing.T) {
	var evicted atomic.Int32
	c := &fid13Cache{items: map[string]int{"k": 1}, onEvicted: func(string, int) { evicted.Add(1) }}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); c.Delete("k") }()
	go func() { defer wg.Done(); c.Delete("k") }()
	go func() { defer wg.Done(); c.Set("k", 2) }()
	wg.Wait()
	_, ok := c.Get("k")
	t.Errorf("evicted %d, present %v", evicted.Load(), ok)
}

// TestPipelineCancelAfterFirst: generator and squarer stages over
// unbuffered channels, stopped by a context the consumer cancels after
// its first value. The generator sent 1 or 2 values.
func TestPipelineCancelAfterFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var sent atomic.Int32
	var wg sync.WaitGroup
	nums := make(chan int)
	sq := make(chan int)
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(nums)
		for i := 1; ; i++ {
			select {
			case nums <- i:
				sent.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		defer close(sq)
		for v := range nums {
			select {
			case sq <- v * v:
			case <-ctx.Done():
				return
			}
		}
	}()
	first := <-sq
	cancel()
	wg.Wait()
	t.Errorf("first %d, sent %d", first, sent.Load())
}

// fid13Broker is a pub-sub broker: subscribers' channels in a map under
// a mutex; Publish drops a message a full subscriber cannot take.
type fid13Broker struct {
	mu   sync.Mutex
	subs map[int]chan string
}

func (b *fid13Broker) Publish(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- msg:
		default:
		}
	}
}

func (b *fid13Broker) Unsubscribe(id int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ch, ok := b.subs[id]; ok {
		delete(b.subs, id)
		close(ch)
	}
}

// TestBrokerPublishVsUnsubscribe: a publish and an unsubscribe race; the
// subscriber gets the message and then the close, or the close alone
// (never a send on the closed channel).
func TestBrokerPublishVsUnsubscribe(t *testing.T) {
	b := &fid13Broker{subs: map[int]chan string{1: make(chan string, 1)}}
	ch := b.subs[1]
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); b.Publish("m") }()
	go func() { defer wg.Done(); b.Unsubscribe(1) }()
	var got []string
	for m := range ch {
		got = append(got, m)
	}
	wg.Wait()
	t.Errorf("got %v", got)
}

// fid13Lazy is a generic map computed on demand with double-checked
// locking (a read-locked look, then a write-locked look and compute).
type fid13Lazy[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func (l *fid13Lazy[K, V]) Get(k K, f func(K) V) V {
	l.mu.RLock()
	v, ok := l.m[k]
	l.mu.RUnlock()
	if ok {
		return v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.m[k]; ok {
		return v
	}
	v = f(k)
	l.m[k] = v
	return v
}

// TestGenericLazyDoubleChecked: two goroutines get one key; the
// function is computed once (never twice), and both see its value.
func TestGenericLazyDoubleChecked(t *testing.T) {
	l := &fid13Lazy[string, int]{m: map[string]int{}}
	var computes atomic.Int32
	f := func(string) int { return int(computes.Add(1)) }
	res := make(chan int, 2)
	for range 2 {
		go func() { res <- l.Get("x", f) }()
	}
	a, b := <-res, <-res
	t.Errorf("computes %d, got %d %d", computes.Load(), a, b)
}

// fid13Queue is a generic blocking queue over a Cond; Close wakes every
// waiting Pop.
type fid13Queue[T any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	closed bool
}

func fid13NewQueue[T any]() *fid13Queue[T] {
	q := &fid13Queue[T]{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *fid13Queue[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *fid13Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *fid13Queue[T]) Pop() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

// TestGenericQueueTwoConsumers: the test pushes 1 and 2 and closes; two
// consumers pop until closed. Each item is taken once, by either.
func TestGenericQueueTwoConsumers(t *testing.T) {
	q := fid13NewQueue[int]()
	got := make([][]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				v, ok := q.Pop()
				if !ok {
					return
				}
				got[i] = append(got[i], v)
			}
		}()
	}
	q.Push(1)
	q.Push(2)
	q.Close()
	wg.Wait()
	all := append(append([]int(nil), got[0]...), got[1]...)
	sort.Ints(all)
	t.Errorf("c0 %v c1 %v, all %v", got[0], got[1], all)
}

// TestWeightedAcquireTooLargeCancelled: a request larger than the
// semaphore waits for its context only, whenever the cancel comes.
func TestWeightedAcquireTooLargeCancelled(t *testing.T) {
	s := fid13NewWeighted(2)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error)
	go func() { res <- s.Acquire(ctx, 3) }()
	cancel()
	err := <-res
	t.Errorf("acquire %v, try %v", err, s.TryAcquire(2))
}

// TestSingleflightTwoDoChan: the test and a goroutine call DoChan on one
// key; both channels get the result, shared if the calls overlapped.
func TestSingleflightTwoDoChan(t *testing.T) {
	var g fid13Group
	var calls atomic.Int32
	fn := func() (any, error) { return calls.Add(1), nil }
	res := make(chan fid13Result)
	go func() { res <- <-g.DoChan("k", fn) }()
	a := <-g.DoChan("k", fn)
	b := <-res
	t.Errorf("calls %d, shared %v %v", calls.Load(), a.Shared, b.Shared)
}

// TestErrgroupLimitBlocksGo: with a limit of 1, the second Go waits for
// the first function's token: the functions run in order (never "21").
func TestErrgroupLimitBlocksGo(t *testing.T) {
	var g fid13ErrGroup
	g.SetLimit(1)
	var mu sync.Mutex
	var order []string
	for _, s := range []string{"1", "2"} {
		g.Go(func() error {
			mu.Lock()
			order = append(order, s)
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	t.Errorf("order %s", strings.Join(order, ""))
}

// TestMergedContextsViaAfterFunc: a context merged with another by
// context.AfterFunc (cancel this one with the other's cause when the
// other is done), as libraries merge a request's and a server's
// contexts: a goroutine cancels the other with a cause; this one ends
// with it.
func TestMergedContextsViaAfterFunc(t *testing.T) {
	a, cancelA := context.WithCancelCause(context.Background())
	b, cancelB := context.WithCancelCause(context.Background())
	defer cancelA(nil)
	stop := context.AfterFunc(b, func() { cancelA(context.Cause(b)) })
	defer stop()
	go cancelB(errors.New("fid13 server stopping"))
	<-a.Done()
	t.Errorf("err %v, cause %v", a.Err(), context.Cause(a))
}

// TestErrgroupSetLimitWhileActiveRecovered: TestErrgroupSetLimitWhileActive
// with the panic recovered and reported as a failure. SetLimit reads
// len(g.sem) twice (the check and the message): the function's token
// can be given back between them ("while 0 goroutines"). heddle reports
// one panic per place, so the panicking program shows heddle's search
// reaching one of the two messages; this one shows both.
func TestErrgroupSetLimitWhileActiveRecovered(t *testing.T) {
	var g fid13ErrGroup
	g.SetLimit(1)
	g.Go(func() error { return nil })
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("recovered %v", r)
			}
		}()
		g.SetLimit(2)
	}()
	g.Wait()
}
