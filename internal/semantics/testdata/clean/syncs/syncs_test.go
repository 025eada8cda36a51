// Package syncs: the sync package, including embedded and promoted
// mutexes, sync.Locker values, method values and method expressions.
package syncs

import (
	"sync"
	"testing"
)

type counter struct {
	sync.Mutex
	n int
}

func (c *counter) inc() {
	c.Lock()
	defer c.Unlock()
	c.n++
}

type store struct {
	mu sync.RWMutex
	m  map[string]int
}

func (s *store) get(k string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[k]
}

func (s *store) put(k string, v int) {
	s.mu.Lock()
	s.m[k] = v
	s.mu.Unlock()
}

type outer struct{ counter }

func TestMutexAndWaitGroup(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Fatal(n)
	}
}

func TestEmbeddedAndPromoted(t *testing.T) {
	c := &counter{}
	o := &outer{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.inc(); o.Lock(); o.n++; o.Unlock() }()
	go func() { defer wg.Done(); c.inc(); o.counter.inc() }()
	wg.Wait()
	if c.n != 2 || o.n != 2 {
		t.Fatal(c.n, o.n)
	}
}

func TestRWMutex(t *testing.T) {
	s := &store{m: map[string]int{}}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.put("a", 1) }()
	go func() { defer wg.Done(); _ = s.get("a") }()
	go func() { defer wg.Done(); _ = s.get("b") }()
	wg.Wait()
	if s.get("a") != 1 {
		t.Fatal("lost write")
	}
	rl := s.mu.RLocker()
	rl.Lock()
	ok := s.mu.TryRLock()
	rl.Unlock()
	if !ok {
		t.Fatal("TryRLock under a read lock failed")
	}
	s.mu.RUnlock()
	if !s.mu.TryLock() {
		t.Fatal("TryLock failed")
	}
	s.mu.Unlock()
}

func TestLockerValues(t *testing.T) {
	var mu sync.Mutex
	c := &counter{}
	lockers := []sync.Locker{&mu, c, new(sync.RWMutex)}
	var wg sync.WaitGroup
	for _, l := range lockers {
		wg.Add(2)
		for i := 0; i < 2; i++ {
			go func() {
				defer wg.Done()
				l.Lock()
				l.Unlock()
			}()
		}
	}
	wg.Wait()
	c.Lock() // the same mutex as the Locker calls used
	c.Unlock()
}

func TestMethodValuesAndExpressions(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	lock, unlock := mu.Lock, mu.Unlock
	add := (*sync.WaitGroup).Add
	n := 0
	for i := 0; i < 2; i++ {
		add(&wg, 1)
		go func() {
			defer wg.Done()
			lock()
			n++
			(*sync.Mutex).Unlock(&mu)
			(*sync.Mutex).Lock(&mu)
			unlock()
		}()
	}
	(*sync.WaitGroup).Wait(&wg)
	var l sync.Locker = &mu
	sync.Locker.Lock(l)
	mu.Unlock()
	run(mu.Lock)
	run(mu.Unlock)
	if n != 2 {
		t.Fatal(n)
	}
}

func run(f func()) { f() }

func TestOnce(t *testing.T) {
	var once sync.Once
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(func() { n++ })
		}()
	}
	wg.Wait()
	if n != 1 {
		t.Fatal(n)
	}
}

func TestOnceFuncValue(t *testing.T) {
	calls := 0
	f := sync.OnceFunc(func() { calls++ })
	v := sync.OnceValue(func() int { calls++; return 42 })
	vs := sync.OnceValues(func() (int, error) { calls++; return 1, nil })
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
			if v() != 42 {
				panic("OnceValue")
			}
			if a, err := vs(); a != 1 || err != nil {
				panic("OnceValues")
			}
		}()
	}
	wg.Wait()
	if calls != 3 {
		t.Fatal(calls)
	}
}

func TestWaitGroupGo(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for i := 0; i < 3; i++ {
		wg.Go(func() {
			mu.Lock()
			n += i
			mu.Unlock()
		})
	}
	wg.Wait()
	if n != 3 {
		t.Fatal(n)
	}
}

type queue struct {
	sync.Mutex
	items []int
	cond  *sync.Cond
}

func TestCond(t *testing.T) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	ready := false
	done := make(chan bool)
	go func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	ready = true
	c.Broadcast()
	mu.Unlock()
	<-done
}

func TestCondEmbeddedLocker(t *testing.T) {
	q := &queue{}
	q.cond = sync.NewCond(q)
	go func() {
		q.Lock()
		q.items = append(q.items, 1)
		q.Unlock()
		q.cond.Signal()
	}()
	q.Lock()
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	q.Unlock()
}

func TestSyncMap(t *testing.T) {
	var m sync.Map
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Store(i, i*i)
			m.LoadOrStore("k", i)
		}()
	}
	wg.Wait()
	n := 0
	m.Range(func(k, v any) bool { n++; return true })
	if n != 4 {
		t.Fatal(n)
	}
	if v, ok := m.Load(2); !ok || v != 4 {
		t.Fatal(v, ok)
	}
}
