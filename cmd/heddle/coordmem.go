package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"

	"heddle.dev/internal/strategy"
)

// coordMemory bounds what the coordinator of a test's tree split (source
// DPOR, DFS, IPB, IDB) holds: the units waiting and its record of the
// choices claimed on their paths (strategy.Frontier), both linear in the
// depth of the test's runs. Its heap may grow by at most -max-memory (the
// bound of a worker's heap) over the exploration; past it the test ends
// with an error that names it and what grew, instead of heddle being
// killed for memory (GoKer's Grpc3017, 30,000-node paths, once took 4.6 GB
// there). HEDDLE_COORD_MAX_MEMORY (bytes) sets another bound, for tests.
type coordMemory struct {
	name  string
	limit uint64
	base  uint64

	mu      sync.Mutex
	units   int
	deepest int
}

func newCoordMemory(name string, maxMemory uint64) *coordMemory {
	if v, err := strconv.ParseUint(os.Getenv("HEDDLE_COORD_MAX_MEMORY"), 10, 64); err == nil && v > 0 {
		maxMemory = v
	}
	runtime.GC() // the base: what is live now
	return &coordMemory{name: name, limit: maxMemory, base: heapMetric("/gc/heap/live:bytes")}
}

// heapMetric reads a runtime/metrics value in bytes.
func heapMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// over reports whether the heap grew past the bound: the heap's objects
// (garbage not yet collected included) first, cheaply, and only then
// what is live once collected.
func (c *coordMemory) over() (grown uint64, ok bool) {
	if now := heapMetric("/memory/classes/heap/objects:bytes"); now <= c.base || now-c.base <= c.limit {
		return 0, false
	}
	runtime.GC()
	now := heapMetric("/gc/heap/live:bytes")
	return now - c.base, now > c.base && now-c.base > c.limit
}

// check notes the units a worker returned (the rest of u and those it
// spawned) and returns an error if the heap grew past the bound.
func (c *coordMemory) check(u strategy.Unit, o strategy.Outcome) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	note := func(u *strategy.Unit) {
		c.units++
		if u.Frag != nil {
			c.deepest = max(c.deepest, len(u.Frag.Nodes))
		}
	}
	note(&u)
	if o.Rest != nil {
		note(o.Rest)
	}
	for i := range o.Spawned {
		note(&o.Spawned[i])
	}
	if c.limit == 0 {
		return nil
	}
	grown, ok := c.over()
	if !ok {
		return nil
	}
	return fmt.Errorf("heddle: %s: the coordinator of the parallel exploration grew its heap by %d MiB, past the bound of %d MiB (-max-memory): "+
		"what grew is its units and its record of the choices claimed on their paths (%d units seen, paths up to %d scheduling points deep); "+
		"explore this test with -parallel 1",
		c.name, grown>>20, c.limit>>20, c.units, c.deepest)
}
