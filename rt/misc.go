package rt

import (
	"cmp"
	"fmt"
	mathrand "math/rand"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"heddle.dev/internal/engine"
)

// MapKeys returns the keys of m in the order a range over m visits them.
// The rewriter turns `for k, v := range m { body }` into a loop over
// MapKeys(m) that skips keys deleted during the iteration.
//
// Go randomizes map order, and tests fail on orders they did not expect:
// heddle must reach those orders, and reproducibly. During an exploration
// the order is drawn from the run's random source (seeded per run, and
// recorded in schedules): the sorted keys, shuffled. Go's own orders
// cannot be reproduced (they depend on a hash seed Go draws per map), and
// a shuffle reaches every one of them. It reaches more for a map of up to
// 8 keys, which Go visits as a rotation of its slots' order (so 3 of the
// 6 orders of 3 keys); a test that fails on a non-rotation only is rare.
// Outside an exploration the keys are sorted.
func MapKeys[M ~map[K]V, K comparable, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	x := engine.Current()
	if x == nil {
		sortKeys(nil, keys)
		return keys
	}
	return shuffledKeys(x, keys)
}

// shuffledKeys sorts keys and shuffles them with the run's random source.
func shuffledKeys[K comparable](x *engine.Exec, keys []K) []K {
	sortKeys(x, keys)
	if len(keys) < 2 {
		return keys
	}
	src := x.RandSource()
	for i := len(keys) - 1; i > 0; i-- {
		j := int(src.Uint64() % uint64(i+1))
		keys[i], keys[j] = keys[j], keys[i]
	}
	return keys
}

// sortKeys sorts keys in an order that does not depend on the run (x: nil
// outside an exploration).
func sortKeys[K comparable](x *engine.Exec, keys []K) {
	if len(keys) < 2 {
		return
	}
	switch ks := any(keys).(type) {
	case []string:
		sort.Strings(ks)
		return
	case []int:
		sort.Ints(ks)
		return
	}
	rv := reflect.ValueOf(keys)
	switch rv.Type().Elem().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return rv.Index(i).Int() < rv.Index(j).Int() })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return rv.Index(i).Uint() < rv.Index(j).Uint() })
	case reflect.Float32, reflect.Float64:
		sort.Slice(keys, func(i, j int) bool { return cmp.Less(rv.Index(i).Float(), rv.Index(j).Float()) })
	case reflect.String:
		sort.Slice(keys, func(i, j int) bool { return rv.Index(i).String() < rv.Index(j).String() })
	case reflect.Chan:
		if x == nil {
			sortPrinted(keys)
			return
		}
		// Channels the run made, in the order it made them: their
		// addresses, and their printed form, differ from run to run in
		// one process, and a test whose goroutine sends to every channel
		// of a map in turn (go-broadcast's subscribers) ran differently
		// from run to run and had to be explored one process per run.
		// Other channels follow, by address.
		seq := make([]uint64, len(keys))
		for i := range keys {
			seq[i] = x.ChanSeq(rv.Index(i).UnsafePointer())
		}
		sort.Sort(byChanSeq[K]{keys: keys, seq: seq, rv: rv})
	default:
		// Pointers, structs, interfaces: order by their printed form, which
		// is stable for a given run but not across runs for pointers; such
		// keys are rare in tests.
		sortPrinted(keys)
	}
}

// sortPrinted sorts keys by their printed form.
func sortPrinted[K comparable](keys []K) {
	str := make([]string, len(keys))
	for i := range keys {
		str[i] = fmt.Sprintf("%#v", keys[i])
	}
	sort.Sort(byString[K]{keys: keys, str: str})
}

// byChanSeq orders channel keys by their engine.Exec.ChanSeq, and the
// channels the run did not make (0) after them, by address.
type byChanSeq[K any] struct {
	keys []K
	seq  []uint64
	rv   reflect.Value // of keys
}

func (b byChanSeq[K]) Len() int { return len(b.keys) }
func (b byChanSeq[K]) Less(i, j int) bool {
	si, sj := b.seq[i], b.seq[j]
	if si == 0 || sj == 0 {
		if si != sj {
			return sj == 0
		}
		return uintptr(b.rv.Index(i).UnsafePointer()) < uintptr(b.rv.Index(j).UnsafePointer())
	}
	return si < sj
}
func (b byChanSeq[K]) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.seq[i], b.seq[j] = b.seq[j], b.seq[i]
}

type byString[K any] struct {
	keys []K
	str  []string
}

func (b byString[K]) Len() int           { return len(b.keys) }
func (b byString[K]) Less(i, j int) bool { return b.str[i] < b.str[j] }
func (b byString[K]) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.str[i], b.str[j] = b.str[j], b.str[i]
}

// Rand returns the source for the top-level functions of math/rand: during
// an exploration one seeded per run, otherwise a shared one. rand.Intn(n)
// becomes rt.Rand().Intn(n).
func Rand() *mathrand.Rand {
	if x := engine.Current(); x != nil {
		// A Rand per call over the run's shared source: a shared Rand
		// would be written by one goroutine and read by the others.
		return mathrand.New(x.RandSource().V1())
	}
	return defaultRand
}

// RandSeed replaces math/rand.Seed(seed). Natively Seed makes the
// top-level functions draw a fixed sequence, unless GODEBUG randseednop is
// 1 (the default since go 1.24, by the go line of the main module's
// go.mod); in a run where it does, they draw that sequence from then on,
// as natively (engine.RandSource.SeedV1), and not the run's numbers.
func RandSeed(seed int64) {
	mathrand.Seed(seed) //lint:ignore SA1019 it is what the program calls
	if x := engine.Current(); x != nil && randSeedEffective() {
		x.RandSource().SeedV1(seed)
	}
}

// randSeedEffective reports whether math/rand.Seed has an effect in this
// binary: GODEBUG's last randseednop setting, else the binary's default
// GODEBUG's (from its main module's go line), else not (go 1.24 on).
var randSeedEffective = sync.OnceValue(func() bool {
	nop := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			if st.Key == "DefaultGODEBUG" {
				nop = godebugValue(st.Value, "randseednop", nop)
			}
		}
	}
	nop = godebugValue(os.Getenv("GODEBUG"), "randseednop", nop)
	return nop == "0"
})

// godebugValue returns the last value of key in the GODEBUG list s
// ("k=v,k=v"), or def if s does not set it.
func godebugValue(s, key, def string) string {
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == key {
			def = v
		}
	}
	return def
}

// Outside an exploration the top-level functions keep their native,
// randomly seeded and concurrency-safe behaviour.
var defaultRand = mathrand.New(globalSource{})

// globalSource draws from math/rand's global generator.
type globalSource struct{}

func (globalSource) Int63() int64   { return mathrand.Int63() }
func (globalSource) Uint64() uint64 { return mathrand.Uint64() }
func (globalSource) Seed(int64)     {}
