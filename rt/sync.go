package rt

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"heddle.dev/internal/engine"
)

// MutexLock replaces m.Lock() for a *sync.Mutex.
func MutexLock(m *sync.Mutex) {
	if x := engine.Current(); x != nil {
		x.MutexLock(unsafe.Pointer(m))
		return
	}
	m.Lock()
}

// MutexUnlock replaces m.Unlock().
func MutexUnlock(m *sync.Mutex) {
	if x := engine.Current(); x != nil {
		x.MutexUnlock(unsafe.Pointer(m))
		return
	}
	m.Unlock()
}

// MutexTryLock replaces m.TryLock().
func MutexTryLock(m *sync.Mutex) bool {
	if x := engine.Current(); x != nil {
		return x.MutexTryLock(unsafe.Pointer(m))
	}
	return m.TryLock()
}

// RWLock replaces rw.Lock() for a *sync.RWMutex.
func RWLock(rw *sync.RWMutex) {
	if x := engine.Current(); x != nil {
		x.RWLock(unsafe.Pointer(rw))
		return
	}
	rw.Lock()
}

// RWUnlock replaces rw.Unlock().
func RWUnlock(rw *sync.RWMutex) {
	if x := engine.Current(); x != nil {
		x.RWUnlock(unsafe.Pointer(rw))
		return
	}
	rw.Unlock()
}

// RWRLock replaces rw.RLock().
func RWRLock(rw *sync.RWMutex) {
	if x := engine.Current(); x != nil {
		x.RWRLock(unsafe.Pointer(rw))
		return
	}
	rw.RLock()
}

// RWRUnlock replaces rw.RUnlock().
func RWRUnlock(rw *sync.RWMutex) {
	if x := engine.Current(); x != nil {
		x.RWRUnlock(unsafe.Pointer(rw))
		return
	}
	rw.RUnlock()
}

// RWTryLock replaces rw.TryLock().
func RWTryLock(rw *sync.RWMutex) bool {
	if x := engine.Current(); x != nil {
		return x.RWTryLock(unsafe.Pointer(rw))
	}
	return rw.TryLock()
}

// RWTryRLock replaces rw.TryRLock().
func RWTryRLock(rw *sync.RWMutex) bool {
	if x := engine.Current(); x != nil {
		return x.RWTryRLock(unsafe.Pointer(rw))
	}
	return rw.TryRLock()
}

// RWRLocker replaces rw.RLocker().
func RWRLocker(rw *sync.RWMutex) sync.Locker { return rlocker{rw} }

type rlocker struct{ rw *sync.RWMutex }

func (r rlocker) Lock()   { RWRLock(r.rw) }
func (r rlocker) Unlock() { RWRUnlock(r.rw) }

// LockerLock replaces l.Lock() on a value of interface type, such as
// sync.Locker or Cond.L, whose dynamic type may be a sync mutex.
func LockerLock(l interface{ Lock() }) {
	switch m := l.(type) {
	case *sync.Mutex:
		MutexLock(m)
	case *sync.RWMutex:
		RWLock(m)
	default:
		l.Lock()
	}
}

// LockerUnlock replaces l.Unlock() on a value of interface type.
func LockerUnlock(l interface{ Unlock() }) {
	switch m := l.(type) {
	case *sync.Mutex:
		MutexUnlock(m)
	case *sync.RWMutex:
		RWUnlock(m)
	default:
		l.Unlock()
	}
}

// WaitGroupAdd replaces wg.Add(delta).
func WaitGroupAdd(wg *sync.WaitGroup, delta int) {
	if x := engine.Current(); x != nil {
		x.WaitGroupAdd(unsafe.Pointer(wg), delta)
		return
	}
	wg.Add(delta)
}

// WaitGroupDone replaces wg.Done().
func WaitGroupDone(wg *sync.WaitGroup) { WaitGroupAdd(wg, -1) }

// WaitGroupWait replaces wg.Wait().
func WaitGroupWait(wg *sync.WaitGroup) {
	if x := engine.Current(); x != nil {
		x.WaitGroupWait(unsafe.Pointer(wg))
		return
	}
	wg.Wait()
}

