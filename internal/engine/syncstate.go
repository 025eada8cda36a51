package engine

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Value semantics of sync.Mutex, RWMutex and WaitGroup.
//
// A sync object is a value: a copy of a locked Mutex is locked, mu =
// sync.Mutex{} unlocks mu, wg = sync.WaitGroup{} resets its counter. Shadow
// state kept by address cannot follow such assignments and copies, so the
// state that decides what may run next (a Mutex's lock, an RWMutex's
// writer and readers, a WaitGroup's counter) is kept in the object itself,
// in Go's own encoding: the locked bit of the Mutex's state word; the
// locked bit of the RWMutex's writer Mutex and its reader count, less
// rwmutexMaxReaders while a writer holds or claims the lock; the counter
// in the high 32 bits of the WaitGroup's state. Copies and assignments
// carry it as they do in Go, and code heddle does not rewrite sees the
// same state. Only what concerns one run stays in the shadow object (the
// writer that waits for readers to leave, when a WaitGroup's counter last
// fell to zero).
//
// The engine reads and writes these words with plain, uninstrumented
// accesses, from the goroutine that holds the processor, as it does its
// own state; the race detector is told about each primitive's
// synchronization as before (race.go).
//
// A run is one execution of the test: what it leaves in an object that
// outlives it (a package-level Mutex still locked by a goroutine the run
// unwound, a WaitGroup whose counter the run left positive) must not leak
// into the next run. Each object is saved when the run first touches it,
// and restored when the run ends (restoreSync), unless it was collected
// (the run's object table does not keep objects reachable: objects.go).

// The offsets of the words, found by reflection (the fields are
// unexported); TestSyncLayout checks them against Go's own operations.
var (
	mutexStateOff = fieldOffset(reflect.TypeOf(sync.Mutex{}), reflect.Int32, "mu", "state")
	rwWriterOff   = fieldOffset(reflect.TypeOf(sync.RWMutex{}), reflect.Int32, "w", "mu", "state")
	rwReadersOff  = fieldOffset(reflect.TypeOf(sync.RWMutex{}), reflect.Int32, "readerCount", "v")
	wgStateOff    = fieldOffset(reflect.TypeOf(sync.WaitGroup{}), reflect.Uint64, "state", "v")
)

// rwmutexMaxReaders is sync's: the reader count is lowered by it while a
// writer holds or claims an RWMutex.
const rwmutexMaxReaders = 1 << 30

// fieldOffset returns the offset of the field at path in t, which must be
// of kind k.
func fieldOffset(t reflect.Type, k reflect.Kind, path ...string) uintptr {
	var off uintptr
	name := t.String()
	for _, f := range path {
		sf, ok := t.FieldByName(f)
		if !ok || len(sf.Index) != 1 {
			panic("heddle: " + name + " has no field " + f + " in " + runtime.Version() + ": heddle's engine does not know this Go release's sync types")
		}
		off += sf.Offset
		t = sf.Type
		name += "." + f
	}
	if t.Kind() != k {
		panic("heddle: " + name + " is a " + t.Kind().String() + ", not a " + k.String() + ", in " + runtime.Version() + ": heddle's engine does not know this Go release's sync types")
	}
	return off
}

// syncKind is the kind of sync object saved at an address.
type syncKind uint8

const (
	syncNone syncKind = iota
	syncMutex
	syncRW
	syncWG
)

//go:norace
func word32(p unsafe.Pointer, off uintptr) *int32 { return (*int32)(unsafe.Add(p, off)) }

// syncObj returns the shadow object at p, a sync object of kind k, saving
// what p holds the first time the run touches it.
//
//go:norace
func (e *Exec) syncObj(p unsafe.Pointer, k syncKind) *object {
	o := e.objs.obtain(p)
	if o.saved == syncNone {
		o.saved = k
		switch k {
		case syncMutex:
			o.pre[0] = *word32(p, mutexStateOff)
		case syncRW:
			o.pre[0], o.pre[1] = *word32(p, rwWriterOff), *word32(p, rwReadersOff)
		case syncWG:
			w := *(*uint64)(unsafe.Add(p, wgStateOff))
			o.pre[0], o.pre[1] = int32(w>>32), int32(uint32(w))
		}
		e.saved = append(e.saved, uintptr(p))
	}
	return o
}

// restoreSync puts back what the run found in the sync objects it touched
// (see the comment at the top of this file).
//
//go:norace
func (e *Exec) restoreSync() {
	native := e.nativeSeen()
	for _, a := range e.saved {
		// The object is the table's only if it is still the one saved
		// (a collected object's address may hold another one now).
		o := e.objs.at(a)
		p := o.ref.value()
		if o.saved == syncNone || p == nil || uintptr(p) != a {
			continue
		}
		switch o.saved {
		case syncMutex:
			w := word32(p, mutexStateOff)
			if native || (atomic.LoadInt32(w)|o.pre[0])&^mutexLockedBit != 0 {
				// Goroutines heddle does not control may hold the
				// mutex or wait in its Lock: give back only what the
				// run's goroutines hold, by Unlock (see above).
				if o.held && atomic.LoadInt32(w)&mutexLockedBit != 0 {
					unlockWord(p)
				}
				continue
			}
			*w = o.pre[0]
		case syncRW:
			*word32(p, rwWriterOff), *word32(p, rwReadersOff) = o.pre[0], o.pre[1]
		case syncWG:
			*(*uint64)(unsafe.Add(p, wgStateOff)) = uint64(uint32(o.pre[0]))<<32 | uint64(uint32(o.pre[1]))
		}
	}
	e.saved = nil
}

