package rt

import (
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
// garbage collection may drop them. Outside a run it is the native Pool.
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
	if vs := pools.m[p]; len(vs) > 0 {
		v := vs[len(vs)-1]
		vs[len(vs)-1] = nil
		pools.m[p] = vs[:len(vs)-1]
		pools.mu.Unlock()
		return v
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
	pools.m[p] = append(pools.m[p], v)
	pools.mu.Unlock()
}

// poolsOfRun holds the values Put in the current run. Its lock orders a
// Put before the Get that returns its value for the race detector, as the
// native Pool does.
var poolsOfRun runPoolValues

type runPoolValues struct {
	mu  sync.Mutex
	run uint64
	m   map[*sync.Pool][]any
}

// runPools locks poolsOfRun and returns it, emptied if it held the values
// of another run.
func runPools(x *engine.Exec) *runPoolValues {
	id := runIDOf(x)
	poolsOfRun.mu.Lock()
	if poolsOfRun.run != id || poolsOfRun.m == nil {
		poolsOfRun.run = id
		poolsOfRun.m = map[*sync.Pool][]any{}
	}
	return &poolsOfRun
}
