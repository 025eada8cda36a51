package ifacesync

import (
	"sync"
	"sync/atomic"
	"time"
)

type doner interface{ Done() }

type waitGroup interface {
	Add(int)
	Done()
	Wait()
}

type holder struct {
	doner
	name string
}

// Methods of sync and time types called through interfaces: rt decides
// by the dynamic type.
func interfaces(wg *sync.WaitGroup, c *sync.Cond, rw *sync.RWMutex, tm *time.Timer, tk *time.Ticker, o *sync.Once) bool {
	var g waitGroup = wg
	g.Add(1)
	go g.Done()
	defer g.Wait()
	var s interface {
		Signal()
		Broadcast()
		Wait()
	} = c
	s.Signal()
	s.Broadcast()
	s.Wait()
	var r interface {
		RLock()
		RUnlock()
		TryLock() bool
		TryRLock() bool
	} = rw
	r.RLock()
	r.RUnlock()
	_ = r.TryRLock()
	var ts interface {
		Stop() bool
		Reset(time.Duration) bool
	} = tm
	_ = ts.Reset(time.Second)
	var ks interface {
		Stop()
		Reset(time.Duration)
	} = tk
	ks.Reset(time.Second)
	ks.Stop()
	var d interface{ Do(func()) } = o
	d.Do(func() {})
	var gg interface{ Go(func()) } = wg
	gg.Go(func() {})
	h := holder{doner: wg}
	h.Done()
	done := g.Done
	done()
	return ts.Stop() && r.TryLock()
}

// Methods of the same names and other signatures are left alone.
type other interface {
	Done() <-chan struct{}
	Wait() error
	Add(int64)
	Stop() error
}

func others(x other) error {
	<-x.Done()
	x.Add(1)
	_ = x.Stop()
	return x.Wait()
}

func generic[W interface{ Done() }](w W) {
	w.Done()
}

// Functions of sync/atomic used as values are wrapped; their calls are
// rewritten as before.
func atomicValues() int32 {
	var n int32
	add, load := atomic.AddInt32, atomic.LoadInt32
	store, cas, swap := atomic.StoreInt32, atomic.CompareAndSwapInt32, atomic.SwapInt32
	and := atomic.AndInt32
	add(&n, 1)
	store(&n, 2)
	cas(&n, 2, 3)
	swap(&n, 4)
	and(&n, 7)
	atomic.AddInt32(&n, 1)
	return load(&n)
}

// Methods of atomic types through interfaces mark their access when the
// value is one; others of the same names and other shapes are left alone.
func atomicInterfaces(n *atomic.Int64, v *atomic.Value, p *atomic.Pointer[int]) bool {
	var c interface {
		Load() int64
		Add(int64) int64
		CompareAndSwap(old, new int64) bool
	} = n
	c.Add(1)
	var s interface {
		Store(any)
		Swap(any) any
	} = v
	s.Store(1)
	_ = s.Swap(2)
	var q interface{ Load() *int } = p
	_ = q.Load()
	var m interface{ Load(key any) (any, bool) }
	if m != nil {
		m.Load(1)
	}
	return c.CompareAndSwap(1, 2) && c.Load() == 2
}

// A sync.Map's methods through an interface.
func syncMaps(m *sync.Map) int {
	var kv interface {
		Load(key any) (any, bool)
		Store(key, value any)
		LoadOrStore(key, value any) (any, bool)
		CompareAndSwap(key, old, new any) bool
		Range(f func(key, value any) bool)
		Clear()
	} = m
	kv.Store(1, 2)
	kv.LoadOrStore(2, 3)
	kv.CompareAndSwap(1, 2, 3)
	_, _ = kv.Load(1)
	n := 0
	kv.Range(func(k, v any) bool { n++; return true })
	kv.Clear()
	return n
}
