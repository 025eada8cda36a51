package engine

import "unsafe"

// object is the shadow state of one synchronization object, found by its
// address. An address is used as one kind of object, so only one part is
// live; keeping them together gives one lookup per operation and one table
// to reset per run.
type object struct {
	ch    chanState
	rw    rwState
	wg    wgState
	once  onceState
	cond  condState
	timer *Timer // for a *time.Timer or *time.Ticker made by the run
	// saved is the kind of sync object (Mutex, RWMutex, WaitGroup) whose
	// state words the run found as pre when it first touched it, which
	// it restores when it ends (syncstate.go).
	saved  syncKind
	pre    [2]int32
	writes uint64 // atomic and sync.Map writes, for spin detection
	mapW   *G     // the goroutine between the start and the end of a racy write of this map (racy.go)
	vc     VC     // recorded runs: the object's clock
	// watchers are the goroutines whose choices depend on this object
	// (enabledset.go).
	watchers []watch
	touched  uint64 // Exec.gen of the last touch
	// touchedDirs are the watchers touched at Exec.gen touched (a
	// channel arrival touches those of one direction: enabledset.go).
	touchedDirs uint8
}

// objTable maps addresses to shadow objects. It is a small open-addressing
// hash table rather than a Go map because, under the race detector, a map
// written by one controlled goroutine and read by the next would be
// reported as a race: the handoff between them is hidden from the detector
// (see race.go), and the runtime's map code records its accesses even when
// the caller is not instrumented.
type objTable struct {
	keys []unsafe.Pointer
	vals []*object
	n    int
}

//go:norace
func hashPtr(p unsafe.Pointer, mask uintptr) uintptr {
	h := uintptr(p) >> 3
	h *= uintptr(0x9e3779b97f4a7c15 & uint64(^uintptr(0)))
	return (h ^ h>>29) & mask
}

// get returns the object at p, or nil.
//
//go:norace
func (t *objTable) get(p unsafe.Pointer) *object {
	if t.n == 0 {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := hashPtr(p, mask); ; i = (i + 1) & mask {
		k := t.keys[i]
		if k == p {
			return t.vals[i]
		}
		if k == nil {
			return nil
		}
	}
}

// obtain returns the object at p, creating it if needed.
//
//go:norace
func (t *objTable) obtain(p unsafe.Pointer) *object {
	if o := t.get(p); o != nil {
		return o
	}
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	o := new(object)
	mask := uintptr(len(t.keys) - 1)
	i := hashPtr(p, mask)
	for t.keys[i] != nil {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = p, o
	t.n++
	return o
}

//go:norace
func (t *objTable) grow() {
	size := 2 * len(t.keys)
	if size < 16 {
		size = 16
	}
	keys, vals := t.keys, t.vals
	t.keys = make([]unsafe.Pointer, size)
	t.vals = make([]*object, size)
	mask := uintptr(size - 1)
	for j, k := range keys {
		if k == nil {
			continue
		}
		i := hashPtr(k, mask)
		for t.keys[i] != nil {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[j]
	}
}
