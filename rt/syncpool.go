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
// yet got, or calls New; the values Put before the run are dropped, as a
// garbage collection may drop them, and runtime.GC (rt.GC) empties them as
// Go's collections do. Outside a run it is the native Pool.
// Get and Put are scheduling points, writes of the Pool: natively a Get
// finds a value another goroutine's Put left (it steals from the other
// processors' caches) or calls New, depending on which came first.

// PoolGet replaces p.Get().
func PoolGet(p *sync.Pool) any {
	x := engine.Current()
	if x == nil {
		return p.Get()
	}
	x.Access(unsafe.Pointer(p), engine.OpMapWrite)
	pools := runPools(x)
	pools.use(p)
	for _, gen := range []map[*sync.Pool][]any{pools.m, pools.victim} {
		if vs := gen[p]; len(vs) > 0 {
			v := vs[len(vs)-1]
			vs[len(vs)-1] = nil
			gen[p] = vs[:len(vs)-1]
			pools.mu.Unlock()
			return v
		}
	}
	pools.mu.Unlock()
	if p.New != nil {
		return p.New()
	}
	return nil
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
	}
	return &poolsOfRun
}
