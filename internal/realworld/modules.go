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
	// Skip is a -skip regexp given to both go test and heddle test: the
	// tests that need a service the machine does not have (SkipWhy says
	// which), which fail natively too and say nothing about heddle.
	Skip, SkipWhy string
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
	{Path: "golang.org/x/time", Version: "v0.16.0", Why: "token-bucket rate limiter: Wait with contexts and timers, reservations under a mutex"},
	{Path: "github.com/orcaman/concurrent-map/v2", Version: "v2.0.1", Why: "sharded map of RWMutexes, iteration over buffered channels fed by goroutines"},
	{Path: "github.com/gammazero/workerpool", Version: "v1.3.0", Why: "worker pool with a dispatcher goroutine, idle timeout, pause and stop-and-wait; a pacer"},
	{Path: "github.com/reugn/go-quartz", Version: "v0.15.2", Why: "job scheduler: a loop on a timer Reset to the largest duration, worker goroutines, cron triggers against the wall clock"},
	{Path: "github.com/sasha-s/go-deadlock", Version: "v0.3.9", Why: "drop-in sync mutexes with deadlock detection: AfterFunc timers kept in a sync.Pool across calls, lock-order maps"},
	{Path: "github.com/allegro/bigcache/v3", Version: "v3.1.0", Why: "sharded byte cache with RWMutexes and a cleaning goroutine on a ticker; a queue and an HTTP server package"},
	{Path: "github.com/bep/debounce", Version: "v1.2.1", Why: "a debouncer: time.AfterFunc reset under a mutex"},
	{Path: "github.com/golang/groupcache", Version: "v0.0.0-20241129210726-2c02b8208cf8", Why: "singleflight, an LRU under a mutex, peers over HTTP"},
	{Path: "github.com/Workiva/go-datastructures", Version: "v1.1.7", Why: "ring buffers and queues with blocking Get/Put and Dispose, futures, batchers, a lock-free trie"},
	{Path: "github.com/jellydator/ttlcache/v3", Version: "v3.4.1", Why: "a TTL cache with an expiry goroutine on a timer, loaders behind singleflight; testify"},
	{Path: "github.com/sony/gobreaker/v2", Version: "v2.4.0", Why: "a circuit breaker: state under a mutex, generations, counts; a distributed variant over a shared store; testify"},
	{Path: "github.com/robfig/cron/v3", Version: "v3.0.1", Why: "a job scheduler: a run loop on a timer, add/remove/stop over channels, a WaitGroup of running jobs, job wrappers with mutexes"},
	{Path: "github.com/asaskevich/EventBus", Version: "v0.0.0-20200907212545-49d423059eef", Why: "an event bus: handlers under a mutex, asynchronous transactional handlers with a WaitGroup"},
	{Path: "github.com/eapache/channels", Version: "v1.1.0", Why: "channel adapters: infinite, ring, overflow, batching, resizable channels, each with a goroutine between input and output"},
	{Path: "github.com/jackc/puddle/v2", Version: "v2.2.3", Why: "a generic resource pool (pgx's): a semaphore, resources constructed in goroutines that outlive a cancelled Acquire, a background health check; testify"},
	{Path: "github.com/oklog/run", Version: "v1.2.0", Why: "an actor group: every actor runs in a goroutine, the first to return interrupts the others, Run waits for all"},
	{Path: "github.com/smallnest/chanx", Version: "v1.2.0", Why: "an unbounded channel: a goroutine between an input and an output channel with a ring buffer"},
	{Path: "github.com/avast/retry-go/v4", Version: "v4.7.0", Why: "retry with delays on timers, contexts and cancellation; testify"},
	{Path: "github.com/bluele/gcache", Version: "v0.0.2", Why: "LRU, LFU, ARC and simple caches under a RWMutex, expiry against the clock, loaders behind a singleflight group"},
	{Path: "go.uber.org/goleak", Version: "v1.3.0", Why: "a goroutine leak checker: parses runtime.Stack of every goroutine, retries while goroutines finish, ignores the testing package's; testify"},
	{Path: "github.com/dustin/go-broadcast", Version: "v0.0.0-20171205050544-f664265f5a66", Why: "a broadcaster goroutine fanning messages out to a map of subscriber channels, a mux of broadcasters"},
	{Path: "github.com/thejerf/suture/v4", Version: "v4.0.6", Why: "Erlang-style supervisor trees: a supervisor goroutine restarting services over control channels, contexts, failure backoff on timers"},
	{Path: "github.com/cskr/pubsub", Version: "v1.0.2", Why: "a pub/sub hub: one goroutine serving subscribe, publish, try-publish and unsubscribe commands over a channel, fanning out to buffered subscriber channels"},
	{Path: "github.com/juju/ratelimit", Version: "v1.0.2", Why: "a token bucket under a mutex: Wait sleeps for tokens, a rate-limited reader and writer"},
	{Path: "github.com/fatih/semgroup", Version: "v1.2.0", Why: "a bounded errgroup: a weighted semaphore (x/sync) acquired with the group's context before each goroutine, errors collected under a mutex"},
	{Path: "github.com/lestrrat-go/httprc", Version: "v1.0.6", Why: "a refreshing HTTP resource cache: a refresh loop on a ticker, a fetch loop on a sync.Cond, fetcher worker goroutines, httptest servers; testify"},
	{Path: "github.com/lestrrat-go/backoff/v2", Version: "v2.0.8", Why: "retry policies: a controller goroutine per attempt sequence feeding a channel on timers, contexts, jitter from a source of its own; testify"},
	{Path: "github.com/Code-Hex/go-generics-cache", Version: "v1.5.1", Why: "generic caches (LRU, LFU, FIFO, MRU, clock) under a mutex, expiry, a janitor goroutine on a ticker stopped by a context; examples"},
	{Path: "github.com/puzpuzpuz/xsync/v4", Version: "v4.5.0", Why: "lock-free and striped concurrent structures: a resizing hash map with parallel copying, MPMC queues, RBMutex, striped counters; seeds from maphash and runtime.cheaprand"},
	{Path: "github.com/hashicorp/go-memdb", Version: "v1.3.5", Why: "an in-memory MVCC database on immutable radix trees: a writer lock, watch sets of channels closed on change, WatchCtx with contexts"},
	{Path: "github.com/sethvargo/go-limiter", Version: "v0.7.1", Why: "a rate-limiter store: buckets under mutexes in a map, a sweeper goroutine on a ticker, an HTTP middleware; a clock read through go:linkname"},
	{Path: "github.com/muesli/cache2go", Version: "v0.0.0-20221011235721-518229cd8021", Why: "a TTL cache: tables in a package map under a RWMutex, a self-adjusting AfterFunc expiration timer that starts goroutines, keep-alive and callbacks"},
	{Path: "github.com/gofrs/flock", Version: "v0.13.2", Why: "file locks: blocking and try-locks with retry contexts on timers, a mutex per lock; a goroutine blocked in flock(2); testify suites"},
	{Path: "go.uber.org/multierr", Version: "v1.11.0", Why: "error lists whose copy-on-append flag is an atomic.Bool: Append to one shared list from ten goroutines (TestAppendRace), AppendInto, AppendInvoke; testify"},
	{Path: "github.com/hashicorp/go-retryablehttp", Version: "v0.7.8", Why: "an HTTP client with retries: backoff on timers, contexts, request and response hooks, httptest servers"},
	{Path: "github.com/hashicorp/yamux", Version: "v0.1.2", Why: "a stream multiplexer: send and receive loops, keepalives on timers, windows under mutexes and conds, streams over pipes and local TCP"},
	{Path: "github.com/hashicorp/go-metrics", Version: "v0.7.0", Why: "metrics sinks: an in-memory sink with interval rotation under mutexes, streaming on a ticker, fan-out, statsd/statsite flush goroutines"},
	{Path: "github.com/coocood/freecache", Version: "v1.2.7", Why: "a zero-GC cache of 256 segments, each under its own mutex, statistics in atomics; a cached clock updated by a ticker goroutine; concurrent Set/Get tests"},
	{Path: "github.com/alphadose/haxmap", Version: "v1.4.0", Why: "a lock-free hash map: a sorted linked list of atomic pointers, an index grown under an atomic resizing flag; concurrent Set/Get/Del tests"},
	{Path: "github.com/moby/pubsub", Version: "v1.0.0", Why: "Docker's publisher: Publish under a RWMutex starts a goroutine per subscriber that sends on its channel with a timeout timer, waits for them with a pooled WaitGroup"},
	{Path: "github.com/moby/locker", Version: "v1.0.1", Why: "Docker's per-name locks: a map of mutexes with waiter counts, all under one mutex"},
	{Path: "github.com/gammazero/chanqueue", Version: "v1.1.3", Why: "a channel-based queue: a goroutine between an input and an output channel with a ring buffer, capacity limits, Shutdown and Close"},
	{Path: "github.com/remeh/sizedwaitgroup", Version: "v1.0.0", Why: "a WaitGroup bounded by a buffered channel semaphore, AddWithContext"},
	{Path: "github.com/creachadair/jrpc2", Version: "v1.3.6", Why: "a JSON-RPC 2.0 client and server: reader and worker goroutines over in-memory channels, WaitGroups and mutexes, callbacks in goroutines, cancellation by contexts, an HTTP bridge"},
	{Path: "github.com/sourcegraph/jsonrpc2", Version: "v0.2.3", Why: "a JSON-RPC 2.0 connection: a read loop goroutine, pending calls in a map under a mutex, async handlers, over net.Pipe and local TCP and websockets"},
	{Path: "github.com/afex/hystrix-go", Version: "v0.0.0-20180502004556-fa1af6a1f4f5", Why: "Netflix Hystrix's circuit breaker: a goroutine per command racing a timeout timer, a ticket pool of buffered channels, metric collector goroutines per circuit; goconvey"},
	{Path: "github.com/rs/zerolog", Version: "v1.35.1", Why: "a logger; its diode writer is a lock-free ring buffer drained by a poller or waiter goroutine, samplers count under atomics; many packages",
		Skip: "^TestWriteReturnsNoOfWrittenBytes$", SkipWhy: "journald's test writes to systemd-journald's socket, /run/systemd/journal/socket, and fails natively without it"},
	{Path: "github.com/dgraph-io/ristretto/v2", Version: "v2.4.2", Why: "Dgraph's cache: sharded maps under RWMutexes, a lossy ring of striped buffers drained by a policy goroutine over channels, a TinyLFU admission policy, TTL expiry on a ticker; testify"},
	{Path: "github.com/VictoriaMetrics/fastcache", Version: "v1.13.2", Why: "a sharded byte cache: 512 buckets each under a RWMutex, generations, stats in atomics; concurrent Set/Get tests"},
	{Path: "github.com/fsnotify/fsnotify", Version: "v1.10.1", Why: "file system notifications: an inotify reader goroutine feeding Events and Errors channels, Close racing it through a done channel and a pipe; tests of concurrent Add/Remove/Close"},
	{Path: "github.com/rcrowley/go-metrics", Version: "v0.0.0-20250401214520-65e299d6c5c9", Why: "metrics (Coda Hale's): counters and gauges in atomics, meters ticked by an arbiter goroutine, samples and registries under mutexes"},
	{Path: "github.com/cenkalti/backoff/v5", Version: "v5.0.3", Why: "retry with timers, contexts and permanent errors (v5's generic Retry)",
		Skip: "^ExampleRetry$", SkipWhy: "the example fetches http://httpbin.org/get and retries for 15 minutes without the network"},
	{Path: "go.uber.org/zap", Version: "v1.28.0", Why: "a logger: buffered write syncers flushed by a goroutine on a ticker, atomic levels, samplers counting in atomics, sinks under mutexes; many packages; testify"},
	{Path: "github.com/hashicorp/go-multierror", Version: "v1.1.1", Why: "error lists and a Group: goroutines append to a multierror under a mutex, Wait on a WaitGroup"},
	{Path: "github.com/VictoriaMetrics/metrics", Version: "v1.45.0", Why: "VictoriaMetrics' metrics: counters and gauges in atomics, histograms and summaries under mutexes, a set's registry, a push loop on a ticker with contexts"},
	{Path: "github.com/gammazero/deque", Version: "v1.2.3", Why: "a ring-buffer double-ended queue (not safe for concurrent use): a control module, where heddle must report nothing"},
}
