// Command warm fills a cache from one worker per key named on its command
// line, as a server warms its caches at start-up, and checks that every
// distinct key was computed once.
//
//	warm a b a c b a
//
// Bug: get looks the key up under the lock, unlocks to compute the value,
// and locks again to store it. Two workers that miss the same key in that
// window both compute it, and the check at the end fails. Natively the
// window is a few instructions wide and the program almost always passes;
// heddle run finds the failing interleaving in a few runs and replays it:
//
//	heddle run ./cmd/warm -- a b a c b a
//
// With -fixed, get computes each key once, under a sync.Once per key.
package main

import (
	"flag"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
)

type cache struct {
	mu       sync.Mutex
	vals     map[string]int
	once     map[string]*sync.Once
	computed atomic.Int32
}

func (c *cache) compute(key string) int {
	c.computed.Add(1)
	return len(key)
}

// get returns the value of key, computing it on a miss.
//
// Bug: between the lookup and the store another worker may miss too.
func (c *cache) get(key string) int {
	c.mu.Lock()
	v, ok := c.vals[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.compute(key)
	c.mu.Lock()
	c.vals[key] = v
	c.mu.Unlock()
	return v
}

// getFixed computes each key once: the first worker to miss runs the
// key's Once, the others wait for it.
func (c *cache) getFixed(key string) int {
	c.mu.Lock()
	o := c.once[key]
	if o == nil {
		o = new(sync.Once)
		c.once[key] = o
	}
	c.mu.Unlock()
	o.Do(func() {
		v := c.compute(key)
		c.mu.Lock()
		c.vals[key] = v
		c.mu.Unlock()
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vals[key]
}

func main() {
	fixed := flag.Bool("fixed", false, "compute each key once (sync.Once per key)")
	flag.Parse()
	keys := flag.Args()
	if len(keys) == 0 {
		keys = strings.Fields("a b a c b a")
	}
	c := &cache{vals: map[string]int{}, once: map[string]*sync.Once{}}
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func(k string) {
			defer wg.Done()
			if *fixed {
				c.getFixed(k)
			} else {
				c.get(k)
			}
		}(k)
	}
	wg.Wait()
	if n, want := int(c.computed.Load()), len(c.vals); n != want {
		log.Fatalf("computed %d values for %d keys", n, want)
	}
	fmt.Printf("%d keys, each computed once\n", len(c.vals))
}
