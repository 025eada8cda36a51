package rt

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"heddle.dev/internal/engine"
)

// Calls of a synchronization method on an interface value, or on a value
// of a type parameter, whose method has the signature of a sync or time
// type's: var d interface{ Done() } = &wg; d.Done(). The rewriter cannot
// know the dynamic type, so these functions decide by it: a
// *sync.WaitGroup, *sync.Cond, *sync.Once, *sync.Mutex, *sync.RWMutex,
// *sync.Map, *time.Timer or *time.Ticker, held directly or promoting the method from
// an embedded field (resolveLocker), goes to heddle's model, as the
// rewritten direct call does; any other value's method is called as
// written. Called natively, a WaitGroup's Done, a Cond's Signal or a
// timer's Stop would act on the real value, out of sight of the model
// that keeps their state during a run: the model's Wait would never
// return, its waiter never wake, its timer fire anyway.

// IfaceDone replaces x.Done() on an interface value.
func IfaceDone(x interface{ Done() }) {
	if wg, ok := resolveLocker(x, "Done").(*sync.WaitGroup); ok {
		WaitGroupDone(wg)
		return
	}
	x.Done()
}

// IfaceAdd replaces x.Add(delta) on an interface value.
func IfaceAdd(x interface{ Add(int) }, delta int) {
	if wg, ok := resolveLocker(x, "Add").(*sync.WaitGroup); ok {
		WaitGroupAdd(wg, delta)
		return
	}
	x.Add(delta)
}

// IfaceGo replaces x.Go(f) on an interface value.
func IfaceGo(x interface{ Go(func()) }, f func()) {
	if wg, ok := resolveLocker(x, "Go").(*sync.WaitGroup); ok {
		WaitGroupGo(wg, f)
		return
	}
	x.Go(f)
}

// IfaceWait replaces x.Wait() on an interface value: a WaitGroup's or a
// Cond's.
func IfaceWait(x interface{ Wait() }) {
	switch v := resolveLocker(x, "Wait").(type) {
	case *sync.WaitGroup:
		WaitGroupWait(v)
	case *sync.Cond:
		CondWait(v)
	default:
		x.Wait()
	}
}

// IfaceSignal replaces x.Signal() on an interface value.
func IfaceSignal(x interface{ Signal() }) {
	if c, ok := resolveLocker(x, "Signal").(*sync.Cond); ok {
		CondSignal(c)
		return
	}
	x.Signal()
}

// IfaceBroadcast replaces x.Broadcast() on an interface value.
func IfaceBroadcast(x interface{ Broadcast() }) {
	if c, ok := resolveLocker(x, "Broadcast").(*sync.Cond); ok {
		CondBroadcast(c)
		return
	}
	x.Broadcast()
}

// IfaceDo replaces x.Do(f) on an interface value.
func IfaceDo(x interface{ Do(func()) }, f func()) {
	if o, ok := resolveLocker(x, "Do").(*sync.Once); ok {
		OnceDo(o, f)
		return
	}
	x.Do(f)
}

// LockerTryLock replaces x.TryLock() on an interface value.
func LockerTryLock(x interface{ TryLock() bool }) bool {
	switch m := resolveLocker(x, "TryLock").(type) {
	case *sync.Mutex:
		return MutexTryLock(m)
	case *sync.RWMutex:
		return RWTryLock(m)
	}
	return x.TryLock()
}

// LockerRLock replaces x.RLock() on an interface value.
func LockerRLock(x interface{ RLock() }) {
	if rw, ok := resolveLocker(x, "RLock").(*sync.RWMutex); ok {
		RWRLock(rw)
		return
	}
	x.RLock()
}

// LockerRUnlock replaces x.RUnlock() on an interface value.
func LockerRUnlock(x interface{ RUnlock() }) {
	if rw, ok := resolveLocker(x, "RUnlock").(*sync.RWMutex); ok {
		RWRUnlock(rw)
		return
	}
	x.RUnlock()
}

// LockerTryRLock replaces x.TryRLock() on an interface value.
func LockerTryRLock(x interface{ TryRLock() bool }) bool {
	if rw, ok := resolveLocker(x, "TryRLock").(*sync.RWMutex); ok {
		return RWTryRLock(rw)
	}
	return x.TryRLock()
}

// IfaceTimerStop replaces x.Stop() on an interface value whose Stop
// returns a bool (a *time.Timer's).
func IfaceTimerStop(x interface{ Stop() bool }) bool {
	if tm, ok := resolveLocker(x, "Stop").(*time.Timer); ok {
		return TimerStop(tm)
	}
	return x.Stop()
}