// WaitGroupGo replaces wg.Go(f) (Go 1.25).
func WaitGroupGo(wg *sync.WaitGroup, f func()) {
	WaitGroupAdd(wg, 1)
	Go(func() {
		defer WaitGroupDone(wg)
		f()
	})
}

// OnceDo replaces o.Do(f).
//
// The model keeps its own state per run, but it also marks the real Once
// done when f returns, so that a Once that outlives the run (a package
// variable, such as a lazily compiled regexp) stays done in later runs and
// outside them, as it does natively.
func OnceDo(o *sync.Once, f func()) {
	if x := engine.Current(); x != nil {
		x.OnceDo(unsafe.Pointer(o), func() {
			defer o.Do(func() {})
			f()
		}, onceDone(o))
		return
	}
	o.Do(f)
}

// onceDone reports whether the real Once is done. It reads the Once's
// first word, its done flag in every Go release since 1.21 (a test checks
// the layout).
func onceDone(o *sync.Once) bool {
	return (*atomic.Uint32)(unsafe.Pointer(o)).Load() != 0
}

// OnceFunc replaces sync.OnceFunc.
func OnceFunc(f func()) func() {
	g := OnceValues(func() (struct{}, struct{}) { f(); return struct{}{}, struct{}{} })
	return func() { g() }
}

// OnceValue replaces sync.OnceValue.
func OnceValue[T any](f func() T) func() T {
	g := OnceValues(func() (T, struct{}) { return f(), struct{}{} })
	return func() T { v, _ := g(); return v }
}

// OnceValues replaces sync.OnceValues: f runs once, on the first call, and
// every call returns its results, or panics with its panic value.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var (
		once  sync.Once
		valid bool
		p     any
		r1    T1
		r2    T2
	)
	g := func() {
		defer func() {
			p = recover()
			if !valid {
				panic(p)
			}
		}()
		r1, r2 = f()
		f = nil
		valid = true
	}
	return func() (T1, T2) {
		OnceDo(&once, g)
		if !valid {
			panic(p)
		}
		return r1, r2
	}
}

// CondWait replaces c.Wait().
func CondWait(c *sync.Cond) {
	if x := engine.Current(); x != nil {
		condCheck(c)
		x.CondWait(unsafe.Pointer(c), func() { LockerUnlock(c.L) }, func() { LockerLock(c.L) }, lockerPtr(c.L))
		return
	}
	c.Wait()
}

// CondSignal replaces c.Signal().
func CondSignal(c *sync.Cond) {
	if x := engine.Current(); x != nil {
		condCheck(c)
		x.CondSignal(unsafe.Pointer(c), false)
		return
	}
	c.Signal()
}

// CondBroadcast replaces c.Broadcast().
func CondBroadcast(c *sync.Cond) {
	if x := engine.Current(); x != nil {
		condCheck(c)
		x.CondSignal(unsafe.Pointer(c), true)
		return
	}
	c.Broadcast()
}

func lockerPtr(l sync.Locker) unsafe.Pointer {
	switch m := l.(type) {
	case *sync.Mutex:
		return unsafe.Pointer(m)
	case *sync.RWMutex:
		return unsafe.Pointer(m)
	}
	return nil
}

// SyncMapR marks a read of a sync.Map (Load, Range) as a scheduling point and
// returns m: the rewriter turns m.Load(k) into rt.SyncMapR(&m).Load(k).
func SyncMapR(m *sync.Map) *sync.Map {
	if x := engine.Current(); x != nil {
		x.Access(unsafe.Pointer(m), engine.OpMapRead)
	}
	return m
}

// SyncMapW is SyncMapR for the operations that may write (Store,
// LoadOrStore, LoadAndDelete, Delete, Swap, CompareAndSwap,
// CompareAndDelete, Clear).
func SyncMapW(m *sync.Map) *sync.Map {
	if x := engine.Current(); x != nil {
		x.Access(unsafe.Pointer(m), engine.OpMapWrite)
	}
	return m
}
