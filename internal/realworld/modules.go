// Package realworld measures heddle on the test suites of popular
// third-party modules: it copies each module, at a pinned version, from the
// module cache, runs its tests natively with `go test -count=1` and under
// heddle with `heddle test ./...`, checks that every report's printed replay
// command reproduces it, and writes docs/results/realworld.md, where each
// report is classified (see classes.go). See docs/realworld.md.
package realworld

// Module is one module of the corpus.
type Module struct {
	Path    string
	Version string
	// Why it is in the corpus: what is concurrent about it.
	Why string
	// CI marks the modules of the fast subset that `go test ./...` runs.
	CI bool
}

// Modules is the corpus, pinned.
var Modules = []Module{
	{Path: "golang.org/x/sync", Version: "v0.24.0", Why: "errgroup, semaphore, singleflight, syncmap"},
	{Path: "github.com/sourcegraph/conc", Version: "v0.3.0", Why: "structured goroutine pools, panics across goroutines; testify"},
	{Path: "github.com/alitto/pond/v2", Version: "v2.7.1", Why: "worker pools, result pools, task groups"},
	{Path: "github.com/eapache/go-resiliency", Version: "v1.7.0", Why: "breakers, deadlines, semaphores, batchers, retriers"},
	{Path: "github.com/hashicorp/golang-lru/v2", Version: "v2.0.7", Why: "locked LRU, 2Q and ARC caches, expirable LRU with a janitor goroutine"},
	{Path: "github.com/cenkalti/backoff/v4", Version: "v4.3.0", Why: "retry with timers, tickers and contexts"},
	{Path: "github.com/patrickmn/go-cache", Version: "v2.1.0+incompatible", Why: "RWMutex cache with a janitor goroutine"},
	{Path: "github.com/panjf2000/ants/v2", Version: "v2.12.1", Why: "goroutine pool with a spinlock, sync.Cond and a purging goroutine"},
	{Path: "github.com/jonboulle/clockwork", Version: "v0.5.0", Why: "fake clock: timers, tickers, BlockUntil; contexts"},
	{Path: "github.com/benbjohnson/clock", Version: "v1.3.5", Why: "fake clock: timers, tickers, contexts"},
	{Path: "go.uber.org/atomic", Version: "v1.12.0", Why: "typed atomics, stress tests with goroutines; testify"},
	{Path: "go.uber.org/ratelimit", Version: "v0.3.1", Why: "leaky-bucket rate limiters with atomics and mutexes; testify"},
	{Path: "github.com/sethvargo/go-retry", Version: "v0.5.0", Why: "retry with backoff, contexts, timers", CI: true},
}
