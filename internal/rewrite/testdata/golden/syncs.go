package syncs

import "sync"

type Counter struct {
	sync.Mutex
	n int
}

type Ptrs struct {
	*sync.RWMutex
	wg *sync.WaitGroup
}

type Cache struct {
	mu    sync.RWMutex
	items sync.Map
	once  sync.Once
	cond  *sync.Cond
}

func (c *Counter) Inc() {
	c.Lock()
	defer c.Unlock()
	c.n++
}

func locks(mu *sync.Mutex, rw *sync.RWMutex, l sync.Locker, c *Cache, p Ptrs) bool {
	var local sync.Mutex
	local.Lock()
	local.Unlock()
	mu.Lock()
	ok := mu.TryLock()
	mu.Unlock()
	rw.RLock()
	rw.RUnlock()
	rw.Lock()
	rw.Unlock()
	ok = rw.TryLock() || rw.TryRLock()
	rl := rw.RLocker()
	rl.Lock()
	rl.Unlock()
	l.Lock()
	defer l.Unlock()
	c.mu.Lock()
	c.mu.Unlock()
	p.RLock()
	p.RUnlock()
	p.wg.Wait()
	unlock := mu.Unlock
	mu.Lock()
	unlock()
	try := c.mu.TryRLock
	_ = try
	return ok
}

func waitgroups(n int) {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
		}()
	}
	wg.Go(func() {})
	done := wg.Done
	_ = done
	wg.Wait()
}

func onces(c *Cache) (int, error) {
	c.once.Do(func() {})
	f := sync.OnceFunc(func() {})
	f()
	v := sync.OnceValue(func() int { return 1 })
	w := sync.OnceValues(func() (int, error) { return 2, nil })
	x, err := w()
	g := sync.OnceValue[string]
	_ = g
	return v() + x, err
}

func conds(c *Cache) {
	c.cond = sync.NewCond(&c.mu)
	c.cond.L.Lock()
	for {
		c.cond.Wait()
		break
	}
	c.cond.L.Unlock()
	c.cond.Signal()
	c.cond.Broadcast()
}

func maps(c *Cache) int {
	c.items.Store("a", 1)
	v, ok := c.items.Load("a")
	c.items.LoadOrStore("b", 2)
	c.items.Delete("b")
	c.items.LoadAndDelete("a")
	c.items.Swap("c", 3)
	c.items.CompareAndSwap("c", 3, 4)
	c.items.CompareAndDelete("c", 4)
	n := 0
	c.items.Range(func(k, v any) bool { n++; return true })
	c.items.Clear()
	var m sync.Map
	m.Store(1, 1)
	if ok {
		return v.(int) + n
	}
	return n
}

func generic[L sync.Locker](l L) {
	l.Lock()
	l.Unlock()
}

// A sync.Pool is the run's own during a run.
type workers struct {
	cache sync.Pool
}

func (w *workers) get(p *sync.Pool) any {
	v := w.cache.Get()
	w.cache.Put(v)
	p.Put(p.Get())
	return v
}
