package rt

import (
	"runtime"
	"sync"
	"unsafe"

	"heddle.dev/internal/engine"
)

// sync.Pool during a run.
//
// A native Pool keeps a Put value in a cache of the processor the
// goroutine ran on, and a Get on another processor misses it and calls
// New; a garbage collection empties it. Which of the two a Get does under
// heddle depended on the processor the real goroutine happened to run on:
// ants' tests get their workers from a Pool and did something else under
// the same schedule, so heddle could not explore them. During a run a
// Pool is the run's own: Get returns the value last Put in the run and not
// yet got, or calls New (a choice while it holds values: PoolGet); the values Put before the run are dropped, as a
// garbage collection may drop them, and runtime.GC (rt.GC) empties them as
// Go's collections do. Outside a run it is the native Pool.
// Get and Put are scheduling points, writes of the Pool: natively a Get
// finds a value another goroutine's Put left (it steals from the other
// processors' caches) or calls New, depending on which came first.

// PoolGet replaces p.Get(). A Get that finds values in the Pool may
// still miss them and call New: natively a value Put on another processor
// stays in that processor's private slot, which no other processor's Get
// steals from (sync.Pool's getSlow steals from the shared lists only), and
// Go's documentation lets Get ignore the pool. So a Get from a Pool that
// holds values is a choice the search explores: the value last Put and
// not yet got, or New (conformance's TestPoolTwoPutsTwoGets: natively
// `got a new` in 22 of 7,501 runs, where heddle's Get took every value).
// The choice is taken between two steps on the Pool, so that each step
// that reads or changes it writes it for the search, and a Get from an
// empty Pool costs what it did.
func PoolGet(p *sync.Pool) any {
	x := engine.Current()
	if x == nil {
		return p.Get()
	}
	x.Access(unsafe.Pointer(p), engine.OpMapWrite)
	pools := runPools(x)
	pools.use(p)
	if pools.has(p) {
		pools.mu.Unlock()
		if pools.choose() {
			return poolNew(p)
		}
		x.Access(unsafe.Pointer(p), engine.OpMapWrite)
		pools = runPools(x)
	}
	if v, ok := pools.take(p); ok {
		pools.mu.Unlock()
		return v
	}
	pools.mu.Unlock()
	return poolNew(p)
}

// poolNew is what a Get that finds no value returns.
func poolNew(p *sync.Pool) any {
	if p.New != nil {
		return p.New()
	}
	return nil
}

// has reports whether p holds a value in the run (v locked).
func (v *runPoolValues) has(p *sync.Pool) bool {
	return len(v.m[p]) > 0 || len(v.victim[p]) > 0
}

// take removes and returns p's value last Put, from its primary cache
// first, then its victim cache (v locked).
func (v *runPoolValues) take(p *sync.Pool) (any, bool) {
	for _, gen := range []map[*sync.Pool][]any{v.m, v.victim} {
		if vs := gen[p]; len(vs) > 0 {
			x := vs[len(vs)-1]
			vs[len(vs)-1] = nil
			gen[p] = vs[:len(vs)-1]
			return x, true
		}
	}
	return nil, false
}

// choose decides whether a Get from a Pool that holds values misses them
// (true): a select over two closed channels, whose two ready cases the
// search explores both. The channels are the run's, made and closed at the
// run's first such Get. v must not be locked: the select is a scheduling
// point.
func (v *runPoolValues) choose() bool {
	v.mu.Lock()
	take, miss := v.take1, v.miss
	v.mu.Unlock()
	if take == nil {
		take, miss = MakeChan[chan struct{}](0), MakeChan[chan struct{}](0)
		Close(take)
		Close(miss)
		v.mu.Lock()
		v.take1, v.miss = take, miss
		v.mu.Unlock()
	}
	return Select(false, RecvCase(take), RecvCase(miss)) == 1
}

// PoolPut replaces p.Put(v).
func PoolPut(p *sync.Pool, v any) {
	x := engine.Current()
	if x == nil {
		p.Put(v)
		return
	}
	if v == nil {
		return
	}
	x.Access(unsafe.Pointer(p), engine.OpMapWrite)
	pools := runPools(x)
	pools.use(p)
	pools.m[p] = append(pools.m[p], v)
	pools.mu.Unlock()
}

// GC replaces runtime.GC. A collection moves each Pool's values to its
// victim cache, where a Get still finds them, and drops those the
// collection before moved there: after two collections a Get calls New
// (sync.Pool's poolCleanup). During a run it does so to the run's pools,
// each at a scheduling point of its own, a write of the Pool (in the
// order the run first used them), and then collects garbage natively;
// the finalizers of the run's objects found unreachable then run in a
// controlled goroutine (finalizer.go).
func GC() {
	x := engine.Current()
	if x == nil {
		runtime.GC()
		return
	}
	pools := runPools(x)
	used := append([]*sync.Pool(nil), pools.used...)
	pools.mu.Unlock()
	for _, p := range used {
		x.Access(unsafe.Pointer(p), engine.OpMapWrite)
		pools := runPools(x)
		pools.victim[p] = pools.m[p]
		delete(pools.m, p)
		pools.mu.Unlock()
	}
	runtime.GC()
	if fs := curFinalizers; fs != nil && fs.x == x {
		fs.collected()
	}
}

// poolsOfRun holds the values Put in the current run. Its lock orders a
// Put before the Get that returns its value for the race detector, as the
// native Pool does.
var poolsOfRun runPoolValues

type runPoolValues struct {
	mu     sync.Mutex
	run    uint64
	m      map[*sync.Pool][]any
	victim map[*sync.Pool][]any // the values a GC moved out of m (GC)
	used   []*sync.Pool         // the pools the run used, in order
	seen   map[*sync.Pool]bool  // the pools in used
	// take1 and miss are the closed channels of the run's choices between
	// a Get's value and New (choose).
	take1, miss chan struct{}
}

// use records that the run uses p.
func (v *runPoolValues) use(p *sync.Pool) {
	if !v.seen[p] {
		v.seen[p] = true
		v.used = append(v.used, p)
	}
}

// runPools locks poolsOfRun and returns it, emptied if it held the values
// of another run.
func runPools(x *engine.Exec) *runPoolValues {
	id := runIDOf(x)
	poolsOfRun.mu.Lock()
	if poolsOfRun.run != id || poolsOfRun.m == nil {
		poolsOfRun.run = id
		poolsOfRun.m = map[*sync.Pool][]any{}
		poolsOfRun.victim = map[*sync.Pool][]any{}
		poolsOfRun.used = nil
		poolsOfRun.seen = map[*sync.Pool]bool{}
		poolsOfRun.take1, poolsOfRun.miss = nil, nil
	}
	return &poolsOfRun
}
