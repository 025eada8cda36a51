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
	saved syncKind
	// held: a goroutine of the run holds this Mutex (it took it and has
	// not unlocked it), which the run gives back when it ends, when
	// goroutines heddle does not control may hold it too (syncstate.go).
	held   bool
	pre    [2]int32
	writes uint64 // atomic and sync.Map writes, for spin detection
	writer *G     // the goroutine of the last of them (Access), for Bug.Long
	mapW   *G     // the goroutine between the start and the end of a racy write of this map (racy.go)
	aux    any    // package rt's state of the object in the run (ObjAux)
	vc     VC     // recorded runs: the object's clock
	// watchers are the goroutines whose choices depend on this object
	// (enabledset.go).
	watchers []watch
	// grp is the plain waiters of a Mutex, kept apart from its watchers
	// (lockgroup.go).
	grp     *lockGroup
	touched uint64 // Exec.gen of the last touch
	// touchedDirs are the watchers touched at Exec.gen touched (a
	// channel arrival touches those of one direction: enabledset.go).
	touchedDirs uint8
	// ref is a weak pointer to the program's object at the address: the
	// table does not keep the object reachable (a run's objects are
	// collected as they are natively: go-deadlock's TestOrderMapGC
	// measures the heap), and an address the collector freed and the
	// program reused is a new object, not this one (see objTable.get).
	ref objRef
}

// objTable maps addresses to shadow objects. It is a small open-addressing
// hash table rather than a Go map because, under the race detector, a map
// written by one controlled goroutine and read by the next would be
// reported as a race: the handoff between them is hidden from the detector
// (see race.go), and the runtime's map code records its accesses even when
// the caller is not instrumented.
//
// Its keys are addresses, not pointers, so that the table does not keep
// the program's objects reachable: natively an object the program drops is
// collected, and a test may measure that (runtime.ReadMemStats after
// runtime.GC). Each shadow object holds a weak pointer to its object
// instead; once the collector has freed the object the weak pointer is nil
// (the collector clears it before the memory can be allocated again), and
// a lookup of its address, which can then only come from a new object
// allocated there, finds a fresh shadow object: a reused address never
// inherits the state of the object that was there before.
type objTable struct {
	keys []uintptr
	vals []*object
	n    int
	refs refCache
	// chans counts the channels the run made (RegisterChan).
	chans uint64
}

//go:norace
func hashPtr(p uintptr, mask uintptr) uintptr {
	h := p >> 3
	h *= uintptr(0x9e3779b97f4a7c15 & uint64(^uintptr(0)))
	return (h ^ h>>29) & mask
}

// get returns the object at p, or nil.
//
//go:norace
func (t *objTable) get(p unsafe.Pointer) *object {
	if t.n == 0 || p == nil {
		// 0 marks an empty slot: a nil channel (cap of a nil chan) or
		// pointer has no object.
		return nil
	}
	k := uintptr(p)
	mask := uintptr(len(t.keys) - 1)
	for i := hashPtr(k, mask); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			o := t.vals[i]
			if o.ref.collected() {
				// The object this state was for was collected, and p
				// is a new object at its address.
				o = t.newObject(p)
				t.vals[i] = o
			}
			return o
		case 0:
			return nil
		}
	}
}

// at returns the object the table holds for the address a, whether or not
// the object there is still the one it was made for (nil if none): for
// what must not make a pointer of an address that may be freed.
//
//go:norace
func (t *objTable) at(a uintptr) *object {
	if t.n == 0 || a == 0 {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := hashPtr(a, mask); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case a:
			return t.vals[i]
		case 0:
			return nil
		}
	}
}

// newObject returns a fresh shadow object for the object at p.
//
//go:norace
func (t *objTable) newObject(p unsafe.Pointer) *object {
	return &object{ref: t.refs.make(p)}
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
	o := t.newObject(p)
	k := uintptr(p)
	mask := uintptr(len(t.keys) - 1)
	i := hashPtr(k, mask)
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, o
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
	t.keys = make([]uintptr, size)
	t.vals = make([]*object, size)
	mask := uintptr(size - 1)
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := hashPtr(k, mask)
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[j]
	}
}
