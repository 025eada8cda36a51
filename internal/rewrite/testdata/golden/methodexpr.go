package methodexpr

import (
	"sync"
	"sync/atomic"
	"time"
)

type guarded struct {
	sync.Mutex
	n int
}

type rwBox struct{ mu *sync.RWMutex }

// Method expressions, called and used as values, act on the same state as
// ordinary calls.
func calls(l sync.Locker) {
	var mu sync.Mutex
	(*sync.Mutex).Lock(&mu)
	mu.Unlock()
	var wg sync.WaitGroup
	(*sync.WaitGroup).Add(&wg, 1)
	go (*sync.WaitGroup).Done(&wg)
	(*sync.WaitGroup).Wait(&wg)
	sync.Locker.Lock(l)
	l.Unlock()
	var rw sync.RWMutex
	(*sync.RWMutex).RLock(&rw)
	(*sync.RWMutex).RUnlock(&rw)
	g := &guarded{}
	(*guarded).Lock(g)
	g.Unlock()
	var n atomic.Int64
	_ = (*atomic.Int64).Add(&n, 1)
	t := time.NewTimer(time.Second)
	_ = (*time.Timer).Stop(t)
}

func values(l sync.Locker) {
	var mu sync.Mutex
	lock := (*sync.Mutex).Lock
	lock(&mu)
	unlock := mu.Unlock
	unlock()
	add := (*sync.WaitGroup).Add
	var wg sync.WaitGroup
	add(&wg, 1)
	wg.Done()
	ll := sync.Locker.Lock
	ll(l)
	ul := l.Unlock
	ul()
	rl := (*sync.RWMutex).RLock
	var rw sync.RWMutex
	rl(&rw)
	rw.RUnlock()
	gl := (*guarded).Lock
	g := &guarded{}
	gl(g)
	g.Unlock()
	apply(mu.Lock)
	apply(mu.Unlock)
	load := (*atomic.Int64).Load
	var n atomic.Int64
	_ = load(&n)
}

func apply(f func()) { f() }