// The bits of a sync.Mutex's state word, as package sync has them.
const (
	mutexLockedBit   = 1 << 0
	mutexStarvingBit = 1 << 2
)

// Mutexes shared with goroutines heddle does not control.
//
// A goroutine heddle does not control (one started at package
// initialisation, before any run: a package-level server's) locks and
// unlocks a Mutex with Go's own code, which also keeps, in the state
// word, the goroutines parked in Lock and whether the mutex is in
// starvation mode, and wakes a parked one at Unlock. The engine's
// operations on the word must keep that working: it takes the lock with a
// compare-and-swap, as Lock's fast path does, only when neither the
// locked nor the starving bit is set (a native goroutine may be handed
// the lock in starvation mode), and gives it back with Go's Unlock
// whenever a bit other than the locked one is set, so that a goroutine
// parked in a native Lock is woken. Clearing the locked bit alone left it
// parked forever: jrpc2's examples deadlocked when the client's delivery
// goroutine, started at package initialisation, found the client's mutex
// held by the test. With only controlled goroutines, the word holds the
// locked bit alone and these do what plain writes did.

// mutexLocked reports whether the sync.Mutex at p is held: locked, or in
// starvation mode (being handed to a goroutine parked in a native Lock).
//
//go:norace
func mutexLocked(p unsafe.Pointer) bool {
	return *word32(p, mutexStateOff)&(mutexLockedBit|mutexStarvingBit) != 0
}

// tryLockWord takes the sync.Mutex at p, as Lock's fast path does, if it
// is free, and reports whether it did: it did not if a goroutine heddle
// does not control holds it.
//
//go:norace
func tryLockWord(p unsafe.Pointer) bool {
	w := word32(p, mutexStateOff)
	for {
		old := atomic.LoadInt32(w)
		if old&(mutexLockedBit|mutexStarvingBit) != 0 {
			return false
		}
		if atomic.CompareAndSwapInt32(w, old, old|mutexLockedBit) {
			return true
		}
	}
}

// forceLockWord sets the locked bit of the sync.Mutex at p, held or not:
// a run that is being unwound takes the lock whatever its state. A loop of
// CAS, not atomic.OrInt32: the runtime bundled into a user's module builds
// with its go.mod's language version, as old as go1.21 (internal/build's
// TestBundleBuilds), and OrInt32 is from go1.23.
//
//go:norace
func forceLockWord(p unsafe.Pointer) {
	w := word32(p, mutexStateOff)
	for {
		old := atomic.LoadInt32(w)
		if old&mutexLockedBit != 0 || atomic.CompareAndSwapInt32(w, old, old|mutexLockedBit) {
			return
		}
	}
}

// unlockWord unlocks the sync.Mutex at p, which is locked, waking a
// goroutine parked in a native Lock if there is one.
//
//go:norace
func unlockWord(p unsafe.Pointer) {
	if atomic.CompareAndSwapInt32(word32(p, mutexStateOff), mutexLockedBit, 0) {
		return
	}
	(*sync.Mutex)(p).Unlock()
}

// rwClaimed reports whether a writer holds, or has claimed and waits for,
// the sync.RWMutex at p: its writer Mutex is locked.
//
//go:norace
func rwClaimed(p unsafe.Pointer) bool { return *word32(p, rwWriterOff)&1 != 0 }

// rwReaders returns the number of readers holding the sync.RWMutex at p.
//
//go:norace
func rwReaders(p unsafe.Pointer) int {
	n := *word32(p, rwReadersOff)
	if n < 0 {
		n += rwmutexMaxReaders
	}
	return int(n)
}

// rwClaim makes a writer hold or claim the sync.RWMutex at p.
//
//go:norace
func rwClaim(p unsafe.Pointer) {
	*word32(p, rwWriterOff) |= 1
	*word32(p, rwReadersOff) -= rwmutexMaxReaders
}

// rwRelease ends the writer's hold of the sync.RWMutex at p.
//
//go:norace
func rwRelease(p unsafe.Pointer) {
	*word32(p, rwReadersOff) += rwmutexMaxReaders
	*word32(p, rwWriterOff) &^= 1
}

// rwAddReaders adds d readers to the sync.RWMutex at p.
//
//go:norace
func rwAddReaders(p unsafe.Pointer, d int32) { *word32(p, rwReadersOff) += d }

// wgCount returns the counter of the sync.WaitGroup at p.
//
//go:norace
func wgCount(p unsafe.Pointer) int { return int(int32(*(*uint64)(unsafe.Add(p, wgStateOff)) >> 32)) }

// setWGCount sets the counter of the sync.WaitGroup at p.
//
//go:norace
func setWGCount(p unsafe.Pointer, n int) {
	w := (*uint64)(unsafe.Add(p, wgStateOff))
	*w = uint64(uint32(int32(n)))<<32 | *w&0xffffffff
}