// IfaceTimerReset replaces x.Reset(d) on an interface value whose Reset
// returns a bool (a *time.Timer's).
func IfaceTimerReset(x interface{ Reset(time.Duration) bool }, d time.Duration) bool {
	if tm, ok := resolveLocker(x, "Reset").(*time.Timer); ok {
		return TimerReset(tm, d)
	}
	return x.Reset(d)
}

// IfaceTickerStop replaces x.Stop() on an interface value whose Stop
// returns nothing (a *time.Ticker's).
func IfaceTickerStop(x interface{ Stop() }) {
	if tk, ok := resolveLocker(x, "Stop").(*time.Ticker); ok {
		TickerStop(tk)
		return
	}
	x.Stop()
}

// IfaceTickerReset replaces x.Reset(d) on an interface value whose Reset
// returns nothing (a *time.Ticker's).
func IfaceTickerReset(x interface{ Reset(time.Duration) }, d time.Duration) {
	if tk, ok := resolveLocker(x, "Reset").(*time.Ticker); ok {
		TickerReset(tk, d)
		return
	}
	x.Reset(d)
}

// AtomicIR replaces x in x.Load() on an interface value with a method of
// an atomic type's signature: when x holds a value of package
// sync/atomic (or promotes Load from an embedded one), the load is a
// scheduling point, as rt.AtomicR makes the direct call one. It returns
// x.
func AtomicIR[T any](x T) T {
	atomicIface(any(x), engine.OpAtomicLoad)
	return x
}

// AtomicIW is AtomicIR for Store, Add, Swap, And, Or and CompareAndSwap.
func AtomicIW[T any](x T) T {
	atomicIface(any(x), engine.OpAtomicWrite)
	return x
}

// atomicIface marks an access of op to the atomic value v holds, if it
// holds one.
func atomicIface(v any, op engine.OpKind) {
	x := engine.Current()
	if x == nil || v == nil {
		return
	}
	var p unsafe.Pointer
	switch a := v.(type) {
	case *atomic.Int32:
		p = unsafe.Pointer(a)
	case *atomic.Int64:
		p = unsafe.Pointer(a)
	case *atomic.Uint32:
		p = unsafe.Pointer(a)
	case *atomic.Uint64:
		p = unsafe.Pointer(a)
	case *atomic.Uintptr:
		p = unsafe.Pointer(a)
	case *atomic.Bool:
		p = unsafe.Pointer(a)
	case *atomic.Value:
		p = unsafe.Pointer(a)
	default:
		// An atomic.Pointer[T], or a type promoting the method from an
		// embedded atomic value.
		r := reflect.ValueOf(resolveLocker(v, "Load"))
		if r.Kind() != reflect.Pointer || r.IsNil() || r.Type().Elem().PkgPath() != "sync/atomic" {
			return
		}
		p = r.UnsafePointer()
	}
	x.Access(p, op)
}

// syncMapOf returns the *sync.Map whose methods v's are (v holds one, or
// promotes them from an embedded one), or nil.
func syncMapOf(v any) *sync.Map {
	if v == nil {
		return nil
	}
	m, _ := resolveLocker(v, "Load").(*sync.Map)
	return m
}

// SyncMapIR replaces x in x.Load(k) on an interface value with sync.Map's
// Load's signature: a read step of the map when x holds one, as
// rt.SyncMapR makes the direct call one. It returns x.
func SyncMapIR[T any](x T) T {
	if m := syncMapOf(any(x)); m != nil {
		SyncMapR(m)
	}
	return x
}

// SyncMapIW is SyncMapIR for sync.Map's writing methods (Store,
// LoadOrStore, LoadAndDelete, Delete, Swap, CompareAndSwap,
// CompareAndDelete).
func SyncMapIW[T any](x T) T {
	if m := syncMapOf(any(x)); m != nil {
		SyncMapW(m)
	}
	return x
}

// IfaceSyncMapRange replaces x.Range(f) on an interface value with
// sync.Map's Range's signature.
func IfaceSyncMapRange(x interface {
	Range(func(key, value any) bool)
}, f func(key, value any) bool) {
	if m := syncMapOf(x); m != nil {
		SyncMapRange(m, f)
		return
	}
	x.Range(f)
}

// IfaceClear replaces x.Clear() on an interface value: a sync.Map's is
// rt.SyncMapClear.
func IfaceClear(x interface{ Clear() }) {
	if m := syncMapOf(x); m != nil {
		SyncMapClear(m)
		return
	}
	x.Clear()
}
